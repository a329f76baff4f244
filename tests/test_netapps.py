"""``hosim.netapps``: the congestion control a sender asks for is the connection's from its start."""

from __future__ import annotations

import socket

import pytest

from hosim import netapps

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", None)

pytestmark = pytest.mark.skipif(TCP_CONGESTION is None, reason="TCP_CONGESTION is Linux only")


def _cc(s: socket.socket) -> bytes:
    return s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0")


def test_an_accepted_connection_starts_with_the_listeners_congestion_control() -> None:
    # Set after accept(), the namespace's default module would have run its init at the
    # handshake (BBR's turns pacing on for good); reno is allowed to every user.
    with netapps._listen(0, 2.0, False, "reno") as srv:
        assert _cc(srv) == b"reno"
        client, _ = netapps._connect("127.0.0.1", srv.getsockname()[1], 2.0, False, cc="reno")
        conn, _ = srv.accept()
        with client, conn:
            assert (_cc(conn), _cc(client)) == (b"reno", b"reno")
