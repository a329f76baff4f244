#!/usr/bin/env python3
"""User-space bottleneck between two TUN devices: hosim's dumbbell link, in real time.

Benchmark only (run by run_kernel.py as root; never imported by hosim or its tests).

Reads IPv4 packets from the TUN device of the senders' namespace and of the receivers'
namespace (both created by run_kernel.py, addresses in 198.18.0.0/15) and writes each one to
the other device after the delays of the modelled path (bench/linux/README.md):

  data  (senders -> receivers): access delay d_i and access serialization, then the
        bottleneck: a DropTail queue of ``queue`` packets (the packet in service not counted,
        as hosim's `Queue`), serialization at ``bottleneck_bps`` of the IP packet's length,
        Bernoulli loss ``loss`` after serialization, delay ``bottleneck_delay_s``, then the
        receiver's access delay d_i and access serialization;
  ACKs  (receivers -> senders): the same delays and serializations, no queue limit.

d_i is the access delay of the sender's source address (one address per flow). Scripted
drops: the first transmission of segment index k = (seq - ISN - 1) / MSS (``drop_segments``)
and its first retransmission (``drop_retransmissions``) of flow 0 are discarded on arrival at
the bottleneck. Two experiments: ``strip_psh`` clears PSH on the senders' segments;
``access_fifo`` serializes each sender's packets on its access link one after another. The
process reads one JSON config from argv[1], prints ``ready`` once both devices are open,
runs until ``run_s`` has passed (a hard bound), then prints one JSON line: queue drops, link
losses, scripted drops, when each sender address's first packet (its SYN) was read, from the
first one's, flow 0's first 40 ACKs (time, bytes acknowledged), and its own lateness (time an
event ran minus the time it was due), in microseconds.
"""

from __future__ import annotations

import ctypes
import fcntl
import heapq
import json
import os
import random
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
SCHED_FIFO = 1


def enter_netns(name: str) -> None:
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {name}")
    finally:
        os.close(fd)


def open_tun(netns: str, dev: str) -> int:
    """Attach to the persistent TUN device `dev` of namespace `netns`."""
    enter_netns(netns)
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", dev.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def tcp_fields(pkt: bytes) -> tuple[bytes, int, int, int, int] | None:
    """(src address, source port, seq, TCP flags, payload length) of an IPv4/TCP packet."""
    if len(pkt) < 40 or pkt[0] >> 4 != 4 or pkt[9] != 6:
        return None
    ihl = (pkt[0] & 0x0F) * 4
    total = struct.unpack_from("!H", pkt, 2)[0]
    sport, _, seq = struct.unpack_from("!HHI", pkt, ihl)
    doff = (pkt[ihl + 12] >> 4) * 4
    flags = pkt[ihl + 13]
    return pkt[12:16], sport, seq, flags, total - ihl - doff


def strip_psh(pkt: bytes) -> bytes:
    """The packet with PSH cleared if it is a TCP segment carrying it, the TCP checksum
    updated incrementally (RFC 1624, eqn. 3); any other packet unchanged."""
    if len(pkt) < 40 or pkt[0] >> 4 != 4 or pkt[9] != 6:
        return pkt
    ihl = (pkt[0] & 0x0F) * 4
    if not pkt[ihl + 13] & 0x08:
        return pkt
    b = bytearray(pkt)
    old = struct.unpack_from("!H", b, ihl + 12)[0]
    new = old & ~0x0008
    b[ihl + 13] &= ~0x08 & 0xFF
    s = (~struct.unpack_from("!H", b, ihl + 16)[0] & 0xFFFF) + (~old & 0xFFFF) + new
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    struct.pack_into("!H", b, ihl + 16, ~s & 0xFFFF)
    return bytes(b)


