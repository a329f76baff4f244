"""Tiny TCP applications for ``hosim emulate`` (its tests, and a quick look without iperf3).

``python -m hosim.netapps serve --port P --bytes N`` listens on every address of its
namespace and sends each connecting client N bytes of a fixed pattern (byte i is
``i * 7 + i // 251 & 0xff``), then closes. ``python -m hosim.netapps fetch HOST --port P``
connects, reads until the server closes, checks that every byte arrived once and in order
(the pattern), and prints one JSON line: bytes, whether the stream was intact, the time from
connect to the last byte, and the goodput. Both are bounded by ``--timeout``.

The other way round, for a sender that opens the connection (a mobile that uploads: with
``--mptcp`` the side that connects is the one whose path manager opens new subflows):
``python -m hosim.netapps push HOST --bytes N`` connects and sends N bytes of the pattern, and
``python -m hosim.netapps sink`` accepts one connection, checks it as ``fetch`` does, prints the
same JSON line and exits.
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


def _socket(mptcp: bool) -> socket.socket:
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP if mptcp else 0)


def _send(conn: socket.socket, nbytes: int) -> None:
    """Sends ``nbytes`` of the pattern, then half-closes and waits for the peer to close."""
    # One period of the pattern is 251 * 256 bytes long: send slices of a precomputed block.
    period = 251 * 256
    block = pattern(0, period + CHUNK)
    sent = 0
    while sent < nbytes:
        off = sent % period
        n = min(CHUNK, nbytes - sent)
        sent += conn.send(block[off:off + n])
    conn.shutdown(socket.SHUT_WR)
    while conn.recv(CHUNK):
        pass


def _receive(s: socket.socket, start: float) -> int:
    """Reads until the peer closes, checks the pattern, prints the JSON line; the exit code."""
    period = 251 * 256
    block = pattern(0, period + CHUNK)
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


def _set_cc(s: socket.socket, cc: str | None) -> None:
    """The congestion control of ``s``, set before the connection exists: the kernel runs the
    namespace's default module's init when the connection is established, and BBR's turns
    on pacing (``bbr_init``: ``sk_pacing_status = SK_PACING_NEEDED``), which a later
    TCP_CONGESTION (``tcp_reinit_congestion_control``) does not turn off. So it is set on the
    listening socket (an accepted connection inherits it) or before ``connect``."""
    if cc:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())


def _listen(port: int, timeout: float, mptcp: bool, cc: str | None = None) -> socket.socket:
    srv = _socket(mptcp)
    _set_cc(srv, cc)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(4)
    srv.settimeout(timeout)
    return srv


def _connect(host: str, port: int, timeout: float, mptcp: bool,
             window_clamp: int | None = None, cc: str | None = None) -> tuple[socket.socket, float]:
    """Connects; the peer may not listen yet (it starts at the same time): tries again until
    the timeout. The socket and the time the successful try started. `window_clamp`: the
    largest window the socket advertises (Linux TCP_WINDOW_CLAMP, set before the SYN)."""
    first = time.monotonic()
    while True:
        start = time.monotonic()
        try:
            s = _socket(mptcp)
            _set_cc(s, cc)
            if window_clamp:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, window_clamp)
            s.settimeout(timeout)
            s.connect((host, port))
            return s, start
        except ConnectionRefusedError:
            s.close()
            if start - first > timeout:
                raise
            time.sleep(0.05)


def serve(port: int, nbytes: int, timeout: float, cc: str | None, mptcp: bool = False) -> int:
    srv = _listen(port, timeout, mptcp, cc)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            conn, _ = srv.accept()
        except (TimeoutError, socket.timeout):
            break
        _set_cc(conn, cc)
        conn.settimeout(max(0.1, end - time.monotonic()))
        try:
            _send(conn, nbytes)
        except OSError:
            pass
        finally:
            conn.close()
    return 0


def fetch(host: str, port: int, timeout: float, mptcp: bool = False, window_clamp: int | None = None) -> int:
    s, start = _connect(host, port, timeout, mptcp, window_clamp)
    s.settimeout(timeout)
    return _receive(s, start)


def push(host: str, port: int, nbytes: int, timeout: float, cc: str | None, mptcp: bool = False) -> int:
    s, _ = _connect(host, port, timeout, mptcp, cc=cc)
    s.settimeout(timeout)
    try:
        _send(s, nbytes)
    except OSError:
        return 1
    finally:
        s.close()
    return 0


def sink(port: int, timeout: float, mptcp: bool = False) -> int:
    # The listener stays open while the connection lasts: with MPTCP it is the socket that
    # takes the peer's new subflows (MP_JOIN, RFC 8684 §3.2) for the connection it accepted.
    with _listen(port, timeout, mptcp) as srv:
        try:
            conn, _ = srv.accept()
        except (TimeoutError, socket.timeout):
            print(json.dumps({"bytes": 0, "intact": False, "seconds": 0.0, "goodput_bps": 0.0}), flush=True)
            return 1
        conn.settimeout(timeout)
        return _receive(conn, time.monotonic())


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
    f.add_argument("--window-clamp", type=int, default=None, metavar="BYTES",
                   help="largest receive window to advertise (TCP_WINDOW_CLAMP), instead of autotuning")
    p = sub.add_parser("push", help="connect and send --bytes N (the connecting side sends)")
    p.add_argument("host")
    p.add_argument("--port", type=int, default=5001)
    p.add_argument("--bytes", type=int, required=True)
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("--cc", default=None, help="congestion control of the sending socket (TCP_CONGESTION)")
    p.add_argument("--mptcp", action="store_true", help="a Multipath TCP socket (IPPROTO_MPTCP)")
    k = sub.add_parser("sink", help="accept one connection, read and check it, print the JSON line")
    k.add_argument("--port", type=int, default=5001)
    k.add_argument("--timeout", type=float, default=30.0)
    k.add_argument("--mptcp", action="store_true", help="a Multipath TCP socket (IPPROTO_MPTCP)")
    args = ap.parse_args(argv)
    if args.cmd == "serve":
        return serve(args.port, args.bytes, args.timeout, args.cc, args.mptcp)
    if args.cmd == "push":
        return push(args.host, args.port, args.bytes, args.timeout, args.cc, args.mptcp)
    if args.cmd == "sink":
        return sink(args.port, args.timeout, args.mptcp)
    return fetch(args.host, args.port, args.timeout, args.mptcp, args.window_clamp)


if __name__ == "__main__":
    sys.exit(main())
