"""The inter-RAT reproduction driver: the paper's cells, its tables, and a short native run."""

from __future__ import annotations

import json
from pathlib import Path

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
                                extra={"inter_rat.ftp_start_s": 0.5, "inter_rat.handover_at_s": 3.0,
                                       "inter_rat.pre_window_s": 1.0, "duration_s": 8.0,
                                       "inter_rat.file_bytes": 0})
    p = points["1->1, 10 ms|155M|bicasting"]
    assert p["lost_in_source_packets"] > 0 and p["bicast_copies"] > 0


def test_profile_option_reaches_every_run():
    """`--profile NAME` sets `tcp.profile` in every point's overrides (parsed by the command itself)."""
    from hosim.reproduce import common

    try:
        inter_rat.cli.make_context("inter-rat", ["--profile", "linux", "--no-plots"])
        assert inter_rat.overrides(1, 1, 0.01, "155M", "bicasting")["tcp.profile"] == "linux"
        inter_rat.cli.make_context("inter-rat", ["--no-plots"])
        assert "tcp.profile" not in inter_rat.overrides(1, 1, 0.01, "155M", "bicasting")
    finally:
        common.PROFILE_OVERRIDES.clear()


DOCS = Path(__file__).resolve().parents[1] / "docs" / "reproductions"
needs_docs = pytest.mark.skipif(not (DOCS / "data" / "inter-rat.json").is_file(), reason="docs/reproductions absent")
CHECK_ROWS = inter_rat.FIG4[:1]
CHECK_STALL = ("sack (RFC 6675)", "sack, pipe without IsLost")


@pytest.mark.native
@needs_docs
def test_check_matches_the_committed_numbers_and_flags_a_changed_one(tmp_path):
    with inter_rat.Runner() as runner:
        comparison = inter_rat.check_committed(runner, DOCS, rows=CHECK_ROWS, stall=CHECK_STALL)
        assert len(comparison.rows) == 8 * len(inter_rat.CHECK_FIELDS) and comparison.differences == []
        data = json.loads((DOCS / "data" / "inter-rat.json").read_text())
        data["stall"]["sack, pipe without IsLost"]["timeouts"] += 1
        (tmp_path / "data").mkdir()
        (tmp_path / "data" / "inter-rat.json").write_text(json.dumps(data))
        changed = inter_rat.check_committed(runner, tmp_path, rows=CHECK_ROWS, stall=CHECK_STALL)
    assert [name for name, *_ in changed.differences] == ["stall[sack, pipe without IsLost].timeouts"]


def test_check_without_committed_numbers_is_one_line(tmp_path, capsys):
    from hosim.cli import main

    assert main(["reproduce", "inter-rat", "--check", "--against", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "inter-rat.json" in err[0]


def test_ref3_arithmetic_is_half_a_bdp_of_rtts():
    # 20 Mb/s x 100 ms = 171 segments of 1460 bytes; halved, one segment per RTT: 8.6 s.
    assert inter_rat.aimd_recovery_s(20, 0.1) == pytest.approx(20e6 * 0.1 / 8 / 1460 / 2 * 0.1)
    assert inter_rat.aimd_recovery_s(20, 0.1) == pytest.approx(8.56, abs=0.01)
    assert inter_rat.aimd_recovery_s(1, 0.1) < 1.0