def main() -> int:
    cfg = json.loads(sys.argv[1])
    rate = float(cfg["bottleneck_bps"])
    access_bps = float(cfg["access_bps"])
    bdelay = int(cfg["bottleneck_delay_s"] * 1e9)
    qlimit = int(cfg["queue"])
    loss = float(cfg["loss"])
    mss = int(cfg["mss"])
    # per source address (data) / destination address (ACKs): access delay, ns
    access = {bytes(map(int, a.split("."))): int(d * 1e9) for a, d in cfg["access"].items()}
    flow0 = bytes(map(int, cfg["flow0_addr"].split(".")))
    drop_first = set(cfg.get("drop_segments", []))
    drop_retx = set(cfg.get("drop_retransmissions", []))
    rng = random.Random(cfg.get("seed", 1))
    # a controlled experiment: the receivers never see PSH (Linux acknowledges a pushed
    # segment at once, tcp_measure_rcv_mss / tcp_cleanup_rbuf; without PSH, per two segments)
    no_psh = bool(cfg.get("strip_psh", False))
    # ``access_fifo``: a sender's access link serializes its packets one after another, as
    # hosim's link does (its transmission starts when the previous one's ends); without it
    # each packet is only delayed by its own serialization, so a burst the kernel writes at
    # once reaches the bottleneck queue at once, in one block, instead of 0.12 ms apart
    access_fifo = bool(cfg.get("access_fifo", False))
    access_free: dict[bytes, int] = {}

    fs = open_tun(cfg["sender_ns"], cfg["dev"])
    fd = open_tun(cfg["receiver_ns"], cfg["dev"])
    try:
        os.sched_setscheduler(0, SCHED_FIFO, os.sched_param(int(cfg.get("rt_priority", 10))))
        rt = True
    except OSError:
        rt = False

    def ser_ns(nbytes: int, bps: float) -> int:
        return int(nbytes * 8 * 1e9 / bps)

    heap: list = []
    seqno = 0
    queue: list[bytes] = []
    qhead = 0
    busy = False
    stats = {"queue_drops": 0, "link_losses": 0, "scripted_drops": 0, "data_pkts": 0, "ack_pkts": 0}
    isn: int | None = None
    seen: dict[int, int] = {}
    lateness: list[int] = []
    # when each sender address's first packet (its SYN) was read, ns
    first_seen: dict[bytes, int] = {}
    first_acks: list[list[int]] = []

    def push(t: int, kind: int, pkt: bytes) -> None:
        nonlocal seqno
        seqno += 1
        heapq.heappush(heap, (t, seqno, kind, pkt))

    # kinds: 0 arrive at bottleneck queue, 1 bottleneck transmission done, 2 write to
    # receivers, 3 write to senders
    def start_service(now: int) -> None:
        nonlocal qhead, busy
        if qhead < len(queue):
            pkt = queue[qhead]
            qhead += 1
            busy = True
            push(now + ser_ns(len(pkt), rate), 1, pkt)
        else:
            busy = False

    def scripted_drop(pkt: bytes) -> bool:
        nonlocal isn
        f = tcp_fields(pkt)
        if f is None or f[0] != flow0:
            return False
        _, _, seq, flags, plen = f
        if flags & 0x02:  # SYN
            isn = seq
            return False
        if plen == 0 or isn is None:
            return False
        k = ((seq - isn - 1) & 0xFFFFFFFF) // mss
        n = seen.get(k, 0)
        seen[k] = n + 1
        if (n == 0 and k in drop_first) or (n == 1 and k in drop_retx):
            stats["scripted_drops"] += 1
            return True
        return False

    print("ready", flush=True)
    end = time.monotonic_ns() + int(cfg["run_s"] * 1e9)
    stop = [False]

    def on_term(_signum, _frame) -> None:
        stop[0] = True

    signal.signal(signal.SIGTERM, on_term)
    while True:
        now = time.monotonic_ns()
        if now >= end or stop[0]:
            break
        while heap and heap[0][0] <= now:
            t, _, kind, pkt = heapq.heappop(heap)
            lateness.append(now - t)
            if kind == 0:
                if scripted_drop(pkt):
                    pass
                elif not busy:
                    queue.append(pkt)
                    start_service(t)
                elif len(queue) - qhead < qlimit:
                    queue.append(pkt)
                else:
                    stats["queue_drops"] += 1
                if qhead > 4096:
                    del queue[:qhead]
                    qhead = 0
            elif kind == 1:
                if loss > 0 and rng.random() < loss:
                    stats["link_losses"] += 1
                else:
                    d = access.get(pkt[12:16], 0)
                    push(t + bdelay + d + ser_ns(len(pkt), access_bps), 2, pkt)
                start_service(t)
            elif kind == 2:
                os.write(fd, pkt)
            else:
                os.write(fs, pkt)
            now = time.monotonic_ns()
        timeout = (heap[0][0] - now) / 1e9 if heap else 0.05
        # select(): microsecond timeouts (epoll's are whole milliseconds)
        readable, _, _ = select.select([fs, fd], [], [], min(max(timeout, 0.0), 0.05))
        for fileno in readable:
            while True:
                try:
                    pkt = os.read(fileno, 65536)
                except BlockingIOError:
                    break
                t = time.monotonic_ns()
                if fileno == fs:
                    stats["data_pkts"] += 1
                    if no_psh:
                        pkt = strip_psh(pkt)
                    first_seen.setdefault(pkt[12:16], t)
                    d = access.get(pkt[12:16], 0)
                    if access_fifo:
                        done = max(t, access_free.get(pkt[12:16], 0)) + ser_ns(len(pkt), access_bps)
                        access_free[pkt[12:16]] = done
                        push(done + d, 0, pkt)
                    else:
                        push(t + d + ser_ns(len(pkt), access_bps), 0, pkt)
                else:
                    stats["ack_pkts"] += 1
                    # flow 0's first ACKs (time, bytes acknowledged): the receiver's ACK policy
                    if pkt[16:20] == flow0 and isn is not None and len(first_acks) < 40 and len(pkt) >= 40:
                        ack = struct.unpack_from("!I", pkt, (pkt[0] & 0x0F) * 4 + 8)[0]
                        first_acks.append([round((t - first_seen.get(flow0, t)) / 1e3), (ack - isn - 1) & 0xFFFFFFFF])
                    d = access.get(pkt[16:20], 0)
                    one_way = 2 * d + bdelay + 2 * ser_ns(len(pkt), access_bps) + ser_ns(len(pkt), rate)
                    push(t + one_way, 3, pkt)
    lateness.sort()

    def pct(p: float) -> float:
        return lateness[min(len(lateness) - 1, int(p * len(lateness)))] / 1e3 if lateness else 0.0

    stats.update(
        {
            "sched_fifo": rt,
            "lateness_us": {"p50": pct(0.5), "p99": pct(0.99), "p999": pct(0.999), "max": pct(1.0)},
            "events": len(lateness),
            "flow0_first_acks": first_acks,
            "first_packet_us": {
                ".".join(map(str, a)): round((t - min(first_seen.values())) / 1e3, 1) for a, t in first_seen.items()
            },
        }
    )
    print(json.dumps(stats), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
