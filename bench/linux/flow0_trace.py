#!/usr/bin/env python3
"""Trace one flow across FCP's handovers, the kernel's CUBIC against hosim's `linux` profile
(issue 35 §4): the drop-or-forward case of `todays_tcp.py` (Δ = 10 RTT, 20 s, `flow0` real or
simulated), one seed, per handover of `flow0`'s mobile.

Benchmark only; `kernel` must run as root; never part of the test suite.

- `kernel SCHEME SEED OUT`: `hosim emulate` with the kernel's CUBIC as `flow0`; its sender is
  this script's `serve`, which samples the connection's `TCP_INFO` (cwnd, ssthresh, ca_state,
  retransmissions, RTT, bytes acked, ...) every `--every` seconds; the capture of
  `sender->fcp` and `fcp->sender` (the network's clock), the samples and the summary go to
  OUT. The samples' clock (CLOCK_MONOTONIC) is put on the network's by the first data
  segment: the sample at `accept()` is that segment's capture time.
  With `pingpong`, the mobile's client is this script's `client`, which puts its socket in
  Linux's pingpong (interactive) mode after every read (`TCP_QUICKACK` = 0): the read that
  empties the receive queue then no longer acknowledges a lone full-sized segment that carries
  PSH at once (`tcp_measure_rcv_mss` sets `ICSK_ACK_PUSHED`, `tcp_cleanup_rbuf` sends the ACK
  only outside pingpong mode); it waits for a second segment or the delayed-ACK timer. With
  `nogso`, the sender's devices take one segment per GSO unit (`NO_GSO`).
- `hosim SCHEME SEED OUT [KEY=VALUE ...]`: the same case simulated (`hosim.run`), `flow0`'s
  cwnd, ssthresh and in-flight traces and the same capture into OUT, extra overrides allowed.
- `train OUT...`: per run, from 4 s to 20 s, how the flow's packet train is spaced: the time
  the mobile's links (`bs1->m0`, `bs2->m0`) stand idle and its share in gaps under 2.4 ms,
  2.4-10 ms and over 10 ms; the ACKs by segments newly acknowledged (0, 1, 2); the share of
  new data segments carrying PSH.
- `losses OUT...`: pooled over the runs, per handover of `flow0`'s mobile from the third on,
  whether the window was reduced (cwnd at the next handover below the one at this handover
  less one segment), by cwnd at the handover.
- `drops OUT`: the segments dropped at the base stations, per handover of `flow0`'s mobile
  (count and times after the handover), from the captures of their links.
- `acks OUT...`: the mobile's ACKs (its uplink captures, `m0->bs1`, `m0->bs2`) from 4 s to 20 s
  by the rule that sent them: with SACK blocks (out of order), filling a hole, of two or more
  segments, and those of one in-order segment by what that segment was and when the ACK left
  (at once with PSH, at once without, short, or over 10 ms later: the delayed-ACK timer).
  The capture records a packet when its transmission starts; a data segment reaches the
  mobile 1.2 ms (serialization) + 5 ms (propagation) after its record on `bsN->m0`.
- `units OUT...`: the new data segments on `sender->fcp` from 4 s to 20 s in back-to-back
  units (less than 0.2 ms apart: one transmission, a GSO unit or more), by size and by where
  PSH sits (hosim's captures show PSH where its sender set it: only with `tcp.psh_quickack`).
- `compare OUT...`: one row per handover of `flow0`'s mobile per run directory: cwnd at the
  handover, its lowest value in the 0.8 s that follow, cwnd at the next handover, ssthresh
  after, segments retransmitted, bytes acknowledged (Mb/s over the interval), time with
  ca_state Recovery (kernel) or cwnd below the value at the handover (both), and a summary.

Usage (as root for `kernel`):
  python bench/linux/flow0_trace.py kernel forward 1 /tmp/t-k-fwd-1 [listener] [pingpong] [nogso] [tso4]
  python bench/linux/flow0_trace.py hosim forward 1 /tmp/t-h-fwd-1
  python bench/linux/flow0_trace.py compare /tmp/t-k-fwd-1 /tmp/t-h-fwd-1
  python bench/linux/flow0_trace.py drops /tmp/t-h-fwd-1
  python bench/linux/flow0_trace.py train /tmp/t-k-fwd-1 /tmp/t-h-fwd-1
  python bench/linux/flow0_trace.py losses /tmp/t-k-fwd-1 /tmp/t-k-fwd-2
  python bench/linux/flow0_trace.py acks /tmp/t-k-fwd-1 /tmp/t-h-fwd-1
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import tempfile
import threading
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import todays_tcp as T  # noqa: E402

CASE = T.CASES["drop-or-forward"]
#: The sender's links (segments sent, ACKs) and the base stations' (where packets are dropped:
#: a segment that reaches a base station and leaves neither to the mobile nor to the other).
LINKS = ("sender->fcp", "fcp->sender", "fcp->bs1", "fcp->bs2", "bs1->bs2", "bs2->bs1", "bs1->m0", "bs2->m0",
         "m0->bs1", "m0->bs2")
#: struct tcp_info (include/uapi/linux/tcp.h): the fields kept, as (name, offset, format).
TCP_INFO = (
    ("ca_state", 1, "B"), ("retransmits", 2, "B"), ("backoff", 4, "B"), ("rto_us", 8, "I"),
    ("unacked", 24, "I"), ("sacked", 28, "I"), ("lost", 32, "I"), ("retrans", 36, "I"),
    ("rtt_us", 68, "I"), ("rttvar_us", 72, "I"), ("ssthresh", 76, "I"), ("cwnd", 80, "I"),
    ("reordering", 88, "I"), ("total_retrans", 100, "I"), ("bytes_acked", 120, "Q"),
    ("notsent_bytes", 144, "I"), ("min_rtt_us", 148, "I"), ("rwnd_limited_us", 176, "Q"),
    ("sndbuf_limited_us", 184, "Q"), ("delivered", 192, "I"), ("bytes_retrans", 208, "Q"),
    ("dsack_dups", 216, "I"), ("reord_seen", 220, "I"), ("snd_wnd", 228, "I"),
)
CA_STATES = ("Open", "Disorder", "CWR", "Recovery", "Loss")


def serve(out: str, every_s: float, timeout_s: float, on_listener: bool) -> int:
    """The sender inside the namespace: `hosim.netapps`' bulk sender, CUBIC, TCP_INFO sampled.
    CUBIC is set on the accepted socket, as `hosim.netapps serve --cc` does, and with
    `on_listener` on the listening socket too, so that the connection starts with it."""
    from hosim import netapps

    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", 5001))
    if on_listener:
        srv.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cubic")
    srv.listen(1)
    srv.settimeout(timeout_s)
    conn, _ = srv.accept()
    t0 = time.monotonic()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cubic")
    conn.settimeout(timeout_s)
    stop = threading.Event()
    # One line per sample, flushed: the run may end by removing the namespace mid-send.
    fh = open(out, "w", buffering=1)
    fh.write(",".join(["t_s", *(n for n, _, _ in TCP_INFO)]) + "\n")

    def sample() -> None:
        while not stop.is_set():
            try:
                raw = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
            except OSError:
                return
            vals = (struct.unpack_from("=" + f, raw, o)[0] for _, o, f in TCP_INFO)
            fh.write(f"{time.monotonic() - t0:.6f}," + ",".join(map(str, vals)) + "\n")
            stop.wait(every_s)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        netapps._send(conn, 100_000_000_000)
    except OSError:
        pass
    finally:
        stop.set()
        th.join()
        fh.close()
        conn.close()
    return 0


def client(host: str, timeout_s: float) -> int:
    """`hosim.netapps fetch` with the socket put back in pingpong mode after every read (the
    kernel leaves it when a delayed ACK's timer fires, `tcp_delack_timer_handler`)."""
    from hosim import netapps

    s, start = netapps._connect(host, 5001, timeout_s, False)
    s.settimeout(timeout_s)
    got = 0
    try:
        while True:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 0)
            data = s.recv(netapps.CHUNK)
            if not data:
                break
            got += len(data)
    except OSError:
        pass
    s.close()
    print(json.dumps({"bytes": got, "seconds": time.monotonic() - start}), flush=True)
    return 0


