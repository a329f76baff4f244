"""``hosim.emulate``: a scenario in real time, with real network stacks as the endpoints.

The scenario's links, queues and mechanisms (the same core and agents as ``hosim.run``) carry
real packets between network namespaces, one per host that ends an emulated flow, each with a
TUN device and an address in 198.18.0.0/15; the kernel's TCP there is the endpoint. Linux
only, as root (crates/hosim-emulate; docs/emulate.md).

>>> s = hosim.emulate("lte-x2", server="iperf3 -s", client="iperf3 -c {server} -R -t 3")
>>> s["emulation"]["lateness"]["p99_us"], s["handovers"][0]["forwarded_packets"]
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from hosim.scenario import ScenarioLike, load_scenario, native, override_pairs

__all__ = ["emulate"]


def emulate(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    flows: Sequence[str] = (),
    server: str | None = None,
    client: str | None = None,
    client_delay_s: float = 0.2,
    time_limit_s: float | None = None,
    app_output_dir: str | os.PathLike[str] | None = None,
    capture_dir: str | os.PathLike[str] | None = None,
    capture_links: Sequence[str] = (),
    realtime: bool = True,
    multipath: bool = False,
    follow_attachment: bool = True,
    out_dir: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Run ``scenario`` in real time with the kernel's TCP at the hosts of ``flows`` (default:
    the scenario's first flow; a flow sharing a host with one of them is emulated too, every
    other flow stays simulated). Returns the run's summary: the same as ``hosim.run``'s, plus
    ``emulation`` (lateness, per-flow packet counts, per-host ``ss -tin`` and ``nstat``).

    server: shell command run in the namespace of the first emulated flow's source host.
    client: shell command run in its destination host's namespace ``client_delay_s`` after the
        start; the run ends when it exits, or at ``duration_s`` (or ``time_limit_s``). In both,
        ``{server}`` and ``{client}`` are replaced by the two hosts' addresses.
    app_output_dir: the commands' output goes to ``server.out`` and ``client.out`` there
        (default: this process's stdout and stderr).
    capture_dir, capture_links: a pcap file of the real bytes per captured link (or ``"all"``).
    multipath: a host with several links (the mobile of ``vertical``) gets one interface per
        link, 198.18.i.(k+1), its packets pinned to that link, and MPTCP endpoints on them.
    follow_attachment: with ``multipath``, an interface is down while the scenario's mechanism
        has its host detached from that link's network (a hard handoff), and its MPTCP endpoint
        is removed; both come back when the host re-attaches. False: interfaces stay up.
    out_dir: write ``summary.json`` and every non-empty trace as ``<name>.parquet`` there, as
        ``hosim run --out`` does (the same writer and columns). An emulated flow's endpoints are
        kernels, not hosim senders: it has no cwnd, ssthresh, rtt, rto or inflight rows, and its
        goodput rows are the bytes its receiving kernel acknowledged in order per interval.

    A run whose p99 lateness exceeds the bound issues a ``HosimWarning`` saying its timing is not
    faithful. Raises ``ScenarioError`` (one line) for invalid input, for a mechanism that lives in hosim's
    TCP (TCP-CLAH, Freeze-TCP, the HSDPA proxy), and on a machine that cannot emulate (not root,
    no /dev/net/tun); ``KeyboardInterrupt`` on Ctrl-C or SIGTERM, after the namespaces are removed.
    """
    from hosim.errors import ScenarioError

    mod = native()
    if not hasattr(mod, "emulate"):
        raise ScenarioError("hosim emulate: needs Linux (network namespaces, TUN devices)")
    text, source = load_scenario(scenario)
    out, tables = mod.emulate(
        text, source, seed, override_pairs(overrides), list(flows), server, client, client_delay_s, time_limit_s,
        None if app_output_dir is None else os.fspath(app_output_dir),
        None if capture_dir is None else os.fspath(capture_dir), list(capture_links), realtime, multipath,
        out_dir is not None, follow_attachment,
    )
    summary: dict[str, Any] = json.loads(out)
    if out_dir is not None:
        from hosim.api import Result

        Result.from_columns(summary, tables).write(out_dir)
    warning = summary.get("emulation", {}).get("warning")
    if warning:
        from hosim.checks import warn

        warn([str(warning)])
    return summary
