#!/usr/bin/env python3
"""hosim side of the drop/forward comparison with ns-2.35, for a few points and a candidate key.

Runs hosim's own driver (``hosim.reproduce.fcp.simulate_points``: the ``fcp`` preset, the
setting's buffers, warm-up and run length) for the chosen flavours and schemes at the chosen
Δ, seeds 1..N, with ``--set KEY=VALUE`` added to every run, and writes the points in the
shape of ``hosim reproduce drop-or-forward``'s data file, so that ``drop_forward_compare.py
--hosim LABEL=PATH`` reads them beside ns-2.35's.

    python bench/ns2/papers/drop_forward_hosim.py --recoveries reno --deltas 100 --seeds 20 \\
        --set tcp.reno_reentry=beyond-recover --out bench/results/ns2/papers/drop_forward-hosim-reno.json
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from hosim.reproduce import fcp
from hosim.runner import Runner


def value(text: str) -> Any:
    """A --set value as TOML would read it: a number, a boolean, or a string."""
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setting", default="100M", choices=sorted(fcp.SETTINGS))
    ap.add_argument("--recoveries", default="reno")
    ap.add_argument("--schemes", default="drop,forward")
    ap.add_argument("--deltas", default="100", help="comma-separated Δ in RTTs")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    extra = {k: value(v) for k, v in (s.split("=", 1) for s in args.set)}
    specs: list[tuple[str, str, str, float | None]] = [
        (args.setting, r, s, float(d))
        for r in args.recoveries.split(",") for s in args.schemes.split(",") for d in args.deltas.split(",")
    ]
    points = fcp.Points(Path(args.out))
    with Runner.from_options(args.jobs, None, cache=False) as runner:
        results = fcp.simulate_points(runner, points, specs, args.seeds, extra)
    # Keyed as drop_forward_compare.py reads them (setting|recovery|scheme|delta); the
    # candidate keys stay in each point's overrides.
    points.points = {fcp._key(*spec, {}): p for spec, p in zip(specs, results)}
    points.save()
    for spec, p in zip(specs, results):
        runs = p["runs"]
        print(f"{'|'.join(map(str, spec)):28s} {p['throughput_fraction']:.3f} ± {p['throughput_fraction_ci95']:.3f}"
              f"  TO {statistics.fmean(r['timeouts_per_flow'] for r in runs):.1f}"
              f"  FR {statistics.fmean(r['fast_recoveries_per_flow'] for r in runs):.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