#: `nogso`: before the sender starts, every device of its namespace sends one segment per GSO
#: unit (`gso_max_segs` 1): `tcp_tso_autosize` then gives one segment, so there are no units to
#: defer (`tcp_tso_should_defer` runs only for units of more) or to end with PSH.
NO_GSO = 'for d in /sys/class/net/*; do n=${d##*/}; [ "$n" = lo ] || ip link set dev "$n" gso_max_segs 1; done; '
#: `tso4`: the sender's namespace sends units of at least four segments (`tcp_min_tso_segs`, a
#: per-namespace sysctl, 2 by default), to see where PSH sits in larger units.
TSO4 = "sysctl -qw net.ipv4.tcp_min_tso_segs=4; "


def kernel(scheme: str, seed: int, out: str, every_s: float, on_listener: bool, pingpong: bool = False,
           no_gso: bool = False, tso4: bool = False) -> int:
    import hosim

    os.makedirs(out, exist_ok=True)
    dur = float(CASE["base"]["duration_s"])
    overrides = {**CASE["base"], "fcp.scheme": scheme}
    py = sys.executable
    me = os.path.abspath(__file__)
    samples = os.path.join(os.path.abspath(out), "tcp_info.csv")
    with tempfile.TemporaryDirectory(prefix="hosim-trace-") as tmp:
        s = hosim.emulate(
            T.scenario_text(CASE), seed=seed, overrides=overrides,
            server=(NO_GSO if no_gso else "") + (TSO4 if tso4 else "")
            + f"exec {py} {me} serve {samples} {every_s} {dur + 5}{' listener' if on_listener else ''}",
            client=(f"exec {py} {me} client {{server}} {dur + 5}" if pingpong
                    else f"exec {py} -m hosim.netapps fetch {{server}} --timeout {dur + 5}"),
            client_delay_s=T.CLIENT_DELAY_S, app_output_dir=tmp, capture_dir=out, capture_links=LINKS,
        )
    emu = s["emulation"]
    snd = next(h for h in emu["hosts"] if h["host"] == emu["flows"][0]["src"])
    if not s["handovers"]:
        # The emulation's summary has no mechanism reports; FCP's handover times depend on the
        # seed only (fixed interval, per-mobile phase), so the simulated run gives them.
        s["handovers"] = hosim.run(T.scenario_text(CASE), seed=seed, overrides=overrides,
                                   traces=False).summary["handovers"]
    with open(os.path.join(out, "summary.json"), "w") as fh:
        json.dump(s, fh, indent=1)
    acked = T.bytes_acked(T.ss_text(snd["ss"]))
    print(json.dumps({"stack": "kernel", "scheme": scheme, "seed": seed,
                      "goodput_mbps": acked * 8 / (emu["duration_s"] - T.CLIENT_DELAY_S) / 1e6,
                      "p99_us": emu["lateness"]["p99_us"], "late": bool(emu["warning"]),
                      "retrans": snd["nstat"].get("TcpRetransSegs", 0),
                      "recoveries": snd["nstat"].get("TcpExtTCPSackRecovery", 0)}))
    return 0


