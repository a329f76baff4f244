"""Reading the packet captures that ``hosim run --pcap LINKS --out DIR`` writes.

A small reader for exactly what the core writes (crates/hosim/src/observe/pcap): pcapng with
one interface per link (``capture.pcapng``) or one classic pcap per link, link type RAW, each
record an IPv4 packet, GTP-U tunnelled on the LTE links. It gives the TCP segments of one flow
as a DataFrame; it is not a general pcap library.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

__all__ = ["SENDER_PORT_BASE", "RECEIVER_PORT", "read_packets", "tcp_segments"]

#: Ports of the capture's frames: flow ``i``'s sender uses ``SENDER_PORT_BASE + i``.
SENDER_PORT_BASE = 10000
RECEIVER_PORT = 5001
_GTPU_PORT = 2152
_PCAPNG_FILE = "capture.pcapng"

_TH_SYN, _TH_ACK = 0x02, 0x10
_SEQ_WRAP = 1 << 32


def read_packets(run_dir: str | Path) -> Iterator[tuple[str, int, bytes]]:
    """(link name, timestamp ns, IPv4 bytes) of every captured packet in ``run_dir``."""
    run = Path(run_dir)
    ng = run / _PCAPNG_FILE
    if ng.exists():
        yield from _read_pcapng(ng)
        return
    classic = sorted(run.glob("*.pcap"))
    if not classic:
        raise FileNotFoundError(f"{run}: no packet capture (run with 'hosim run --pcap LINKS --out DIR')")
    for path in classic:
        yield from _read_pcap(path)


def _read_pcapng(path: Path) -> Iterator[tuple[str, int, bytes]]:
    data = path.read_bytes()
    names: list[str] = []
    at = 0
    while at + 12 <= len(data):
        block_type, length = struct.unpack_from("<II", data, at)
        body = data[at + 8 : at + length - 4]
        if block_type == 1:
            names.append(_if_name(body) or f"if{len(names)}")
        elif block_type == 6:
            iface, ts_hi, ts_lo, caplen = struct.unpack_from("<IIII", body, 0)
            yield names[iface], ts_hi << 32 | ts_lo, body[20 : 20 + caplen]
        at += length


def _if_name(idb_body: bytes) -> str:
    opt = 8
    while opt + 4 <= len(idb_body):
        code, olen = struct.unpack_from("<HH", idb_body, opt)
        if code == 0:
            break
        if code == 2:
            return idb_body[opt + 4 : opt + 4 + olen].decode()
        opt += 4 + (olen + 3) // 4 * 4
    return ""


def _read_pcap(path: Path) -> Iterator[tuple[str, int, bytes]]:
    """The core writes little-endian, microsecond pcap; the link name is the file's stem."""
    data = path.read_bytes()
    nano = data[:4] == b"\x4d\x3c\xb2\xa1"
    at = 24
    while at + 16 <= len(data):
        sec, frac, caplen, _orig = struct.unpack_from("<IIII", data, at)
        yield path.stem, sec * 1_000_000_000 + frac * (1 if nano else 1000), data[at + 16 : at + 16 + caplen]
        at += 16 + caplen


def _inner_tcp(ip: bytes) -> bytes | None:
    """The IPv4/TCP packet in ``ip``: itself, or the payload of a GTP-U G-PDU; None otherwise."""
    proto = ip[9]
    if proto == 6:
        return ip
    if proto == 17:
        udp = ip[(ip[0] & 0x0F) * 4 :]
        if len(udp) >= 16 and struct.unpack_from("!H", udp, 2)[0] == _GTPU_PORT and udp[9] == 255:
            return udp[16:]
    return None


def tcp_segments(run_dir: str | Path, flow_index: int) -> pd.DataFrame:
    """Every TCP segment of flow ``flow_index`` in the capture: one row per packet per link with
    ``link``, ``time_s``, ``ip_id`` (the IPv4 identification: the packet's id, low 16 bits, the same
    on every link), ``dir`` ("data" towards the receiver, "ack" back), ``seq`` and ``ack``
    as flow byte offsets (the capture's initial sequence numbers are 0), ``len``, ``window``
    (bytes, scaled), ``syn``, ``sack`` (list of (start, end) offsets)."""
    sender_port = SENDER_PORT_BASE + flow_index
    rows = []
    shift = {"data": 0, "ack": 0}
    for link, ts, ip in read_packets(run_dir):
        if len(ip) < 20:
            continue
        pkt = _inner_tcp(ip)
        if pkt is None:
            continue
        ihl = (pkt[0] & 0x0F) * 4
        tcp = pkt[ihl:]
        if len(tcp) < 20:
            continue
        sport, dport, seq, ack, off_flags, flags, window = struct.unpack_from("!HHIIBBH", tcp, 0)
        if sender_port not in (sport, dport):
            continue
        direction = "data" if sport == sender_port else "ack"
        total, ip_id = struct.unpack_from("!HH", pkt, 2)
        hlen = (off_flags >> 4) * 4
        wscale, sack = _options(tcp[20:hlen])
        if flags & _TH_SYN:
            shift[direction] = wscale
        rows.append({
            "link": link,
            "time_s": ts / 1e9,
            "ip_id": ip_id,
            "dir": direction,
            "seq": (seq - 1) % _SEQ_WRAP,
            "ack": (ack - 1) % _SEQ_WRAP,
            "len": total - ihl - hlen,
            "window": window << (0 if flags & _TH_SYN else shift[direction]),
            "syn": bool(flags & _TH_SYN),
            "sack": [((s - 1) % _SEQ_WRAP, (e - 1) % _SEQ_WRAP) for s, e in sack],
        })
    columns = ["link", "time_s", "ip_id", "dir", "seq", "ack", "len", "window", "syn", "sack"]
    return pd.DataFrame(rows, columns=columns)


def _options(raw: bytes) -> tuple[int, list[tuple[int, int]]]:
    """The TCP options the plots use: window scale (0 if absent) and SACK blocks (RFC 7323,
    RFC 2018)."""
    wscale, sack = 0, []
    i = 0
    while i < len(raw):
        kind = raw[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(raw) or raw[i + 1] < 2:
            break
        length = raw[i + 1]
        value = raw[i + 2 : i + length]
        if kind == 3 and len(value) == 1:
            wscale = value[0]
        elif kind == 5:
            sack = [struct.unpack_from("!II", value, k) for k in range(0, len(value) - 7, 8)]
        i += length
    return wscale, sack
