#!/usr/bin/env python3
"""A controlled kernel experiment for issue 35 §4: a case of `todays_tcp.py` (by default
drop-or-forward, Δ = 10 RTT, 20 s) with the kernel's CUBIC as flow0, and one or more
per-namespace TCP sysctls changed in both of its namespaces (e.g. ``net.ipv4.tcp_dsack=0``). They are set by the
server's and the client's shell commands inside the namespaces `hosim emulate` creates, so
nothing machine-wide changes and they die with the namespaces.

Benchmark only; must run as root. One JSON line per run on stdout: goodput (the sender's
`bytes_acked` over the run from the client's start, as in `todays_tcp.py`), p99 lateness, and
the sender's and receiver's nonzero nstat counters about retransmission, SACK, DSACK, undo and
reordering.

`HOSIM_PROBE_CASE=lte-x2` runs lte-x2's case instead (the variant is then the path switch:
standard, fast or predicted); `HOSIM_PROBE_CLAMP=BYTES` makes the receiver advertise at most
BYTES (TCP_WINDOW_CLAMP on the fetching socket, `hosim.netapps fetch --window-clamp`) instead
of its autotuned window.

Usage:
  sudo python bench/linux/sysctl_probe.py none forward 1,2,3
  sudo python bench/linux/sysctl_probe.py net.ipv4.tcp_dsack=0 forward 1,2,3
  sudo python bench/linux/sysctl_probe.py "net.ipv4.tcp_timestamps=0" forward 1,2,3
  sudo HOSIM_PROBE_CASE=lte-x2 HOSIM_PROBE_CLAMP=65535 python bench/linux/sysctl_probe.py none fast 1,2,3
The runs of 2026-11-27: bench/results/linux/sysctl-probe-<case>.jsonl.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import todays_tcp as T  # noqa: E402

WORDS = ("Retrans", "SACK", "Sack", "Undo", "Reorder", "Timeout", "Recovery", "Spurious")


def counters(nstat: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in nstat.items() if v and any(w in k for w in WORDS)}


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    setting, scheme, seeds = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")]
    import hosim

    name = os.environ.get("HOSIM_PROBE_CASE", "drop-or-forward")
    clamp = os.environ.get("HOSIM_PROBE_CLAMP")
    case = T.CASES[name]
    text = T.scenario_text(case)
    key = {"drop-or-forward": "fcp.scheme", "lte-x2": "lte_x2.path_switch"}[name]
    overrides = {**case["base"], key: scheme}
    dur = float(case["base"].get("duration_s", 5.0))
    clamp_arg = f" --window-clamp {int(clamp)}" if clamp else ""
    py = sys.executable
    pre = "" if setting == "none" else " && ".join(f"sysctl -q -w {s}" for s in setting.split(";")) + " && "
    for seed in seeds:
        with tempfile.TemporaryDirectory(prefix="hosim-probe-") as tmp:
            s = hosim.emulate(
                text, seed=seed, overrides=overrides,
                server=f"{pre}exec {py} -m hosim.netapps serve --cc cubic --bytes 100000000000 --timeout {dur + 5}",
                client=f"{pre}exec {py} -m hosim.netapps fetch {{server}} --timeout {dur + 5}{clamp_arg}",
                client_delay_s=T.CLIENT_DELAY_S, app_output_dir=tmp,
            )
        emu = s["emulation"]
        flow = emu["flows"][0]
        snd = next(h for h in emu["hosts"] if h["host"] == flow["src"])
        rcv = next(h for h in emu["hosts"] if h["host"] == flow["dst"])
        acked = T.bytes_acked(T.ss_text(snd["ss"]))
        row = {
            "case": name, "setting": setting, "window_clamp": int(clamp) if clamp else None,
            "scheme": scheme, "seed": seed,
            "goodput_mbps": acked * 8 / (emu["duration_s"] - T.CLIENT_DELAY_S) / 1e6,
            "p99_us": emu["lateness"]["p99_us"], "snd": counters(snd["nstat"]), "rcv": counters(rcv["nstat"]),
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
