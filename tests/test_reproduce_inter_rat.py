"""The inter-RAT reproduction driver: the paper's cells, its tables, and a short native run."""

from __future__ import annotations

import pytest

from hosim.reproduce import inter_rat


def _point(retx: int, conv: float | None) -> dict:
    return {"retransmissions": retx, "convergence_time_s": conv, "lost_in_source_packets": 0,
            "forwarded_packets": 0, "duplicated_packets": 0, "timeouts": 0, "spurious_timeouts": 0,
            "fast_recoveries": 0, "pre_rate_bps": 1e6, "completion_s": None}


def test_every_figure_row_has_the_papers_four_cells():
    for row, *_ in inter_rat.FIG4 + inter_rat.FIG5:
        for s1 in inter_rat.S1:
            for scheme in ("forwarding", "bicasting"):
                assert (row, s1, scheme) in inter_rat.PAPER
    assert inter_rat.PAPER[("1->1, 10 ms", "155M", "bicasting")] == (41, 9.3)


def test_figure_table_sets_paper_and_hosim_side_by_side():
    points = {f"{row}|{s1}|{scheme}": _point(3, None if scheme == "none" else 0.15)
              for row, *_ in inter_rat.FIG4 for s1 in inter_rat.S1
              for scheme in ("forwarding", "bicasting", "none")}
    table = inter_rat.fig_table(points, inter_rat.FIG4, "Figure 4")
    assert "| 1->1, 10 ms | 0 / 0.15 ‖ 3 / 0.15 |" in table
    assert "3 / n/a" in table


@pytest.mark.native
def test_a_short_bicasting_run_reports_its_handover():
    with inter_rat.Runner() as runner:
        points = inter_rat.grid(runner, [("1->1, 10 ms", 1, 1, 0.01)], schemes=("bicasting",),
                                **{"inter_rat.ftp_start_s": 0.5, "inter_rat.handover_at_s": 3.0,
                                   "inter_rat.pre_window_s": 1.0, "duration_s": 8.0,
                                   "inter_rat.file_bytes": 0})
    p = points["1->1, 10 ms|155M|bicasting"]
    assert p["lost_in_source_packets"] > 0 and p["bicast_copies"] > 0
