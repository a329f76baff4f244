"""`hosim plot`: the data series behind the figures, checked without looking at pixels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from hosim.cli import main
from hosim.cli.plot import seq_data, seq_figure, trace_data, trace_figure

SETS = ["--set", "duration_s=2.6", "--set", "tcp.recovery=sack"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lte-plot")
    links = "srv_ue_ref->sgw,sgw->srv_ue_ref,sgw->router,router->sgw"
    assert main(["run", "lte-x2", *SETS, "--out", str(out), "--pcap", links]) == 0
    return out


@pytest.fixture(scope="module")
def ref_series(run_dir: Path) -> dict[str, Any]:
    return seq_data(run_dir, "ref")


def _summary(run_dir: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((run_dir / "summary.json").read_text())
    return summary


def test_seq_data_reads_the_flow_at_its_sender_and_marks_its_retransmissions(
    run_dir: Path, ref_series: dict[str, Any]
) -> None:
    series = ref_series
    flow = next(f for f in _summary(run_dir)["flows"] if f["name"] == "ref")
    data = series["data"]
    assert (series["data_link"], series["ack_link"]) == ("srv_ue_ref->sgw", "sgw->srv_ue_ref")
    assert int(data["retx"].sum()) == flow["retransmits"]
    assert (data["end"] - data["seq"]).max() == 1460
    # Every byte delivered was sent, and the highest ACK does not pass the highest byte sent.
    assert data["end"].max() >= flow["bytes_delivered"] >= series["acks"]["ack"].max() - 1460


def test_ack_and_window_lines_follow_the_receiver(ref_series: dict[str, Any]) -> None:
    acks = ref_series["acks"]
    assert acks["ack"].is_monotonic_increasing
    assert set(acks["window_end"] - acks["ack"]) == {65535}, "the preset's rwnd, unscaled"


def test_sack_blocks_lie_above_the_ack_they_come_with(ref_series: dict[str, Any]) -> None:
    sacks, acks = ref_series["sacks"], ref_series["acks"]
    assert not sacks.empty, "the handover loses packets: the receiver sends SACK blocks"
    merged = pd.merge_asof(sacks.sort_values("time_s"), acks[["time_s", "ack"]], on="time_s", direction="backward")
    assert (merged["start"] > merged["ack"]).all() and (merged["end"] > merged["start"]).all()


def test_seq_window_and_handover_marks(run_dir: Path) -> None:
    summary = _summary(run_dir)
    h = summary["handovers"][0]
    series = seq_data(run_dir, "ref", start=2.2, end=2.8)
    assert series["data"]["time_s"].between(2.2, 2.8).all() and len(series["data"]) > 10
    assert series["handovers"].to_dict("records") == [{"start_s": h["start_s"], "end_s": h["end_s"]}]
    figure = seq_figure(series)
    ax = figure.axes[0]
    assert ax.get_xlim() == (2.2, 2.8)
    assert [t.get_text() for t in ax.get_legend().get_texts()][:1] == ["data"]


def test_trace_plot_draws_the_parquet_series(run_dir: Path) -> None:
    frame = trace_data(run_dir, "cwnd")
    expected = pd.read_parquet(run_dir / "cwnd.parquet")
    pd.testing.assert_frame_equal(frame, expected)
    ax = trace_figure(frame, "cwnd").axes[0]
    ref = frame[frame["flow"] == "ref"]
    # By default the effective window, solid; the raw cwnd dashed in the same colour.
    line = next(line for line in ax.get_lines() if line.get_label() == "ref")
    assert list(line.get_ydata()) == pytest.approx(list(ref["effective_window_bytes"] * 1e-3))
    assert line.get_linestyle() == "-"
    raw = [other for other in ax.get_lines() if other.get_linestyle() == "--" and other.get_color() == line.get_color()]
    assert len(raw) == 1 and list(raw[0].get_ydata()) == pytest.approx(list(ref["cwnd_bytes"] * 1e-3))


def test_the_cwnd_trace_has_the_effective_window_capped_by_rwnd(run_dir: Path) -> None:
    # Issue 38: lte-x2's ref flow grows its raw cwnd far above the preset's 64 kB rwnd; what
    # limits sending is min(cwnd, rwnd), and the trace says so.
    frame = pd.read_parquet(run_dir / "cwnd.parquet")
    assert list(frame.columns) == ["time_s", "flow", "cwnd_bytes", "effective_window_bytes"]
    assert (frame["effective_window_bytes"] == frame["cwnd_bytes"].clip(upper=65535)).all()
    ref = frame[frame["flow"] == "ref"]
    assert ref["cwnd_bytes"].max() > 65535 and ref["effective_window_bytes"].max() == 65535


@pytest.mark.parametrize("kind", ["seq", "cwnd", "queue", "goodput"])
def test_plot_commands_write_an_image(run_dir: Path, tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"{kind}.png"
    args = ["plot", kind, str(run_dir), "-o", str(path)] + (["--flow", "ref"] if kind == "seq" else [])
    assert main(args) == 0
    assert path.stat().st_size > 1000


def test_plot_seq_of_an_unknown_flow_is_an_input_error(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", "seq", str(run_dir), "--flow", "nope"]) == 2
    assert "no flow 'nope'" in capsys.readouterr().err


def test_plot_seq_without_capture_says_how_to_make_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "dumbbell", "--set", "duration_s=1", "--out", str(tmp_path), "--no-traces"]) == 0
    assert main(["plot", "seq", str(tmp_path), "--flow", _summary(tmp_path)["flows"][0]["name"]]) == 2
    assert "--pcap" in capsys.readouterr().err
