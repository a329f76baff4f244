"""Tiny TCP applications for ``hosim emulate`` (its tests, and a quick look without iperf3).

``python -m hosim.netapps serve --port P --bytes N`` listens on every address of its
namespace and sends each connecting client N bytes of a fixed pattern (byte i is
``i * 7 + i // 251 & 0xff``), then closes. ``python -m hosim.netapps fetch HOST --port P``
connects, reads until the server closes, checks that every byte arrived once and in order
(the pattern), and prints one JSON line: bytes, whether the stream was intact, the time from
connect to the last byte, and the goodput. Both are bounded by ``--timeout``.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time

CHUNK = 1 << 16


def pattern(offset: int, n: int) -> bytes:
    """Bytes ``offset .. offset + n`` of the stream."""
    return bytes(((i * 7 + i // 251) & 0xFF) for i in range(offset, offset + n))


#: IPPROTO_MPTCP (linux/in.h): a Multipath TCP socket (RFC 8684).
IPPROTO_MPTCP = 262


def serve(port: int, nbytes: int, timeout: float, cc: str | None, mptcp: bool = False) -> int:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP if mptcp else 0)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(4)
    srv.settimeout(timeout)
    end = time.monotonic() + timeout
    # One period of the pattern is 251 * 256 bytes long: send slices of a precomputed block.
    period = 251 * 256
    block = pattern(0, period + CHUNK)
    while time.monotonic() < end:
        try:
            conn, _ = srv.accept()
        except (TimeoutError, socket.timeout):
            break
        if cc:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        conn.settimeout(max(0.1, end - time.monotonic()))
        sent = 0
        try:
            while sent < nbytes:
                off = sent % period
                n = min(CHUNK, nbytes - sent)
                sent += conn.send(block[off:off + n])
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(CHUNK):
                pass
        except OSError:
            pass
        finally:
            conn.close()
    return 0


def fetch(host: str, port: int, timeout: float, mptcp: bool = False) -> int:
    period = 251 * 256
    block = pattern(0, period + CHUNK)
    first = time.monotonic()
    # The server may not listen yet (it starts at the same time): try again until the timeout.
    while True:
        start = time.monotonic()
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP if mptcp else 0)
            s.settimeout(timeout)
            s.connect((host, port))
            break
        except ConnectionRefusedError:
            s.close()
            if start - first > timeout:
                raise
            time.sleep(0.05)
    s.settimeout(timeout)
    got = 0
    intact = True
    last = start
    try:
        while True:
            data = s.recv(CHUNK)
            if not data:
                break
            off = got % period
            if intact and data != block[off:off + len(data)]:
                intact = False
            got += len(data)
            last = time.monotonic()
    except OSError:
        intact = False
    s.close()
    secs = last - start
    print(json.dumps({"bytes": got, "intact": intact, "seconds": secs,
                      "goodput_bps": got * 8 / secs if secs > 0 else 0.0}), flush=True)
    return 0 if intact else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hosim.netapps", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=5001)
    s.add_argument("--bytes", type=int, required=True)
    s.add_argument("--timeout", type=float, default=30.0)
    s.add_argument("--cc", default=None, help="congestion control of the sending socket (TCP_CONGESTION)")
    s.add_argument("--mptcp", action="store_true", help="a Multipath TCP socket (IPPROTO_MPTCP)")
    f = sub.add_parser("fetch")
    f.add_argument("host")
    f.add_argument("--port", type=int, default=5001)
    f.add_argument("--timeout", type=float, default=30.0)
    f.add_argument("--mptcp", action="store_true", help="a Multipath TCP socket (IPPROTO_MPTCP)")
    args = ap.parse_args(argv)
    if args.cmd == "serve":
        return serve(args.port, args.bytes, args.timeout, args.cc, args.mptcp)
    return fetch(args.host, args.port, args.timeout, args.mptcp)


if __name__ == "__main__":
    sys.exit(main())