def simulate(scheme: str, seed: int, out: str, extra: list[str]) -> int:
    import hosim
    from hosim.api import Capture

    os.makedirs(out, exist_ok=True)
    overrides: dict[str, Any] = {**CASE["base"], **CASE.get("hosim_overrides", {}), "fcp.scheme": scheme}
    for kv in extra:
        k, v = kv.split("=", 1)
        overrides[k] = json.loads(v) if v[:1] in "-0123456789tf[" else v
    r = hosim.run(T.scenario_text(CASE), seed=seed, overrides=overrides,
                  capture=Capture(out, list(LINKS), "pcap"))
    f0 = lambda df: df[df["flow"] == "flow0"]  # noqa: E731
    for name in ("cwnd", "ssthresh", "inflight"):
        f0(getattr(r, name)).to_csv(os.path.join(out, f"{name}.csv"), index=False)
    with open(os.path.join(out, "summary.json"), "w") as fh:
        json.dump(r.summary, fh, indent=1)
    f = r.summary["flows"][0]
    print(json.dumps({"stack": "hosim", "scheme": scheme, "seed": seed, "extra": extra,
                      "goodput_mbps": f["goodput_bps"] / 1e6, "retrans": f["retransmits"],
                      "recoveries": f["fast_recoveries"]}))
    return 0


