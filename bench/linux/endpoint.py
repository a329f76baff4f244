#!/usr/bin/env python3
"""Kernel TCP endpoints for run_kernel.py: ``rx`` (in the receivers' namespace) and ``tx`` (in
the senders' namespace). Benchmark only.

rx  accepts ``--flows`` connections on 198.19.0.1:5001 and counts the bytes each delivers to
    the application: bulk, those received within ``--duration`` of the senders' start; file,
    the time (CLOCK_MONOTONIC, the same clock in every namespace) at which the last byte
    arrived. Prints one JSON line.
tx  opens one connection per ``--src`` address with congestion control ``--cc``
    (setsockopt TCP_CONGESTION), sends for ``--duration`` seconds (bulk) or ``--file-bytes``
    (file), then prints one JSON line with its start time and the namespace's ``nstat``
    counters.
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import subprocess
import sys
import time

PORT = 5001
RX_ADDR = "198.19.0.1"
CHUNK = bytes(65536)


def rx(args: argparse.Namespace) -> int:
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((RX_ADDR, PORT))
    srv.listen(args.flows + 4)
    srv.settimeout(args.bound)
    sel = selectors.DefaultSelector()
    conns = []
    print("ready", flush=True)
    for _ in range(args.flows):
        c, peer = srv.accept()
        c.setblocking(False)
        rec = {"peer": peer[0], "bytes": 0, "accept_ns": time.monotonic_ns(), "last_ns": None, "eof": False}
        conns.append(rec)
        sel.register(c, selectors.EVENT_READ, rec)
    start = min(r["accept_ns"] for r in conns)
    end = time.monotonic_ns() + int(args.bound * 1e9)
    stop_count = start + int(args.duration * 1e9)
    open_conns = len(conns)
    while open_conns and time.monotonic_ns() < end:
        if args.mode == "bulk" and time.monotonic_ns() >= stop_count:
            break
        for key, _ in sel.select(timeout=0.05):
            rec = key.data
            try:
                data = key.fileobj.recv(1 << 20)
            except BlockingIOError:
                continue
            now = time.monotonic_ns()
            if not data:
                rec["eof"] = True
                sel.unregister(key.fileobj)
                open_conns -= 1
                continue
            if args.mode == "file" or now < stop_count:
                rec["bytes"] += len(data)
                rec["last_ns"] = now
    print(json.dumps({"flows": conns}), flush=True)
    return 0


def nstat() -> dict[str, int]:
    out = subprocess.run(["nstat", "-asz"], capture_output=True, text=True, timeout=10, check=True).stdout
    counters = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.startswith("#"):
            counters[parts[0]] = int(parts[1])
    return counters


def tx(args: argparse.Namespace) -> int:
    sel = selectors.DefaultSelector()
    socks = []
    start_ns = time.monotonic_ns()
    for src in args.src:
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
        s.bind((src, 0))
        s.setblocking(False)
        s.connect_ex((RX_ADDR, PORT))
        socks.append(s)
        sel.register(s, selectors.EVENT_WRITE, {"left": args.file_bytes})
    end = start_ns + int(args.duration * 1e9)
    active = len(socks)
    while active and time.monotonic_ns() < end:
        for key, _ in sel.select(timeout=0.05):
            st = key.data
            n = len(CHUNK) if st["left"] is None else min(len(CHUNK), st["left"])
            try:
                sent = key.fileobj.send(CHUNK[:n])
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                sel.unregister(key.fileobj)
                active -= 1
                continue
            if st["left"] is not None:
                st["left"] -= sent
                if st["left"] == 0:
                    key.fileobj.shutdown(socket.SHUT_WR)
                    sel.unregister(key.fileobj)
                    active -= 1
    if args.file_bytes is not None:
        # wait until the data is acknowledged (bounded by --duration)
        while time.monotonic_ns() < end and any(_unacked(s) for s in socks):
            time.sleep(0.01)
    counters = nstat()
    print(json.dumps({"start_ns": start_ns, "nstat": counters}), flush=True)
    for s in socks:
        s.close()
    return 0


def _unacked(s: socket.socket) -> bool:
    """tcpi_unacked (struct tcp_info, offset 24) is not zero."""
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return int.from_bytes(info[24:28], "little") != 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rx")
    r.add_argument("--flows", type=int, required=True)
    r.add_argument("--duration", type=float, required=True)
    r.add_argument("--bound", type=float, required=True, help="hard limit of the whole run, s")
    r.add_argument("--mode", choices=["bulk", "file"], default="bulk")
    t = sub.add_parser("tx")
    t.add_argument("--src", nargs="+", required=True)
    t.add_argument("--cc", default="cubic")
    t.add_argument("--duration", type=float, required=True)
    t.add_argument("--file-bytes", type=int, default=None)
    args = ap.parse_args()
    return rx(args) if args.cmd == "rx" else tx(args)


if __name__ == "__main__":
    sys.exit(main())
