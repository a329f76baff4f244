#!/usr/bin/env python3
"""Regenerate the committed numbers of the two ns-2 paper reproductions that hang on the
`ns2` profile's behaviour, in one command each: after a change to that profile (a dialect key,
RED, a recovery family) the lead reruns this and rereads the printed tables against the prose.

    python bench/ns2/papers/regenerate.py lte-x2 [--jobs 2]
    python bench/ns2/papers/regenerate.py drop-or-forward [--jobs 2] [--seeds-1g 1] [--skip-1g]

Each step uses the reproduction's own stated seeds and parameters (the documents' "What was
run"), with the installed hosim (`pip install .` first) and no result cache, and prints its
wall time:

lte-x2 (docs/reproductions/lte-intra-handover.md)
  1. `hosim reproduce lte-x2 --seeds 50` into a scratch directory; its data file goes to
     docs/reproductions/data and python/hosim/reproduce/committed/data, its figures to
     docs/reproductions/figures; report.md there has the tables the document quotes;
  2. the hosim side of the ns-2.35 comparison (lte_x2_hosim.py, 50 seeds) and the comparison
     tables (lte_x2_compare.py -> bench/results/ns2/lte_x2_compare.md; ns-2's own runs are
     not redone: they do not depend on hosim);
  3. `hosim reproduce lte-x2 --check` against the new committed numbers.

drop-or-forward (docs/reproductions/drop-or-forward.md)
  1. `hosim reproduce drop-or-forward --settings 100M,100M-bigbuf --seeds 3`;
  2. `--settings 1G --deltas 100,1000 --seeds-1g N` (every flavour, steady state; the slow
     part), unless --skip-1g;
  3. data files and figures copied as above;
  4. the hosim side of the ns-2.35 comparison at Δ = 100 RTTs, 20 seeds
     (drop_forward_hosim.py), and drop_forward_compare.py's tables for 100 Mb/s
     (bench/results/ns2/papers/drop_forward-100M.md) and, where ns-2's 1 Gb/s runs exist,
     1 Gb/s (drop_forward-1G.md);
  5. `hosim reproduce drop-or-forward --check`.

Benchmark tooling, not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
DOCS = ROOT / "docs" / "reproductions"
COMMITTED = ROOT / "python" / "hosim" / "reproduce" / "committed"
RESULTS = ROOT / "bench" / "results" / "ns2"


def step(name: str, cmd: list[str], stdout: Path | None = None) -> float:
    """Runs `cmd` from the repository root (exit on failure) and returns its wall time."""
    print(f"== {name}: {' '.join(cmd)}", flush=True)
    t0 = time.perf_counter()
    if stdout is None:
        rc = subprocess.run(cmd, cwd=ROOT).returncode
    else:
        with stdout.open("w") as fh:
            rc = subprocess.run(cmd, cwd=ROOT, stdout=fh).returncode
    wall = time.perf_counter() - t0
    if rc != 0:
        sys.exit(f"regenerate: step {name!r} failed (exit {rc})")
    print(f"== {name}: {wall:.0f} s", flush=True)
    return wall


def install(out: Path, pattern: str) -> None:
    """Copies a reproduction's data files and figures into docs/reproductions, and the data
    files the package ships into python/hosim/reproduce/committed (kept byte-identical)."""
    for kind in ("data", "figures"):
        for src in sorted((out / kind).glob(pattern)):
            shutil.copyfile(src, DOCS / kind / src.name)
            if (COMMITTED / kind / src.name).exists():
                shutil.copyfile(src, COMMITTED / kind / src.name)
            print(f"   {kind}/{src.name}")


def hosim(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from hosim.cli import main; sys.exit(main(sys.argv[1:]))", *args]


def lte_x2(jobs: int, scratch: Path) -> dict[str, float]:
    out = scratch / "lte-x2"
    times = {"reproduce lte-x2 (2200 runs)": step("reproduce", hosim(
        "reproduce", "lte-x2", "--seeds", "50", "--jobs", str(jobs), "--no-cache", "--out", str(out)))}
    install(out, "lte-*")
    times["ns-2 comparison, hosim side (2700 runs)"] = step("lte_x2_hosim", [
        sys.executable, str(HERE / "lte_x2_hosim.py"), "--seeds", "50", "--jobs", str(jobs)])
    step("lte_x2_compare", [sys.executable, str(HERE / "lte_x2_compare.py")])
    times["check"] = step("check", hosim("reproduce", "lte-x2", "--check", "--no-cache", "--against", str(DOCS)))
    print(f"tables to quote: {out / 'report.md'}, {RESULTS / 'lte_x2_compare.md'}")
    return times


def drop_or_forward(jobs: int, seeds_1g: int, skip_1g: bool, scratch: Path) -> dict[str, float]:
    out = scratch / "dof"
    times = {"reproduce 100M, 100M-bigbuf (3 seeds)": step("reproduce 100M", hosim(
        "reproduce", "drop-or-forward", "--settings", "100M,100M-bigbuf", "--seeds", "3",
        "--jobs", str(jobs), "--no-cache", "--out", str(out)))}
    install(out, "drop-or-forward-*")
    if not skip_1g:
        out_1g = scratch / "dof-1g"
        times[f"reproduce 1G (Δ = 100, 1000; {seeds_1g} seed)"] = step("reproduce 1G", hosim(
            "reproduce", "drop-or-forward", "--settings", "1G", "--deltas", "100,1000",
            "--seeds-1g", str(seeds_1g), "--jobs", str(jobs), "--no-cache", "--out", str(out_1g)))
        install(out_1g, "drop-or-forward-*")
    papers = RESULTS / "papers"
    hosim_20 = scratch / "dof-hosim-20.json"
    hosim_20r = scratch / "dof-hosim-20-rearrange.json"
    times["ns-2 comparison, hosim side (Δ = 100, 20 seeds)"] = step("drop_forward_hosim", [
        sys.executable, str(HERE / "drop_forward_hosim.py"), "--recoveries", "reno,sack,newreno",
        "--schemes", "drop,forward", "--deltas", "100", "--seeds", "20", "--jobs", str(jobs),
        "--out", str(hosim_20)])
    times["ns-2 comparison, hosim side, rearrange"] = step("drop_forward_hosim rearrange", [
        sys.executable, str(HERE / "drop_forward_hosim.py"), "--recoveries", "newreno",
        "--schemes", "rearrange", "--deltas", "100", "--seeds", "20", "--jobs", str(jobs),
        "--out", str(hosim_20r)])
    merged = papers / "drop_forward-hosim-100M-delta100.json"
    points = {**json.loads(hosim_20.read_text()), **json.loads(hosim_20r.read_text())}
    merged.write_text(json.dumps(points, indent=1, sort_keys=True) + "\n")
    step("drop_forward_compare 100M", [
        sys.executable, str(HERE / "drop_forward_compare.py"), "--setting", "100M",
        "--ns2", str(papers / "drop_forward-100M.json"), "--hosim", f"hosim (20 seeds)={merged}",
        "--hosim", f"hosim (3 seeds)={DOCS / 'data' / 'drop-or-forward-100M.json'}"],
        stdout=papers / "drop_forward-100M.md")
    ns2_1g = papers / "drop_forward-1G-warmup200.json"
    if ns2_1g.exists():
        step("drop_forward_compare 1G", [
            sys.executable, str(HERE / "drop_forward_compare.py"), "--setting", "1G", "--ns2", str(ns2_1g),
            "--hosim", f"hosim={DOCS / 'data' / 'drop-or-forward-1G.json'}"],
            stdout=papers / "drop_forward-1G.md")
    times["check"] = step("check", hosim("reproduce", "drop-or-forward", "--check", "--no-cache",
                                         "--against", str(DOCS)))
    print(f"tables to quote: {out / 'report.md'}, {papers / 'drop_forward-100M.md'}")
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paper", choices=("lte-x2", "drop-or-forward"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seeds-1g", type=int, default=1, help="drop-or-forward: seeds per 1 Gb/s point")
    ap.add_argument("--skip-1g", action="store_true", help="drop-or-forward: leave the 1 Gb/s data as it is")
    args = ap.parse_args()
    # Kept after the run: its report.md holds the tables the documents quote.
    scratch = Path(tempfile.mkdtemp(prefix=f"hosim-regenerate-{args.paper}-"))
    if args.paper == "lte-x2":
        times = lte_x2(args.jobs, scratch)
    else:
        times = drop_or_forward(args.jobs, args.seeds_1g, args.skip_1g, scratch)
    print("\nwall time per step:")
    for name, wall in times.items():
        print(f"  {name}: {wall:.0f} s")
    print(f"  total: {sum(times.values()):.0f} s (scratch directory {scratch}, remove it when done)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