def read_pcap(path: str) -> list[tuple[float, bytes]]:
    """(time s, IPv4 bytes) of a classic pcap of either byte order (`hosim run` writes
    little-endian, `hosim emulate` big-endian), microsecond or nanosecond stamps."""
    with open(path, "rb") as fh:
        data = fh.read()
    magic = data[:4]
    end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    frac = 1e-9 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1e-6
    out = []
    at = 24
    while at + 16 <= len(data):
        sec, sub, caplen, _ = struct.unpack_from(end + "IIII", data, at)
        out.append((sec + sub * frac, data[at + 16 : at + 16 + caplen]))
        at += 16 + caplen
    return out


def data_segments(out: str) -> list[tuple[float, int, int]]:
    """(time s, sequence offset, length) of `flow0`'s data segments on `sender->fcp`, the
    connection's initial sequence number taken as 0."""
    path = link_path(out, "sender->fcp")
    segs = []
    isn = None
    for ts, ip in read_pcap(path):
        if ip[9] != 6:
            continue
        ihl = (ip[0] & 0x0F) * 4
        sport, _, seq = struct.unpack_from("!HHI", ip, ihl)
        if sport not in (5001, 10000):
            continue
        if ip[ihl + 13] & 0x02:
            isn = seq
            continue
        n = struct.unpack_from("!H", ip, 2)[0] - ihl - (ip[ihl + 12] >> 4) * 4
        if n > 0 and isn is not None:
            segs.append((ts, (seq - isn - 1) % (1 << 32), n))
    return segs


def load_run(out: str) -> dict[str, Any]:
    """Per run: the handover times of `flow0`'s mobile, and cwnd, ssthresh (segments) and
    bytes acked against the network's time."""
    import pandas as pd

    with open(os.path.join(out, "summary.json")) as fh:
        s = json.load(fh)
    ue = s["flows"][0].get("mobile", "m0")
    hos = [h["start_s"] for h in s["handovers"] if h["ue"] == ue]
    segs = data_segments(out)
    if os.path.exists(os.path.join(out, "tcp_info.csv")):
        df = pd.read_csv(os.path.join(out, "tcp_info.csv"))
        df["time_s"] = df["t_s"] + segs[0][0]
        mss = 1448
        df["acked"] = df["bytes_acked"]
        return {"stack": "kernel", "hos": hos, "df": df, "segs": segs, "mss": mss, "summary": s}
    cw = pd.read_csv(os.path.join(out, "cwnd.csv"))
    ss = pd.read_csv(os.path.join(out, "ssthresh.csv"))
    mss = s["flows"][0]["mss_bytes"]
    df = pd.merge_asof(cw.sort_values("time_s"), ss.sort_values("time_s")[["time_s", "ssthresh_bytes"]],
                       on="time_s")
    df["cwnd"] = df["cwnd_bytes"] / mss
    df["ssthresh"] = df["ssthresh_bytes"] / mss
    return {"stack": "hosim", "hos": hos, "df": df, "segs": segs, "mss": mss, "summary": s}


