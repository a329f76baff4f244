"""``hosim emulate SCENARIO``: the scenario in real time, with real network stacks as endpoints.

In the style of Mahimahi's shells: ``--server`` runs in the namespace of the emulated flow's
source host, ``--client`` in its destination host's, with ``{server}``/``{client}`` replaced by
their addresses; the run ends when the client exits or at ``duration_s``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import click

from hosim.cli.common import fail, parse_sets
from hosim.cli.format import fmt_mbps, fmt_num, new_console, print_table, warn

__all__ = ["emulate_command"]

#: nstat counters shown per host (the namespace's counters from its creation: the run's).
NSTAT_SHOWN = ("TcpOutSegs", "TcpRetransSegs", "TcpExtTCPSackRecovery", "TcpExtTCPTimeouts", "TcpExtTCPLossProbes",
               "TcpExtTCPSpuriousRTOs", "TcpExtTCPDSACKRecv", "IpExtInCEPkts")


@click.command("emulate")
@click.argument("scenario")
@click.option("--seed", type=click.IntRange(min=0), default=None, show_default="the scenario's seed, else 1",
              help="Seed of the run (the simulated parts: loss draws, rate processes, cross traffic).")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a scenario value. Repeatable.")
@click.option("--flow", "flows", multiple=True, metavar="NAME",
              help="A flow whose hosts are real stacks (default: the scenario's first flow). Repeatable.")
@click.option("--server", default=None, metavar="CMD",
              help="Shell command in the namespace of the flow's source host, e.g. 'iperf3 -s'.")
@click.option("--client", default=None, metavar="CMD",
              help="Shell command in the namespace of the flow's destination host (the UE), e.g. "
                   "'iperf3 -c {server} -R -t 5'. The run ends when it exits.")
@click.option("--client-delay", type=click.FloatRange(min=0), default=0.2, help="Start the client this late, s.")
@click.option("--time", "time_limit", type=click.FloatRange(min=0, min_open=True), default=None,
              help="End the run after this many seconds (default: the scenario's duration_s).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write summary.json and every non-empty trace as <name>.parquet here, as `hosim run --out` "
                   "does (and the captures of --pcap). An emulated flow has no cwnd/rtt traces (its TCP is "
                   "the kernel's); its goodput trace is what its receiving kernel acknowledged in order.")
@click.option("--no-traces", is_flag=True, help="With --out, write summary.json without the traces.")
@click.option("--pcap", default=None, metavar="LINK[,LINK...]",
              help="Capture the real packets of these links (or 'all') into --out DIR, one <link>.pcap each.")
@click.option("--json", "as_json", is_flag=True, help="Print only the summary, as one JSON line.")
@click.option("--no-realtime", is_flag=True, help="Do not ask for SCHED_FIFO and a cpu_dma_latency request.")
@click.option("--multipath", is_flag=True,
              help="A host with several links gets an interface on each (198.18.i.k, packets pinned to that "
                   "link) and MPTCP endpoints: e.g. the mobile of `vertical`, WiFi and cellular. An "
                   "interface is down while a hard handoff has its host detached from that link's network.")
@click.option("--interfaces-stay-up", is_flag=True,
              help="With --multipath: keep every interface up and its MPTCP endpoint, whatever the host's "
                   "attachment (the behaviour before interfaces followed it).")
def emulate_command(scenario: str, seed: int | None, sets: tuple[str, ...], flows: tuple[str, ...],
                    server: str | None, client: str | None, client_delay: float, time_limit: float | None,
                    out: Path | None, no_traces: bool, pcap: str | None, as_json: bool, no_realtime: bool,
                    multipath: bool, interfaces_stay_up: bool) -> None:
    """Run SCENARIO in real time with the kernel's TCP at the emulated flow's hosts.

    Each host becomes a network namespace with a TUN device and an address in 198.18.0.0/15;
    the scenario's links, queues and mechanisms carry the real packets. Needs Linux and root.
    Namespaces are removed at the end, on error and on Ctrl-C. See docs/emulate.md."""
    from hosim.emulation import emulate
    from hosim.errors import HosimWarning, ScenarioError
    from hosim.scenario import parse_toml_value

    if pcap and out is None:
        fail("--pcap needs --out DIR: the packet captures are written into DIR")
    overrides = {k: parse_toml_value(v) for k, v in parse_sets(sets)}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    try:
        with warnings.catch_warnings():
            # The lateness warning is printed below, as one line.
            warnings.simplefilter("ignore", HosimWarning)
            summary = emulate(scenario, seed, overrides, flows=flows, server=server, client=client,
                              client_delay_s=client_delay, time_limit_s=time_limit,
                              capture_dir=out if pcap else None, capture_links=pcap.split(",") if pcap else (),
                              realtime=not no_realtime, multipath=multipath,
                              follow_attachment=not interfaces_stay_up,
                              out_dir=None if out is None or no_traces else out)
    except ScenarioError as exc:
        fail(str(exc))
    emu = summary.get("emulation", {})
    if emu.get("warning"):
        warn(str(emu["warning"]))
    if out is not None and no_traces:
        (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    if as_json:
        click.echo(json.dumps(summary))
        return
    print_emulation(summary)


def print_emulation(s: dict[str, Any]) -> None:
    console = new_console()
    emu = s.get("emulation", {})
    lat = emu.get("lateness", {})
    console.print(
        f"[bold]{s.get('scenario')}[/]  seed {s.get('seed')}  emulated {fmt_num(emu.get('duration_s'), 3)} s "
        f"(ended by {emu.get('ended_by')})  SCHED_FIFO {emu.get('sched_fifo')}  "
        f"cpu_dma_latency {emu.get('cpu_dma_latency')}  load {emu.get('loadavg')}"
    )
    console.print(
        f"lateness over {lat.get('packets')} packets: p50 {fmt_num(lat.get('p50_us'), 1)} us, "
        f"p99 {fmt_num(lat.get('p99_us'), 1)} us, p99.9 {fmt_num(lat.get('p999_us'), 1)} us, "
        f"max {fmt_num(lat.get('max_us'), 1)} us (bound p99 {fmt_num(lat.get('bound_p99_us'), 0)} us)"
    )
    dur = emu.get("duration_s") or 0.0
    rows = []
    for f in emu.get("flows", []):
        fw, rv = f.get("forward", {}), f.get("reverse", {})
        rate = fw.get("delivered_bytes", 0) * 8 / dur if dur else None
        rows.append([str(f.get("name")), f"{f.get('src')} -> {f.get('dst')}", fmt_num(fw.get("sent_packets")),
                     fmt_num(fw.get("delivered_packets")), fmt_num(fw.get("ce_marked")),
                     fmt_num(rv.get("sent_packets")), fmt_num(rv.get("delivered_packets")), fmt_mbps(rate)])
    print_table(console, "Emulated flows (real packets)",
                ["flow", "hosts", "sent", "delivered", "CE\nmarked", "back\nsent", "back\ndelivered",
                 "rate\n(Mbit/s)"], rows, numeric_from=2)
    hosts = [[str(h.get("host")), str(h.get("address")),
              *(fmt_num(h.get("nstat", {}).get(k, 0)) for k in NSTAT_SHOWN)] for h in emu.get("hosts", [])]
    print_table(console, "Kernel counters (nstat)", ["host", "address", *NSTAT_SHOWN], hosts, numeric_from=2)
    for h in emu.get("hosts", []):
        for line in h.get("ss", []):
            console.print(f"ss {h.get('host')}: {line}", markup=False, soft_wrap=True)
    queues = [[str(q.get("name")), fmt_num(q.get("enqueued")), fmt_num(q.get("dropped")), fmt_num(q.get("marked")),
               fmt_num(q.get("max_len_pkts"))] for q in s.get("queues", [])]
    if queues:
        print_table(console, "Queues", ["queue", "enqueued", "dropped", "marked", "max len\n(pkts)"], queues)
    handovers = s.get("handovers", [])
    if handovers:
        extra = sorted({k for h in handovers for k in h} - {"ue", "scheme", "start_s", "end_s"})
        hrows = [[str(h.get("ue")), str(h.get("scheme")), fmt_num(h.get("start_s"), 3), fmt_num(h.get("end_s"), 3),
                  *(fmt_num(h.get(k), 3) for k in extra)] for h in handovers]
        print_table(console, "Handovers", ["ue", "scheme", "start\n(s)", "end\n(s)", *extra], hrows, numeric_from=2)
    for p in emu.get("capture_files", []):
        console.print(f"capture: {p}", markup=False)
