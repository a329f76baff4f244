#!/usr/bin/env python3
"""Where in time hosim's `linux` profile and the kernel part (issue 35 §4): lte-x2's reference
flow, goodput per 0.1 s and per phase of the run, for the kernel's CUBIC (`hosim emulate`, as
`todays_tcp.py` runs it) and for hosim's `linux` profile on the same seeds and keys.

Benchmark only; the kernel runs need root; never part of the test suite.

Phases (the preset's handover at 2.3 s; the predicted switch starts at 2.19 s): `before`
[0.2, 2.2) s, `handover` [2.2, 2.7) s, `after` [2.7, 5.0) s. Goodput per phase is the flow's
in-order delivered bytes in it over its length: hosim's `goodput` trace, and the same trace of
an emulated run (`hosim.emulate(out_dir=...)`: the bytes the receiving kernel acknowledged in
order per interval). The whole run is [0.2, 5.0) s for both.

One JSON line per run (appended to --out): stack, variant, seed, the extra keys or the kernel
setting, the 0.1 s series of the reference flow, the three phases, the whole run, and the
counters (hosim's summary; the kernel sender's nstat), with the emulated run's lateness.

Usage:
  sudo python bench/linux/phases.py run --stack kernel --variants fast,predicted --seeds 1,2,3
  python bench/linux/phases.py run --stack hosim --variants fast,predicted --seeds 1,2,3
  python bench/linux/phases.py run --stack hosim --set tcp.min_rto_s=0.2 --tag min_rto_0.2
  sudo python bench/linux/phases.py run --stack kernel --sysctl net.ipv4.tcp_dsack=0 --tag no_dsack
  python bench/linux/phases.py report                  # the per-phase table of --out
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from typing import Any

import click

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import todays_tcp as T  # noqa: E402

OUT = os.path.normpath(os.path.join(HERE, "..", "results", "linux", "lte-x2-phases.jsonl"))
BIN_S = 0.1
PHASES = {"before": (0.2, 2.2), "handover": (2.2, 2.7), "after": (2.7, 5.0), "run": (0.2, 5.0)}
HOSIM_COUNTERS = ("retransmits", "timeouts", "spurious_timeouts", "fast_recoveries", "tlp_probes",
                  "tlp_loss_repairs", "lost_retransmissions", "dsacks_received", "dsack_undos", "ts_undos",
                  "ts_partial_undos", "ts_reorders", "rwnd_limited_s", "small_queue_throttles",
                  "hystart_train_exits", "hystart_delay_exits")


def series(goodput: Any, flow: str = "ref") -> list[float]:
    """The flow's goodput per 0.1 s bin from 0, in Mb/s (a `goodput` trace frame)."""
    g = goodput[goodput.flow == flow]
    out = [0.0] * int(round(5.0 / BIN_S))
    for t, v in zip(g.time_s, g.goodput_bps):
        i = int(round(t / BIN_S))
        if 0 <= i < len(out):
            out[i] = float(v) / 1e6
    return out


def phases(s: list[float]) -> dict[str, float]:
    res = {}
    for name, (a, b) in PHASES.items():
        i, j = int(round(a / BIN_S)), int(round(b / BIN_S))
        res[name] = sum(s[i:j]) / (j - i)
    return res


def hosim_row(text: str, seed: int, overrides: dict[str, Any]) -> dict[str, Any]:
    import hosim

    r = hosim.run(text, seed=seed, overrides=overrides, traces=True)
    f = r.summary["flows"][0]
    return {"series": series(r.goodput), "goodput_summary_bps": f["goodput_bps"],
            "counters": {k: f.get(k) for k in HOSIM_COUNTERS}, "handover": r.summary["handovers"][0]}


def kernel_row(text: str, seed: int, overrides: dict[str, Any], sysctl: str, clamp: int | None,
               capture: str | None) -> dict[str, Any]:
    import pandas as pd

    import hosim

    py = sys.executable
    pre = "" if not sysctl else " && ".join(f"sysctl -q -w {s}" for s in sysctl.split(";")) + " && "
    clamp_arg = f" --window-clamp {clamp}" if clamp else ""
    with tempfile.TemporaryDirectory(prefix="hosim-phases-") as tmp:
        s = hosim.emulate(
            text, seed=seed, overrides=overrides,
            server=f"{pre}exec {py} -m hosim.netapps serve --cc cubic --bytes 100000000000 --timeout 10",
            client=f"{pre}exec {py} -m hosim.netapps fetch {{server}} --timeout 10{clamp_arg}",
            client_delay_s=T.CLIENT_DELAY_S, app_output_dir=tmp, out_dir=os.path.join(tmp, "out"),
            capture_dir=capture, capture_links=["srv_ue_ref->sgw", "ue_ref->senb", "ue_ref->tenb"] if capture else (),
        )
        goodput = pd.read_parquet(os.path.join(tmp, "out", "goodput.parquet"))
    emu = s["emulation"]
    flow = emu["flows"][0]
    snd = next(h for h in emu["hosts"] if h["host"] == flow["src"])
    acked = T.bytes_acked(T.ss_text(snd["ss"]))
    return {"series": series(goodput), "goodput_bytes_acked_bps": acked * 8 / (emu["duration_s"] - T.CLIENT_DELAY_S),
            "counters": {k: v for k, v in snd["nstat"].items() if k in T.COUNTERS or "DSACK" in k},
            "ss_at_end": T.ss_text(snd["ss"])[-600:], "handover": s["handovers"][0],
            "p99_us": emu["lateness"]["p99_us"], "late": bool(emu["warning"]), "loadavg": emu["loadavg"]}