def per_handover(run: dict[str, Any]) -> list[dict[str, float]]:
    import numpy as np

    df, segs = run["df"], run["segs"]
    t = df["time_s"].to_numpy()
    cw = df["cwnd"].to_numpy()
    st = df["ssthresh"].to_numpy()
    times = np.array([x[0] for x in segs])
    seqs = np.array([x[1] for x in segs])
    ends = seqs + np.array([x[2] for x in segs])
    high = np.maximum.accumulate(ends)
    retx = np.concatenate([[False], seqs[1:] < high[:-1]])
    hos = run["hos"]
    rows = []
    for i, h in enumerate(hos):
        e = hos[i + 1] if i + 1 < len(hos) else h + 0.8

        def at(x: float) -> int:
            return max(0, int(np.searchsorted(t, x, side="right")) - 1)

        a, b = at(h), at(e)
        win = slice(a, b + 1)
        lo = float(cw[win].min())
        sent = (times >= h) & (times < e)
        high_e = float(high[times < e].max()) if (times < e).any() else 0.0
        high_h = float(high[times < h].max()) if (times < h).any() else 0.0
        row = {"t": h, "cwnd_before": float(cw[a]), "cwnd_min": lo, "t_min": float(t[a + int(cw[win].argmin())] - h),
               "cwnd_end": float(cw[b]), "ssthresh_end": float(st[b]) if st[b] < 1e9 else float("nan"),
               "retx": int(retx[sent].sum()), "new_mbps": (high_e - high_h) * 8 / (e - h) / 1e6}
        if "ca_state" in df:
            cs = df["ca_state"].to_numpy()[win]
            row["recovery_s"] = float((cs >= 3).mean() * (e - h))
        below = cw[win] < cw[a]
        row["below_s"] = float(below.mean() * (e - h))
        rows.append(row)
    return rows


def compare(outs: list[str]) -> int:
    import numpy as np

    runs = [load_run(o) for o in outs]
    tables = [per_handover(r) for r in runs]
    cols = ["t", "cwnd_before", "cwnd_min", "t_min", "cwnd_end", "ssthresh_end", "retx", "new_mbps", "below_s"]
    print("| handover t (s) | " + " | ".join(f"{os.path.basename(o)}: cwnd before / min (after s) / end, "
                                             "ssthresh, retx, Mb/s" for o in outs) + " |")
    print("|---|" + "---|" * len(outs))
    n = min(len(x) for x in tables)
    for i in range(n):
        cells = []
        for tab in tables:
            r = tab[i]
            cells.append(f"{r['cwnd_before']:.0f} / {r['cwnd_min']:.0f} ({r['t_min']:.2f}) / {r['cwnd_end']:.0f}, "
                         f"{r['ssthresh_end']:.0f}, {r['retx']}, {r['new_mbps']:.2f}")
        print(f"| {tables[0][i]['t']:.3f} | " + " | ".join(cells) + " |")
    print()
    for o, tab in zip(outs, tables):
        m = {c: float(np.nanmean([r[c] for r in tab])) for c in cols[1:]}
        print(f"{os.path.basename(o)}: mean per handover " + ", ".join(f"{k} {v:.2f}" for k, v in m.items()))
    return 0


def link_path(out: str, link: str) -> str:
    """The capture of `link` in OUT (`hosim run` and `hosim emulate` escape `>` differently)."""
    for sep in ("-%3E", "-_"):
        p = os.path.join(out, link.replace("->", sep) + ".pcap")
        if os.path.exists(p):
            return p
    raise FileNotFoundError(f"no capture of {link} in {out}")


