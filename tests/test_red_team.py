"""Issue 39, the core's fixes seen from the command and from Python: a ``--set`` value with a
line break, pcap files of links whose names differ only in characters a file name cannot hold,
and a Mahimahi trace with a huge last timestamp. (crates/hosim/tests/red_team.rs has the rest.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest

import hosim

pytestmark = pytest.mark.native

GRAPH = """
duration_s = 1.0
[[nodes]]
name = "h1"
kind = "host"
[[nodes]]
name = "h2"
kind = "host"
[[nodes]]
name = "r"
kind = "router"
[[links]]
name = "a>b"
from = "h1"
to = "r"
rate_bps = 10e6
delay_s = 0.001
[[links]]
name = "a<b"
from = "r"
to = "h2"
rate_bps = 10e6
delay_s = 0.001
[[flows]]
src = "h1"
dst = "h2"
"""


def test_a_set_value_with_a_line_break_is_one_line_and_exit_2(hosim_cli: Callable[..., CompletedProcess[str]]) -> None:
    # It ran with the preset's flows before, the rest of the value dropped.
    r = hosim_cli("run", "dumbbell", "--set", "duration_s=1\n[dumbbell]\nflows=3", "--json")
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "duration_s" in lines[0] and "line break" in lines[0], r.stderr


def test_pcap_files_of_links_named_alike_are_separate_and_whole(
    tmp_path: Path, hosim_cli: Callable[..., CompletedProcess[str]]
) -> None:
    dpkt = pytest.importorskip("dpkt")
    scenario = tmp_path / "alike.toml"
    scenario.write_text(GRAPH, encoding="utf-8")
    out = tmp_path / "out"
    r = hosim_cli("run", str(scenario), "--out", str(out), "--no-traces", "--pcap", "all", "--pcap-format", "pcap")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    files = {link["name"]: link["file"] for link in summary["capture"]["links"]}
    assert files["a>b"] == "a%3Eb.pcap" and files["a<b"] == "a%3Cb.pcap"
    assert len(set(files.values())) == len(files) == 4
    for link in summary["capture"]["links"]:
        with open(out / link["file"], "rb") as f:
            assert len(list(dpkt.pcap.Reader(f))) == link["packets"], link["name"]


def test_a_mahimahi_trace_with_a_last_timestamp_of_5e9_ms_runs(tmp_path: Path) -> None:
    # It allocated a table of 5e9 milliseconds (40 GB) before.
    trace = tmp_path / "big.mahi"
    trace.write_text("".join(f"{t}\n" for t in range(1, 2001)) + "5000000000\n", encoding="utf-8")
    r = hosim.run("hsdpa", seed=1, traces=False,
                  overrides={"hsdpa.bandwidth": "trace", "hsdpa.trace_file": str(trace), "duration_s": 2})
    assert r.summary["flows"][0]["bytes_delivered"] > 0
