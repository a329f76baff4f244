#!/usr/bin/env python3
"""Traces the kernel's MPTCP across the `vertical` preset's hard handoff (docs/reproductions/
vertical-handoff.md, "MPTCP through hosim emulate"): what stalls after the switch, and why.

Benchmark only; must run as root; never part of the test suite.

One run of `hosim emulate vertical --multipath` with `vertical.mode = hard`, the first handoff
(WiFi -> cellular) at `--handoff` s, the mobile sending with an IPPROTO_MPTCP socket. Kept in
--out DIR:

- `<link>.pcap` of every link (the real packets as they start serialization), and `events.txt`:
  every SYN, SYN-ACK, RST and FIN of either subflow, and the first and last data segment per
  subflow, read with tcpdump;
- `mobile.log` and `dest.log`: `ip mptcp endpoint show` and `limits show` at the start, then
  every 250 ms `ss -tinM` (TCP subflows with their MPTCP state, and the MPTCP sockets), the
  endpoints, and the namespace's MPTcp* counters (`nstat -az`);
- `summary.json` (with the traces; `emulation.attachments`: each interface change and its times)
  and the nstat counters at the end.

Controlled variants (--variant):
  after        the mobile opens the connection (`netapps push`, the destination `netapps sink`),
               and its interfaces follow its attachment (the default of `hosim emulate`): at
               the handoff the WiFi interface loses its address and goes down, with its MPTCP
               endpoint, and the cellular one comes up with its endpoint;
  before       the same with `--interfaces-stay-up`: both interfaces up throughout, as before
               the fix (the stalled row);
  soft         `after` with vertical.mode = soft;
  listener     `after` with the mobile as the listening side (`netapps serve --mptcp`, the
               destination `fetch --mptcp`): its path manager cannot open the cellular subflow
               (the join goes to the destination's ephemeral port, where nothing listens), and
               the destination cannot learn the new address (ADD_ADDR has no working subflow).

Usage: sudo nice -n 5 python bench/emulate/mptcp_hard.py --out /tmp/mptcp-hard [--variant soft]
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import click

LOGGER = ("(while :; do echo \"== $(date +%s.%N)\"; ss -tinM; ip mptcp endpoint show; "
          "nstat -az 'MPTcp*' | grep -v ' 0 ' ; sleep 0.25; done) > {log} 2>&1 &")


def wrapped(cmd: str, log: Path) -> str:
    setup = f"{{ ip mptcp endpoint show; ip mptcp limits show; }} > {log}.start 2>&1; " + LOGGER.format(log=log)
    return f"sh -c {shlex.quote(setup + ' exec ' + cmd)}"


def events(out: Path) -> list[str]:
    """SYN/FIN/RST lines and the first and last data segment of each subflow, per pcap."""
    lines = []
    for pcap in sorted(out.glob("*.pcap")):
        r = subprocess.run(["tcpdump", "-nn", "-tt", "-v", "-r", str(pcap)], capture_output=True, text=True)
        data: dict[str, list[str]] = {}
        text = r.stdout.replace("\n    ", " ")
        for line in text.splitlines():
            flags = line.split("Flags [", 1)[1].split("]", 1)[0] if "Flags [" in line else ""
            key = " ".join(line.split(" > ")[0].split()[-1:]) + " > " + line.split(" > ")[1].split(":")[0] \
                if " > " in line else "?"
            if any(f in flags for f in ("S", "F", "R")):
                lines.append(f"{pcap.stem}: {line[:260]}")
            elif "length 0" not in line:
                data.setdefault(key, []).append(line)
        for key, seg in data.items():
            lines.append(f"{pcap.stem}: {len(seg)} data segments {key}; first {seg[0][:18]} last {seg[-1][:18]}")
    return lines


@click.command(help=__doc__)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--variant", type=click.Choice(["after", "before", "soft", "listener"]), default="after",
              show_default=True)
@click.option("--handoff", type=float, default=15.0, show_default=True, help="First handoff (WiFi -> cellular), s.")
@click.option("--duration", type=float, default=20.0, show_default=True)
def main(out: Path, variant: str, handoff: float, duration: float) -> None:
    import hosim

    if os.geteuid() != 0:
        click.echo("mptcp_hard.py: needs root (hosim emulate)", err=True)
        sys.exit(2)
    out.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    t = duration + 5
    if variant == "listener":
        server = f"{py} -m hosim.netapps serve --mptcp --bytes 1000000000 --timeout {t}"
        client = f"{py} -m hosim.netapps fetch {{server}} --mptcp --timeout {t}"
    else:
        server = f"{py} -m hosim.netapps push {{client}} --mptcp --bytes 1000000000 --timeout {t}"
        client = f"{py} -m hosim.netapps sink --mptcp --timeout {t}"
    s = hosim.emulate(
        "vertical",
        overrides={"duration_s": duration, "vertical.interval_s": handoff,
                   "vertical.mode": "soft" if variant == "soft" else "hard", "trace.interval_s": 0.5},
        server=wrapped(server, out / "mobile.log"), client=wrapped(client, out / "dest.log"), client_delay_s=0.0,
        app_output_dir=out, capture_dir=out, capture_links=["all"], multipath=True,
        follow_attachment=variant != "before", out_dir=out,
    )
    emu = s["emulation"]
    ev = events(out)
    (out / "events.txt").write_text("\n".join(ev) + "\n")
    per_s = emu["flows"][0]["forward_delivered_bytes_per_s"]
    click.echo(f"variant {variant}: delivered per second (kB): {[round(b / 1000) for b in per_s]}")
    for h in emu["hosts"]:
        mp = {k: v for k, v in h["nstat"].items() if k.startswith("MPTcp") and v}
        click.echo(f"{h['host']}: {json.dumps(mp)}")
    for a in emu["attachments"]:
        click.echo(f"{a['host']} {a['device']} {'up' if a['up'] else 'down'} at {a['at_s']} s: done "
                   f"{a['late_us']:.0f} us later, link {a['link_done_s']:.6f} s, endpoint {a['endpoint']} "
                   f"done {a['endpoint_done_s']}")
    click.echo(f"lateness p99 {emu['lateness']['p99_us']:.0f} us, warning: {emu['warning']}")
    click.echo("\n".join(ev)[:8000])


if __name__ == "__main__":
    main()