def link_seqs(path: str) -> list[tuple[float, int]]:
    """(time s, sequence number) of the data segments of a capture."""
    out = []
    for ts, ip in read_pcap(path):
        if ip[9] != 6:
            continue
        ihl = (ip[0] & 0x0F) * 4
        seq = struct.unpack_from("!I", ip, ihl + 4)[0]
        n = struct.unpack_from("!H", ip, 2)[0] - ihl - (ip[ihl + 12] >> 4) * 4
        if n > 0:
            out.append((ts, seq))
    return out


def drops(out: str) -> int:
    """Per handover, the segments that entered a base station (from the FCP or forwarded by
    the other) and left it neither to the mobile nor forwarded: the drops at its queues."""
    from collections import Counter

    with open(os.path.join(out, "summary.json")) as fh:
        s = json.load(fh)
    hos = [h["start_s"] for h in s["handovers"] if h["ue"] == "m0"]
    times = []
    for bs, other in (("bs1", "bs2"), ("bs2", "bs1")):
        ins = sorted(link_seqs(link_path(out, f"fcp->{bs}")) + link_seqs(link_path(out, f"{other}->{bs}")))
        outs = link_seqs(link_path(out, f"{bs}->m0")) + link_seqs(link_path(out, f"{bs}->{other}"))
        left = Counter(q for _, q in outs)
        for t, q in ins:
            if left[q] > 0:
                left[q] -= 1
            else:
                times.append(t)
    per: dict[float, list[float]] = {}
    for t in sorted(times):
        h = max([x for x in hos if x <= t] or [0.0])
        per.setdefault(h, []).append(t - h)
    print(f"{os.path.basename(out)}: {len(times)} segments dropped at the base stations "
          "(time: when the segment left the FCP or the other base station)")
    for h, v in per.items():
        print(f"  after {h:7.3f} s: {len(v):3d}, at +{min(v):.3f} to +{max(v):.3f} s")
    return 0


def train(outs: list[str]) -> int:
    import numpy as np

    print("| run | mobile's link idle | in gaps < 2.4 ms / 2.4-10 ms / >= 10 ms | ACKs of 0 / 1 / 2 segments "
          "| new segments with PSH |")
    print("|---|---|---|---|---|")
    for out in outs:
        t = np.sort(np.array([x for link in ("bs1->m0", "bs2->m0") for x, _ in link_seqs(link_path(out, link))]))
        t = t[(t > 4) & (t < 20)]
        # A departure every 1.2 ms while busy (1500 bytes at 10 Mb/s): the rest is idle.
        gaps = np.diff(t) - 0.0012
        idle = gaps[gaps > 0.0002]
        share = [idle[(idle >= lo) & (idle < hi)].sum() / idle.sum() * 100
                 for lo, hi in ((0, 0.0024), (0.0024, 0.010), (0.010, 1e9))]
        acks = []
        for ts, ip in read_pcap(link_path(out, "fcp->sender")):
            if ip[9] == 6 and 4 < ts < 20:
                acks.append(struct.unpack_from("!I", ip, (ip[0] & 0x0F) * 4 + 8)[0])
        sizes = np.array([round(((b - a) % (1 << 32)) / 1448) for a, b in zip(acks, acks[1:])])
        n = max(len(sizes), 1)
        seen, psh = set(), []
        for ts, ip in read_pcap(link_path(out, "sender->fcp")):
            ihl = (ip[0] & 0x0F) * 4
            ln = struct.unpack_from("!H", ip, 2)[0] - ihl - (ip[ihl + 12] >> 4) * 4
            seq = struct.unpack_from("!I", ip, ihl + 4)[0]
            if ip[9] == 6 and ln > 0 and ts > 4 and seq not in seen:
                seen.add(seq)
                psh.append(bool(ip[ihl + 13] & 0x08))
        print(f"| {os.path.basename(out)} | {idle.sum() / 16 * 100:.1f} % | "
              + " / ".join(f"{x:.0f} %" for x in share) + " | "
              + " / ".join(f"{(sizes == k).sum() / n * 100:.1f} %" for k in (0, 1, 2))
              + f" | {np.mean(psh) * 100:.0f} % |")
    return 0


