#!/usr/bin/env python3
"""How a run's retransmissions group into loss episodes, read from the senders' captures.

Benchmark only. The readers of `timer_events.py` (a kernel pcap from `run_kernel.py --pcap`,
or a hosim run's per-link pcaps), one rule for both sides. Per flow, a retransmission is a
data segment starting below the highest sequence sent; an episode is a flow's run of
retransmissions less than ``--gap-ms`` apart. Besides the episode sizes it prints the
receivers' ACK clock (`timer_events.ack_profile`), how many data segments carry PSH (the
kernel's; hosim's captures mark every data segment),
each flow's first episode (the slow-start overshoot), how many segments were
retransmitted more than once (Linux's `TCPLostRetransmit` counts those), and, with
``--bursts``, for every episode the flight that overflowed the queue: the segments the
flow sent back to back (less than ``--burst-us`` apart) in the 2 RTTs before the episode's
first retransmission, as a histogram of burst lengths.

Usage:
  python bench/linux/loss_episodes.py kernel /tmp/kp/four-flows-q50-cubic-0.pcap
  python bench/linux/loss_episodes.py hosim /tmp/h --label "hosim after"
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from timer_events import ack_profile, load_hosim, load_kernel  # noqa: E402


def episodes(events, gap_s: float) -> tuple[list[list[float]], int, int, list[tuple[float, int]], int]:
    """(episodes as lists of retransmission times, data segments, PSH segments, every data
    segment's (time, sequence offset), retransmissions of a segment already retransmitted)
    of one flow."""
    isn = None
    snd_max = 0
    sent: collections.Counter = collections.Counter()
    again = 0
    retx: list[float] = []
    sends: list[tuple[float, int]] = []
    data = psh = 0
    for kind, t, f in sorted(events, key=lambda e: (e[1], e[0] == "d")):
        if kind != "d":
            continue
        _, _, _, _, seq, _, flags, plen, _ = f
        if flags & 0x02:
            isn = seq
            continue
        if isn is None or plen == 0:
            continue
        data += 1
        psh += bool(flags & 0x08)
        s = (seq - isn - 1) & 0xFFFFFFFF
        sends.append((t, s))
        again += sent[s] >= 2
        sent[s] += 1
        if s < snd_max:
            retx.append(t)
        snd_max = max(snd_max, s + plen)
    eps: list[list[float]] = []
    for t in retx:
        if eps and t - eps[-1][-1] < gap_s:
            eps[-1].append(t)
        else:
            eps.append([t])
    return eps, data, psh, sends, again


def bursts_before(sends: list[tuple[float, int]], t0: float, window_s: float, burst_s: float) -> list[int]:
    """Lengths of the back-to-back runs of segments sent in [t0 - window_s, t0)."""
    out: list[int] = []
    last = None
    for t, _ in sends:
        if t < t0 - window_s:
            continue
        if t >= t0:
            break
        if last is not None and t - last < burst_s:
            out[-1] += 1
        else:
            out.append(1)
        last = t
    return out


def size_band(n: int) -> str:
    return str(n) if n <= 2 else "3-4" if n <= 4 else "5+"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("side", choices=["kernel", "hosim"])
    ap.add_argument("path", help="kernel: a pcap file; hosim: the run's --out directory (pcap format)")
    ap.add_argument("--label", default=None, help="the run's name in the output line")
    ap.add_argument("--gap-ms", type=float, default=100.0, help="retransmissions closer than this: one episode")
    ap.add_argument(
        "--ack-delay-ms", type=float, default=1.0, help="hosim: the access delay (a lower bound of the ACK's arrival)"
    )
    ap.add_argument("--bursts", action="store_true", help="the bursts each flow sent in the 2 RTTs before an episode")
    ap.add_argument("--rtt-ms", type=float, default=36.0, help="--bursts: the path's base RTT")
    ap.add_argument("--burst-us", type=float, default=200.0, help="--bursts: segments closer than this: one burst")
    args = ap.parse_args()
    if not os.path.exists(args.path):
        print(f"loss_episodes: {args.path}: no such file or directory", file=sys.stderr)
        return 2
    flows = load_kernel(args.path) if args.side == "kernel" else load_hosim(args.path, args.ack_delay_ms / 1e3)
    sizes: collections.Counter = collections.Counter()
    acks: collections.Counter = collections.Counter()
    bursts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    retx = data = psh = again = 0
    first: list[int] = []
    for _, v in sorted(flows.items()):
        eps, d, p, sends, a = episodes(v, args.gap_ms / 1e3)
        again += a
        first += [len(eps[0])] if eps else []
        data += d
        psh += p
        retx += sum(len(e) for e in eps)
        sizes.update(size_band(len(e)) for e in eps)
        acks.update(ack_profile(v))
        if args.bursts:
            for e in eps:
                for b in bursts_before(sends, e[0], 2 * args.rtt_ms / 1e3, args.burst_us * 1e-6):
                    bursts[size_band(len(e))][min(b, 8)] += 1
    out = {
        "run": args.label or args.path,
        "retransmissions": retx,
        "episodes": sum(sizes.values()),
        # a retransmission was lost (or taken for lost) and the segment sent a third time or
        # more: what Linux's TCPLostRetransmit counts (`tcp_mark_skb_lost`, from RACK and at
        # every RTO, `tcp_timeout_mark_lost`)
        "retransmitted_again": again,
        "episodes_by_retransmissions": {k: sizes[k] for k in ("1", "2", "3-4", "5+")},
        # each flow's first episode: the slow-start overshoot
        "first_episode_per_flow": first,
        "acks_without_sack_by_segments_acked": {str(k): n for k, n in sorted(acks.items(), key=str)},
        "psh_segments": psh,
        "data_segments": data,
    }
    if args.bursts:
        out["bursts_before_episode_by_size"] = {
            k: {str(n): c for n, c in sorted(v.items())} for k, v in sorted(bursts.items())
        }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
