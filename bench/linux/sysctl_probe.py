#!/usr/bin/env python3
"""A controlled kernel experiment for issue 35 §4: drop-or-forward's case of `todays_tcp.py`
(Δ = 10 RTT, 20 s) with the kernel's CUBIC as flow0, and one or more per-namespace TCP sysctls
changed in both of its namespaces (e.g. ``net.ipv4.tcp_dsack=0``). They are set by the
server's and the client's shell commands inside the namespaces `hosim emulate` creates, so
nothing machine-wide changes and they die with the namespaces.

Benchmark only; must run as root. One JSON line per run on stdout: goodput (the sender's
`bytes_acked` over the run from the client's start, as in `todays_tcp.py`), p99 lateness, and
the sender's and receiver's nonzero nstat counters about retransmission, SACK, DSACK, undo and
reordering.

Usage:
  sudo python bench/linux/sysctl_probe.py none forward 1,2,3
  sudo python bench/linux/sysctl_probe.py net.ipv4.tcp_dsack=0 forward 1,2,3
  sudo python bench/linux/sysctl_probe.py "net.ipv4.tcp_timestamps=0" forward 1,2,3
The runs of 2026-11-27: bench/results/linux/sysctl-probe-drop-or-forward.jsonl.
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

    case = T.CASES["drop-or-forward"]
    text = T.scenario_text(case)
    overrides = {**case["base"], "fcp.scheme": scheme}
    py = sys.executable
    pre = "" if setting == "none" else " && ".join(f"sysctl -q -w {s}" for s in setting.split(";")) + " && "
    for seed in seeds:
        with tempfile.TemporaryDirectory(prefix="hosim-probe-") as tmp:
            s = hosim.emulate(
                text, seed=seed, overrides=overrides,
                server=f"{pre}exec {py} -m hosim.netapps serve --cc cubic --bytes 100000000000 --timeout 25",
                client=f"{pre}exec {py} -m hosim.netapps fetch {{server}} --timeout 25",
                client_delay_s=T.CLIENT_DELAY_S, app_output_dir=tmp,
            )
        emu = s["emulation"]
        flow = emu["flows"][0]
        snd = next(h for h in emu["hosts"] if h["host"] == flow["src"])
        rcv = next(h for h in emu["hosts"] if h["host"] == flow["dst"])
        acked = T.bytes_acked(T.ss_text(snd["ss"]))
        row = {
            "setting": setting, "scheme": scheme, "seed": seed,
            "goodput_mbps": acked * 8 / (emu["duration_s"] - T.CLIENT_DELAY_S) / 1e6,
            "p99_us": emu["lateness"]["p99_us"], "snd": counters(snd["nstat"]), "rcv": counters(rcv["nstat"]),
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
