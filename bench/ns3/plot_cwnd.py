#!/usr/bin/env python3
"""Plot cwnd and ssthresh over time, hosim vs ns-3, for one case (one flow).

Needs the CSVs written with --traces by run_hosim.py and run_ns3.py:
  bench/results/ns3/<case>.{hosim,ns3}.{cwnd,ssthresh}.csv
Writes bench/results/ns3/<case>.cwnd.png.

Note: during fast recovery ns-3 traces the un-inflated cwnd (CongestionWindow = ssthresh in
classic recovery; the inflation lives in CongestionWindowInflated), while hosim's NewReno
cwnd includes the RFC 6582 inflation (ssthresh + 3 SMSS + one SMSS per further dup ACK).

Usage: python bench/ns3/plot_cwnd.py CASE [--flow flow0] [--tmax 5] [--segments]
"""

from __future__ import annotations

import argparse
import os
import sys

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns3"))
sys.path.insert(0, HERE)
from families import MSS  # noqa: E402

UNLIMITED = 2**31  # ssthresh values above this are "infinite" (before the first loss)


def load(case: str, sim: str, kind: str, flow: str) -> pd.DataFrame:
    df = pd.read_csv(os.path.join(RESULTS, f"{case}.{sim}.{kind}.csv"))
    df = df[df["flow"] == flow]
    col = [c for c in df.columns if c.endswith("_bytes")][0]
    return df[["time_s", col]].rename(columns={col: "bytes"})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case")
    ap.add_argument("--flow", default="flow0")
    ap.add_argument("--tmax", type=float, default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(10, 5))
    styles = {"hosim": ("tab:blue", "hosim"), "ns3": ("tab:red", "ns-3 3.44")}
    ymax = 0.0
    for sim, (color, label) in styles.items():
        cw = load(args.case, sim, "cwnd", args.flow)
        ss = load(args.case, sim, "ssthresh", args.flow)
        ss = ss[ss["bytes"] < UNLIMITED]
        if args.tmax is not None:
            cw = cw[cw["time_s"] <= args.tmax]
            ss = ss[ss["time_s"] <= args.tmax]
        # hold the last values until the end of the trace (or --tmax)
        t_end = args.tmax if args.tmax is not None else float(cw["time_s"].max())
        cw = pd.concat([cw, pd.DataFrame({"time_s": [t_end], "bytes": [cw["bytes"].iloc[-1]]})])
        if len(ss):
            ss = pd.concat([ss, pd.DataFrame({"time_s": [t_end], "bytes": [ss["bytes"].iloc[-1]]})])
        ax.step(cw["time_s"], cw["bytes"] / MSS, where="post", color=color, lw=1.2, label=f"{label} cwnd")
        if len(ss):
            ax.step(
                ss["time_s"], ss["bytes"] / MSS, where="post", color=color, lw=1.0, ls="--", label=f"{label} ssthresh"
            )
            ymax = max(ymax, float(ss["bytes"].max() / MSS))
        ymax = max(ymax, float(cw["bytes"].max() / MSS))
    ax.set_xlabel("time [s]")
    ax.set_ylabel("segments (1448 B)")
    ax.set_ylim(0, ymax * 1.05)
    if args.tmax is not None:
        ax.set_xlim(0, args.tmax)
    ax.set_title(f"{args.case}, {args.flow}: cwnd and ssthresh, hosim vs ns-3")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=9)
    out = args.out or os.path.join(RESULTS, f"{args.case}.cwnd.png")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