@click.group()
def main() -> None:
    """Per-phase goodput of lte-x2's reference flow, kernel against hosim."""


@main.command()
@click.option("--stack", type=click.Choice(["kernel", "hosim"]), required=True)
@click.option("--variants", default="fast,predicted", show_default=True)
@click.option("--seeds", default="1,2,3", show_default=True)
@click.option("--set", "sets", multiple=True, help="hosim: an extra key=value over todays_tcp.py's overrides.")
@click.option("--sysctl", default="", help="kernel: sysctls set in both namespaces (a;b).")
@click.option("--clamp", type=int, default=None, help="kernel: the receiver's TCP_WINDOW_CLAMP in bytes.")
@click.option("--capture", default=None, help="kernel: keep pcaps of the reference flow's links in this directory.")
@click.option("--tag", default="", help="A name for this configuration in the report.")
@click.option("--out", default=OUT, show_default=True)
def run(stack: str, variants: str, seeds: str, sets: tuple[str, ...], sysctl: str, clamp: int | None,
        capture: str | None, tag: str, out: str) -> None:
    """Run one configuration on every variant and seed; append a JSON line per run."""
    if stack == "kernel" and os.geteuid() != 0:
        click.echo("phases.py: the kernel runs need root (hosim emulate)", err=True)
        sys.exit(2)
    case = T.CASES["lte-x2"]
    text = T.scenario_text(case)
    extra: dict[str, Any] = {}
    for kv in sets:
        k, sep, v = kv.partition("=")
        if not sep:
            click.echo(f"phases.py: --set {kv}: expected key=value", err=True)
            sys.exit(2)
        extra[k] = json.loads(v) if v[:1] in "0123456789-[{tf\"" else v
    for variant in variants.split(","):
        for seed in (int(x) for x in seeds.split(",")):
            ov = {**case["base"], "lte_x2.path_switch": variant, **extra}
            if stack == "hosim":
                r = hosim_row(text, seed, ov)
            else:
                cap = os.path.join(capture, f"{variant}-{seed}") if capture else None
                r = kernel_row(text, seed, ov, sysctl, clamp, cap)
            ph = phases(r["series"])
            row = {"stack": stack, "tag": tag or "default", "variant": variant, "seed": seed, "extra": extra,
                   "sysctl": sysctl, "clamp": clamp, "phases_mbps": ph, **r}
            with open(out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
            late = f", p99 {r['p99_us']:.0f} us{' LATE' if r['late'] else ''}" if stack == "kernel" else ""
            click.echo(f"{stack}/{row['tag']} {variant} #{seed}: " + ", ".join(f"{k} {v:.2f}" for k, v in ph.items())
                       + f" Mb/s{late}", err=True)


@main.command()
@click.option("--out", default=OUT, show_default=True)
@click.option("--variants", default="standard,fast,predicted", show_default=True)
def report(out: str, variants: str) -> None:
    """Per-phase mean goodput (Mb/s, ± sd over the runs) of each stack and configuration."""
    with open(out) as fh:
        rows = [json.loads(x) for x in fh if x.strip()]
    click.echo("| variant | stack / configuration | runs | before | handover | after | whole run |")
    click.echo("|---|---|---|---|---|---|---|")
    for variant in variants.split(","):
        keys = sorted({(r["stack"], r["tag"]) for r in rows if r["variant"] == variant})
        for stack, tag in keys:
            sel = [r for r in rows if r["variant"] == variant and r["stack"] == stack and r["tag"] == tag]
            cells = []
            for p in PHASES:
                xs = [r["phases_mbps"][p] for r in sel]
                sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
                cells.append(f"{statistics.fmean(xs):.2f} ± {sd:.2f}")
            name = f"{'kernel cubic' if stack == 'kernel' else 'hosim `linux`'} ({tag})"
            click.echo(f"| {variant} | {name} | {len(sel)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
