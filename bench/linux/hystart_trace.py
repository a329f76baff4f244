#!/usr/bin/env python3
"""Where the kernel's CUBIC leaves slow start, ACK by ACK: the `tcp:tcp_probe` tracepoint
around a kernel run, and the slow start it shows (issue 35 §4).

Benchmark only; `record` needs root; never part of the test suite.

`record` mounts tracefs if it is not mounted (and unmounts it afterwards), enables
`tcp:tcp_probe` (filtered to port 5001, the port of `hosim.netapps` and of `endpoint.py`),
`tcp:tcp_cong_state_set` and `tcp:tcp_retransmit_skb`, runs the command, and writes the trace
buffer to ``--out``. `tcp_probe` fires at the start of `tcp_rcv_established`, before the
segment is processed: at the sender, one line per ACK with snd_una, snd_nxt, snd_cwnd,
ssthresh and srtt as they were before it; at the receiver, one line per data segment.
`--no-train` runs the command with tcp_cubic's module parameter `hystart_detect` = 2 (the
delay signal only, no ACK train) and puts the old value back afterwards, on error and on
Ctrl-C: the controlled run that takes the ACK-train exit away from the kernel. Module
parameters are machine-wide, so run it under /work/kernel.lock like every kernel run.

`show` prints the sender's slow start from such a trace: per ACK, its time from the first ACK,
the gap to the previous one, snd_una and snd_nxt in segments from the first, cwnd and
ssthresh, up to a few ACKs after ssthresh first leaves its initial value (the HyStart exit).

Usage:
  sudo python bench/linux/hystart_trace.py record --out /tmp/t.txt -- \\
      python bench/linux/phases.py run --stack kernel --variants predicted --seeds 1 --clamp 65535
  sudo python bench/linux/hystart_trace.py record --no-train --out /tmp/t2.txt -- python ...
  python bench/linux/hystart_trace.py show /tmp/t.txt --sender-port src   # hosim.netapps serve
  python bench/linux/hystart_trace.py show /tmp/t.txt --sender-port dest  # endpoint.py tx
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import click

TRACEFS = "/sys/kernel/tracing"
PORT = 5001
HYSTART_DETECT = "/sys/module/tcp_cubic/parameters/hystart_detect"
EVENTS = ("tcp/tcp_probe", "tcp/tcp_cong_state_set", "tcp/tcp_retransmit_skb")
_LINE = re.compile(r"\s(\d+\.\d+): (\w+): (.*)$")
_KV = re.compile(r"(\w+)=(\S+)")
MSS = 1448


def _write(path: str, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


@click.group()
def main() -> None:
    """The kernel's slow start through tcp:tcp_probe."""


