"""A/B timing of builds of the example binary on the dumbbell of bench/paired.py.

Each binary is copied --copies times (fresh files: on this machine the same file copied twice
ran up to 14 % apart, bench/README.md "The same build, different copies"). Rounds interleave
every copy of every binary at each flow count; per binary the table gives the median over its
copies of each copy's minimum core run loop. Before timing, every binary's summary (without its
wall time) must be the same as the first binary's: a change meant to be faster must not change
a result.

    cargo build --release --example run -p hosim && cp target/release/examples/run /tmp/base
    # ... change, rebuild ...
    python bench/ab.py /tmp/base target/release/examples/run --rounds 8 --copies 3

Not run in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from paired import setting_args  # noqa: E402  (the benchmark's TCP settings)


def run(binary: str, flows: int, duration: float) -> dict:
    """One run of `binary`'s dumbbell: its JSON summary."""
    proc = subprocess.run([binary, "dumbbell", *setting_args(flows, duration)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"ab: {binary} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout)


def result_digest(summary: dict) -> str:
    """The summary without its wall time, as a digest: equal for equal results."""
    rest = {k: v for k, v in summary.items() if k != "wall_time_s"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binaries", nargs="+", help="example binaries (`target/release/examples/run`) to compare")
    ap.add_argument("--flows", type=int, nargs="+", default=[8, 512])
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--copies", type=int, default=3)
    args = ap.parse_args()
    for name, value in (("--rounds", args.rounds), ("--copies", args.copies)):
        if value < 1:
            ap.error(f"{name}: must be >= 1, got {value}")
    if any(f < 1 for f in args.flows):
        ap.error(f"--flows: must be >= 1, got {args.flows}")
    for b in args.binaries:
        if not Path(b).is_file():
            ap.error(f"no such binary: {b}")
    for flows in args.flows:
        digests = {b: result_digest(run(b, flows, args.duration)) for b in args.binaries}
        if len(set(digests.values())) != 1:
            raise SystemExit(f"ab: the binaries' summaries differ at {flows} flows: {digests}")
    with tempfile.TemporaryDirectory(prefix="hosim-ab-") as tmp:
        copies = {b: [] for b in args.binaries}
        for i, b in enumerate(args.binaries):
            for c in range(args.copies):
                target = Path(tmp) / f"{i}-{c}"
                shutil.copy2(b, target)
                copies[b].append(str(target))
        every = [c for cs in copies.values() for c in cs]
        times: dict[str, dict[int, list[float]]] = {c: {f: [] for f in args.flows} for c in every}
        for r in range(args.rounds):
            for c in range(args.copies):
                for b in args.binaries:
                    for flows in args.flows:
                        times[copies[b][c]][flows].append(run(copies[b][c], flows, args.duration)["wall_time_s"])
            print(f"round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
        for b in args.binaries:
            cells = []
            for flows in args.flows:
                minima = [min(times[c][flows]) * 1e3 for c in copies[b]]
                spread = " ".join(f"{m:.2f}" for m in minima)
                cells.append(f"{flows} flows {statistics.median(minima):.3f} ms (copies {spread})")
            print(f"{b}: " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