#: `acks`: a data segment reaches the mobile this long after its capture record on `bsN->m0`:
#: its serialization at 10 Mb/s (1500 bytes) and the 5 ms of the wireless link.
TO_MOBILE_S = 0.0012 + 0.005


def tcp_records(out: str, links: tuple[str, ...]) -> list[tuple[float, int, int, int, int, bool]]:
    """(time s, seq, ack, flags, payload bytes, has SACK blocks) of the TCP packets of the
    captures of `links` in OUT that exist, in time order."""
    recs = []
    for link in links:
        try:
            path = link_path(out, link)
        except FileNotFoundError:
            continue
        for ts, ip in read_pcap(path):
            if ip[9] != 6:
                continue
            ihl = (ip[0] & 0x0F) * 4
            seq, ack = struct.unpack_from("!II", ip, ihl + 4)
            doff = (ip[ihl + 12] >> 4) * 4
            n = struct.unpack_from("!H", ip, 2)[0] - ihl - doff
            opts, i, sack = ip[ihl + 20 : ihl + doff], 0, False
            while i < len(opts) and opts[i] != 0:
                if opts[i] == 1:
                    i += 1
                    continue
                if i + 1 >= len(opts):
                    break
                sack |= opts[i] == 5
                i += max(opts[i + 1], 2)
            recs.append((ts, seq, ack, ip[ihl + 13], n, sack))
    recs.sort()
    return recs


def acks(outs: list[str]) -> int:
    from collections import Counter

    mss = 1448
    rules = ("with SACK blocks (out of order)", "filling a hole", "of 2+ segments", "of 1 segment: PSH, at once",
             "of 1 segment: short, at once", "of 1 segment: no PSH, at once", "of 1 segment: delayed (> 10 ms)")
    counts = []
    for out in outs:
        data = [r for r in tcp_records(out, ("bs1->m0", "bs2->m0")) if r[4] > 0]
        ups = [r for r in tcp_records(out, ("m0->bs1", "m0->bs2")) if r[4] == 0 and not r[3] & 0x02]
        if not data or not ups:
            print(f"flow0_trace.py: no mobile captures in {out}", file=sys.stderr)
            return 2
        # First copy of each segment by its end: (arrival at the mobile, PSH, length).
        ends: dict[int, tuple[float, bool, int]] = {}
        for t, seq, _, fl, n, _ in data:
            ends.setdefault((seq + n) % (1 << 32), (t + TO_MOBILE_S, bool(fl & 0x08), n))
        c: Counter[str] = Counter()
        for p, q in zip(ups, ups[1:]):
            if not 4 < q[0] < 20:
                continue
            segs = round(((q[2] - p[2]) % (1 << 32)) / mss)
            if q[5]:
                c[rules[0]] += 1
            elif segs == 0:
                c["of no new data"] += 1
            elif p[5]:
                c[rules[1]] += 1
            elif segs >= 2:
                c[rules[2]] += 1
            else:
                trig = ends.get(q[2])
                if trig is None:
                    c["of 1 segment: not captured"] += 1
                elif q[0] - trig[0] > 0.010:
                    c[rules[6]] += 1
                elif trig[1]:
                    c[rules[3]] += 1
                elif trig[2] < mss:
                    c[rules[4]] += 1
                else:
                    c[rules[5]] += 1
        counts.append(c)
    keys = list(rules) + sorted({k for c in counts for k in c} - set(rules))
    print("| the mobile's ACKs, 4-20 s | " + " | ".join(os.path.basename(o) for o in outs) + " |")
    print("|---|" + "---|" * len(outs))
    for k in keys:
        print(f"| {k} | " + " | ".join(str(c[k]) for c in counts) + " |")
    print("| all | " + " | ".join(str(sum(c.values())) for c in counts) + " |")
    return 0