@main.command(context_settings={"ignore_unknown_options": True})
@click.option("--out", required=True, help="Where to write the trace buffer (text).")
@click.option("--no-train", is_flag=True, help="tcp_cubic hystart_detect = 2 during the command (restored after).")
@click.option("--buffer-kb", default=16384, show_default=True, help="Per-CPU trace buffer size.")
@click.argument("cmd", nargs=-1, required=True, type=click.UNPROCESSED)
def record(out: str, no_train: bool, buffer_kb: int, cmd: tuple[str, ...]) -> None:
    """Run CMD with the tracepoints on; write the trace to --out."""
    if os.geteuid() != 0:
        click.echo("hystart_trace.py: record needs root (tracefs)", err=True)
        sys.exit(2)
    mounted = False
    if not os.path.exists(os.path.join(TRACEFS, "trace")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
        mounted = True
    old_buffer = open(os.path.join(TRACEFS, "buffer_size_kb")).read().split()[0]
    old_detect = open(HYSTART_DETECT).read().strip() if no_train else None
    # Ctrl-C and SIGTERM unwind through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    rc = 1
    try:
        _write(os.path.join(TRACEFS, "buffer_size_kb"), str(buffer_kb))
        _write(os.path.join(TRACEFS, "trace"), "")
        _write(os.path.join(TRACEFS, "events/tcp/tcp_probe/filter"), f"sport == {PORT} || dport == {PORT}")
        for ev in EVENTS:
            _write(os.path.join(TRACEFS, "events", ev, "enable"), "1")
        if old_detect is not None:
            _write(HYSTART_DETECT, "2")
        rc = subprocess.run(list(cmd)).returncode
    finally:
        if old_detect is not None:
            _write(HYSTART_DETECT, old_detect)
        for ev in EVENTS:
            _write(os.path.join(TRACEFS, "events", ev, "enable"), "0")
        _write(os.path.join(TRACEFS, "events/tcp/tcp_probe/filter"), "0")
        with open(os.path.join(TRACEFS, "trace")) as src, open(out, "w") as dst:
            dst.write(src.read())
        _write(os.path.join(TRACEFS, "trace"), "")
        _write(os.path.join(TRACEFS, "buffer_size_kb"), old_buffer)
        if mounted:
            subprocess.run(["umount", TRACEFS], check=False)
    click.echo(f"hystart_trace.py: trace in {out}; the command exited {rc}", err=True)
    sys.exit(rc)


def probe_rows(path: str) -> list[dict]:
    """The `tcp_probe` lines of a trace: their fields, with the time under "t"."""
    rows = []
    with open(path, errors="replace") as fh:
        for line in fh:
            m = _LINE.search(line)
            if not m or m.group(2) != "tcp_probe":
                continue
            row = dict(_KV.findall(m.group(3)))
            row["t"] = float(m.group(1))
            rows.append(row)
    return rows


def sender_acks(rows: list[dict], side: str) -> list[dict]:
    """The sender's ACKs: the lines whose `side` ("src" or "dest") is port 5001, no payload."""
    return [r for r in rows if r.get(side, "").endswith(f":{PORT}") and r.get("data_len") == "0"]


@main.command()
@click.argument("trace")
@click.option("--sender-port", "side", type=click.Choice(["src", "dest"]), default="src", show_default=True,
              help="src: the sender listens on 5001 (hosim.netapps serve); dest: it connects to it.")
@click.option("--after-exit", default=5, show_default=True, help="ACKs shown after the exit.")
def show(trace: str, side: str, after_exit: int) -> None:
    """The sender's slow start, ACK by ACK, up to the HyStart exit; one table per connection."""
    acks = sender_acks(probe_rows(trace), side)
    if not acks:
        click.echo(f"hystart_trace.py: {trace}: no tcp_probe line of a sender on port {PORT}", err=True)
        sys.exit(2)
    conns: dict[str, list[dict]] = {}
    for r in acks:
        conns.setdefault(r.get("sock_cookie", ""), []).append(r)
    for cookie, rows in conns.items():
        click.echo(f"\nconnection {cookie} ({rows[0].get('src')} -> {rows[0].get('dest')}), {len(rows)} ACKs\n")
        show_one(rows, after_exit)


def show_one(acks: list[dict], after_exit: int) -> None:
    t0, una0 = acks[0]["t"], int(acks[0]["snd_una"], 16)
    first_ss = acks[0]["ssthresh"]
    stop = next((i for i, r in enumerate(acks) if r["ssthresh"] != first_ss), len(acks))
    click.echo("| t (ms) | gap (ms) | snd_una | snd_nxt | cwnd | ssthresh | srtt (ms) |")
    click.echo("|---|---|---|---|---|---|---|")
    prev = t0
    for r in acks[: stop + after_exit]:
        una = (int(r["snd_una"], 16) - una0) % 2**32 / MSS
        nxt = (int(r["snd_nxt"], 16) - una0) % 2**32 / MSS
        click.echo(f"| {(r['t'] - t0) * 1e3:.3f} | {(r['t'] - prev) * 1e3:.3f} | {una:.1f} | {nxt:.1f} | "
                   f"{r['snd_cwnd']} | {r['ssthresh']} | {int(r['srtt']) / 1e3:.3f} |")
        prev = r["t"]
    if 0 < stop < len(acks):
        ex = acks[stop - 1]
        click.echo(f"\nssthresh first set by the ACK at {(ex['t'] - t0) * 1e3:.3f} ms (cwnd {ex['snd_cwnd']} "
                   f"before it; the next line shows ssthresh {acks[stop]['ssthresh']})")


if __name__ == "__main__":
    main()