def units(outs: list[str]) -> int:
    from collections import Counter

    print("| run | units of 1 / 2 / 3+ segments | PSH on: last of 2, a lone segment | new segments with PSH |")
    print("|---|---|---|---|")
    for out in outs:
        seen: set[int] = set()
        groups: list[list[bool]] = []
        last = -1.0
        for t, seq, _, fl, n, _ in tcp_records(out, ("sender->fcp",)):
            if n == 0 or seq in seen:
                continue
            seen.add(seq)
            if not 4 < t < 20:
                continue
            if groups and t - last < 0.0002:
                groups[-1].append(bool(fl & 0x08))
            else:
                groups.append([bool(fl & 0x08)])
            last = t
        size = Counter(min(len(g), 3) for g in groups)
        two = [g for g in groups if len(g) == 2]
        one = [g for g in groups if len(g) == 1]
        segs = sum(len(g) for g in groups)
        print(f"| {os.path.basename(out)} | {size[1]} / {size[2]} / {size[3]} | "
              f"{sum(g[1] for g in two)} of {len(two)}, {sum(g[0] for g in one)} of {len(one)} | "
              f"{sum(sum(g) for g in groups) / max(segs, 1) * 100:.0f} % |")
    return 0


def losses(outs: list[str]) -> int:
    import numpy as np

    rows = [(r["cwnd_before"], r["cwnd_end"] < r["cwnd_before"] - 1)
            for out in outs for r in per_handover(load_run(out))[2:]]
    c = np.array([x[0] for x in rows])
    lost = np.array([x[1] for x in rows])
    bins = (0, 45, 50, 55, 58, 61, 64, 67, 1000)
    cells = [f"{lost[(c >= a) & (c < b)].sum()}/{((c >= a) & (c < b)).sum()}" for a, b in zip(bins, bins[1:])]
    print("| runs | handovers | reduced | mean cwnd | " + " | ".join(
        f"cwnd {a}-{b - 1}" if b < 1000 else f"cwnd >= {a}" for a, b in zip(bins, bins[1:])) + " |")
    print("|---|---|---|---|" + "---|" * (len(bins) - 1))
    print(f"| {', '.join(os.path.basename(o) for o in outs)} | {len(rows)} | {lost.sum()} | {c.mean():.1f} | "
          + " | ".join(cells) + " |")
    return 0


def main() -> int:
    a = sys.argv[1:]
    if len(a) >= 4 and a[0] == "serve":
        return serve(a[1], float(a[2]), float(a[3]), a[4:] == ["listener"])
    if len(a) == 3 and a[0] == "client":
        return client(a[1], float(a[2]))
    if 4 <= len(a) <= 8 and a[0] == "kernel" and set(a[4:]) <= {"listener", "pingpong", "nogso", "tso4"}:
        if os.geteuid() != 0:
            print("flow0_trace.py: kernel runs need root (hosim emulate)", file=sys.stderr)
            return 2
        return kernel(a[1], int(a[2]), a[3], float(os.environ.get("HOSIM_TRACE_EVERY", "0.005")),
                      "listener" in a[4:], "pingpong" in a[4:], "nogso" in a[4:], "tso4" in a[4:])
    if len(a) >= 4 and a[0] == "hosim":
        return simulate(a[1], int(a[2]), a[3], a[4:])
    if len(a) >= 2 and a[0] == "compare":
        return compare(a[1:])
    if len(a) >= 2 and a[0] == "train":
        return train(a[1:])
    if len(a) >= 2 and a[0] == "losses":
        return losses(a[1:])
    if len(a) >= 2 and a[0] == "acks":
        return acks(a[1:])
    if len(a) >= 2 and a[0] == "units":
        return units(a[1:])
    if len(a) == 2 and a[0] == "drops":
        return drops(a[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
