"""``hosim emulate`` with the kernel's TCP (issue 35 §6). These tests need root and
/dev/net/tun; without them they skip with the reason, and under ``HOSIM_REQUIRE_ROOT_TESTS=1``
(set by .ci/run, which runs as root) that skip is a failure instead. Each run is a few seconds.

The checks that need no root (bad input: one line, exit 2) run everywhere."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import hosim

pytestmark = pytest.mark.native

PY = sys.executable
SERVE = f"{PY} -m hosim.netapps serve --timeout 15 --bytes {{nbytes}}"
FETCH = f"{PY} -m hosim.netapps fetch {{server}} --timeout 15"


def _why_not_root() -> str | None:
    if sys.platform != "linux":
        return "hosim emulate needs Linux"
    if os.geteuid() != 0:
        return "hosim emulate needs root (network namespaces, TUN devices)"
    if not os.path.exists("/dev/net/tun"):
        return "hosim emulate needs /dev/net/tun"
    if shutil.which("ip") is None:
        return "hosim emulate needs the ip command (iproute2)"
    return None


@pytest.fixture
def root() -> None:
    why = _why_not_root()
    if why is None:
        return
    if os.environ.get("HOSIM_REQUIRE_ROOT_TESTS") == "1":
        pytest.fail(f"HOSIM_REQUIRE_ROOT_TESTS=1 but: {why}")
    pytest.skip(why)


def _namespaces(pid: int | None = None) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    names = [line.split()[0] for line in out.splitlines() if line.split()]
    prefix = "hosim-emu-" if pid is None else f"hosim-emu-{pid}-"
    return [n for n in names if n.startswith(prefix)]


def _client_result(outdir: Path) -> dict[str, Any]:
    lines = (outdir / "client.out").read_text().strip().splitlines()
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _pcap_bytes(path: Path) -> int:
    """The bytes of the packets in a classic pcap file (each record's captured length)."""
    data = path.read_bytes()
    order = "big" if data[:4] in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d") else "little"
    total, at = 0, 24
    while at + 16 <= len(data):
        incl = int.from_bytes(data[at + 8:at + 12], order)
        total += incl
        at += 16 + incl
    return total


def _env() -> dict[str, str]:
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(hosim.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_root, *filter(None, [env.get("PYTHONPATH")])])
    return env


def test_emulated_transfer_through_a_10_mbit_link_reaches_the_rate(root: None, tmp_path: Path) -> None:
    nbytes = 4_000_000
    s = hosim.emulate(
        "dumbbell",
        overrides={"dumbbell.flows": 1, "dumbbell.bottleneck_bps": 10e6, "duration_s": 8.0},
        server=SERVE.format(nbytes=nbytes), client=FETCH, app_output_dir=tmp_path,
    )
    got = _client_result(tmp_path)
    assert got["intact"] and got["bytes"] == nbytes
    # The payload's share of a full-sized packet (1448 of 1500 bytes: 20 IP, 32 TCP with
    # timestamps) is what a 10 Mb/s link can give an application.
    payload_rate = 10e6 * 1448 / 1500
    assert 0.9 * payload_rate <= got["goodput_bps"] <= 1.01 * payload_rate, got
    emu = s["emulation"]
    assert emu["ended_by"] == "client"
    assert emu["flows"][0]["forward"]["delivered_packets"] > nbytes // 1500
    assert s["invariants"]["ok"]
    assert emu["lateness"]["packets"] > 0 and emu["lateness"]["p50_us"] > 0
    sender = emu["hosts"][0]
    assert sender["nstat"]["TcpOutSegs"] > nbytes // 1448
    assert _namespaces(os.getpid()) == []


def test_emulated_x2_handover_forwards_every_byte_in_order_and_drops_nothing(root: None, tmp_path: Path) -> None:
    nbytes = 3_000_000
    s = hosim.emulate(
        "lte-x2",
        overrides={"lte_x2.target_ues": 1, "lte_x2.handover_at_s": 1.0, "duration_s": 8.0},
        server=SERVE.format(nbytes=nbytes), client=FETCH, app_output_dir=tmp_path,
        capture_dir=tmp_path / "pcap", capture_links=["senb->router", "router->tenb"],
    )
    got = _client_result(tmp_path)
    assert got["intact"] and got["bytes"] == nbytes, got
    (ho,) = s["handovers"]
    assert ho["forwarded_packets"] > 0, "the transfer was under way at the handover"
    assert ho["end_marker_at_target_s"] is not None
    for enb in s["lte_x2"]["enbs"]:
        assert enb["queue_drops"] == 0
        assert all(q["dropped"] == 0 for q in enb["ue_queues"])
    assert s["invariants"]["packets_dropped"] == 0
    # The forwarded packets crossed the X2 path through the core router: real bytes captured.
    assert (tmp_path / "pcap" / "senb-_router.pcap").stat().st_size > 24
    assert _namespaces(os.getpid()) == []


def test_emulate_out_writes_the_traces_of_hosim_run_with_the_kernels_goodput(root: None, tmp_path: Path) -> None:
    import pandas as pd

    nbytes = 1_000_000
    out = tmp_path / "out"
    p = subprocess.Popen(
        [PY, "-m", "hosim.cli", "emulate", "dumbbell", "--set", "dumbbell.flows=2", "--set",
         "dumbbell.bottleneck_bps=10e6", "--set", "duration_s=8", "--set", "trace.interval_s=0.5",
         "--server", SERVE.format(nbytes=nbytes), "--client", FETCH, "--out", str(out), "--json",
         "--pcap", "s0->left,d0->right"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
    )
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 0, stderr
    assert _namespaces(p.pid) == []
    s = json.loads(stdout.strip().splitlines()[-1])  # after the applications' own output
    emulated = [f["name"] for f in s["flows"] if f["emulated"]]
    simulated = [f["name"] for f in s["flows"] if not f["emulated"]]
    assert len(emulated) == 1 and len(simulated) == 1
    assert s["emulation"]["ended_by"] == "client", "the transfer was complete"
    assert json.loads((out / "summary.json").read_text())["flows"] == s["flows"]
    # The same files and columns as `hosim run --out`.
    goodput = pd.read_parquet(out / "goodput.parquet")
    assert list(goodput.columns) == ["time_s", "flow", "goodput_bps"]
    queue = pd.read_parquet(out / "queue.parquet")
    assert list(queue.columns) == ["time_s", "queue", "len_pkts"] and len(queue) > 0
    # The simulated flow has its hosim sender's traces; the kernel's flow has none.
    cwnd = pd.read_parquet(out / "cwnd.parquet")
    assert set(cwnd["flow"]) == set(simulated)
    # The emulated flow's goodput rows: what the receiving kernel acknowledged in order, the
    # whole transfer (and its FIN's one sequence number), in 0.5 s bins until the run ended.
    mine = goodput[goodput["flow"] == emulated[0]]
    assert len(mine) == math.ceil(s["emulation"]["duration_s"] / 0.5)
    acked = round(float((mine["goodput_bps"] * 0.5 / 8).sum()))
    assert nbytes <= acked <= nbytes + 1, acked
    # The capture of a link a kernel sends into holds every packet the link carried, also those
    # that found it idle and started at once (the receiver's ACKs).
    tx = {q["name"]: q["tx_bytes"] for q in s["queues"]}
    for link, name in (("s0->left", "s0-_left.pcap"), ("d0->right", "d0-_right.pcap")):
        captured = _pcap_bytes(out / name)
        assert tx[link] > 0 and tx[link] <= captured <= tx[link] + 1500, (link, captured, tx[link])


def test_a_mechanism_inside_hosims_tcp_says_it_needs_simulated_endpoints(
        hosim_cli: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    r = hosim_cli("emulate", "vertical", "--set", "vertical.adaptation=clah")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "vertical.adaptation" in lines[0] and "simulated endpoints" in lines[0]


def test_without_root_emulate_says_so_in_one_line() -> None:
    # Not root: as a user of the machine, or in a new user namespace (uid "nobody" there,
    # which can still read this Python's files).
    cmd = [PY, "-m", "hosim.cli", "emulate", "dumbbell"]
    if os.geteuid() == 0:
        if shutil.which("unshare") is None:
            pytest.skip("needs unshare (util-linux) to run without root")
        cmd = ["unshare", "--user", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=_env())
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs root" in lines[0]


def test_ctrl_c_removes_the_namespaces_and_a_killed_run_s_are_removed_next_time(root: None, tmp_path: Path) -> None:
    def start() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [PY, "-m", "hosim.cli", "emulate", "dumbbell", "--set", "dumbbell.flows=1", "--set", "duration_s=20",
             "--client", "sleep 30"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
        )

    def wait_for_namespaces(p: subprocess.Popen[str]) -> list[str]:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            names = _namespaces(p.pid)
            if len(names) == 2 and all(Path(f"/var/run/netns/{n}").exists() for n in names):
                time.sleep(0.5)  # the loop has started
                return names
            time.sleep(0.05)
        p.kill()
        raise AssertionError("the run created no namespaces")

    # Ctrl-C: one line, exit 130, nothing left.
    p = start()
    wait_for_namespaces(p)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130, err
    assert "interrupted" in err and len(err.strip().splitlines()) == 1
    assert _namespaces(p.pid) == []
    # SIGKILL leaves the namespaces behind; the next run finds and removes them.
    k = start()
    stale = wait_for_namespaces(k)
    k.kill()
    k.wait(timeout=10)
    assert sorted(_namespaces(k.pid)) == sorted(stale)
    s = hosim.emulate("dumbbell", overrides={"dumbbell.flows": 1}, time_limit_s=0.3)
    # Other runs' stale namespaces (another test session's killed run) may go with them.
    assert set(stale) <= set(s["emulation"]["stale_namespaces_removed"])
    assert _namespaces(os.getpid()) == []


def test_red_marks_reach_the_kernel_as_ce_in_the_real_ip_header(root: None, tmp_path: Path) -> None:
    nbytes = 2_000_000
    ecn_on = "sysctl -qw net.ipv4.tcp_ecn=1; "  # per namespace: the sender asks for ECN
    s = hosim.emulate(
        "lte-x2",
        overrides={"lte_x2.target_ues": 1, "lte_x2.router_queue": "red", "lte_x2.ecn": True,
                   "lte_x2.red_min_th_pkts": 2.0, "lte_x2.red_max_th_pkts": 10.0, "duration_s": 8.0},
        server=ecn_on + SERVE.format(nbytes=nbytes) + " --cc cubic", client=ecn_on + FETCH, app_output_dir=tmp_path,
    )
    got = _client_result(tmp_path)
    assert got["intact"] and got["bytes"] == nbytes, got
    marked = s["emulation"]["flows"][0]["forward"]["ce_marked"]
    assert marked > 0, "RED marked packets of the emulated flow"
    receiver = s["emulation"]["hosts"][1]
    # The receiving kernel read CE in the IP header: the checksum was valid after the mark.
    assert receiver["nstat"].get("IpExtInCEPkts", 0) == marked


def test_two_interfaces_carry_an_mptcp_connection_over_both_paths(root: None, tmp_path: Path) -> None:
    s = hosim.emulate(
        "vertical", overrides={"duration_s": 3.0},
        server=f"{PY} -m hosim.netapps serve --mptcp --timeout 10 --bytes 100000000",
        client=f"{FETCH} --mptcp", client_delay_s=0.0, app_output_dir=tmp_path, multipath=True,
    )
    queues = {q["name"]: q["tx_bytes"] for q in s["queues"]}
    assert queues["mobile->ap"] > 100_000 and queues["mobile->bs"] > 100_000, queues
    mobile = s["emulation"]["hosts"][0]
    assert mobile["addresses"] == ["198.18.0.1", "198.18.1.1"]
    assert mobile["nstat"].get("MPTcpExtMPJoinSynRx", 0) >= 1, "a second subflow joined"


def _pcap_records(path: Path) -> list[tuple[float, bytes]]:
    """(timestamp in s, packet) of each record of a classic pcap file."""
    data = path.read_bytes()
    order = "big" if data[:4] in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d") else "little"
    nano = data[:4] in (b"\xa1\xb2\x3c\x4d", b"\x4d\x3c\xb2\xa1")
    out, at = [], 24
    while at + 16 <= len(data):
        sec, frac, incl = (int.from_bytes(data[at + i:at + i + 4], order) for i in (0, 4, 8))
        out.append((sec + frac / (1e9 if nano else 1e6), data[at + 16:at + 16 + incl]))
        at += 16 + incl
    return out


def test_hard_handoff_mptcp_moves_to_the_new_interface_at_once_and_delivers_every_byte(
        root: None, tmp_path: Path) -> None:
    # The mobile uploads with an MPTCP socket (it opens the connection, so its path manager opens
    # the new subflow). WiFi and cellular at 4 Mb/s each, one hard handoff WiFi -> cellular at
    # 1.5 s: the transfer cannot end on WiFi (1 MB), and continues on cellular.
    handoff, nbytes = 1.5, 1_000_000
    s = hosim.emulate(
        "vertical",
        overrides={"duration_s": 6.0, "vertical.mode": "hard", "vertical.interval_s": handoff,
                   "vertical.links": "p2p", "vertical.wifi_bps": 4e6, "vertical.cellular_bps": 4e6},
        server=f"{PY} -m hosim.netapps push {{client}} --mptcp --timeout 10 --bytes {nbytes}",
        client=f"{PY} -m hosim.netapps sink --mptcp --timeout 10", client_delay_s=0.0,
        app_output_dir=tmp_path, capture_dir=tmp_path, capture_links=["mobile->bs", "bs->dest"], multipath=True,
    )
    # Bounded: the receiver got every byte, intact, and exited before the run's 6 s.
    lines = (tmp_path / "client.out").read_text().strip().splitlines()
    assert lines, "the transfer did not end within the run (stalled)"
    got = json.loads(lines[-1])
    assert got["intact"] and got["bytes"] == nbytes, got
    emu = s["emulation"]
    assert emu["ended_by"] == "client"
    # The mobile's cellular interface is down, without an endpoint, until the handoff; then the
    # WiFi interface goes down and the cellular one comes up, at the handoff's time.
    ifaces = {(i["host"], i["device"]): i["up_at_start"] for i in emu["interfaces"]}
    assert ifaces == {("mobile", "hosim0"): True, ("mobile", "hosim1"): False,
                      ("dest", "hosim0"): True, ("dest", "hosim1"): True}
    first = emu["attachments"][:2]
    assert [(a["device"], a["up"], a["at_s"]) for a in first] == [("hosim0", False, handoff), ("hosim1", True, handoff)]
    for a in first:
        assert a["errors"] == [] and a["host"] == "mobile", a
        assert 0 <= a["late_us"] <= emu["lateness"]["bound_p99_us"], a
    assert first[1]["endpoint"] == "add 198.18.1.1 dev hosim1 id 2 subflow"
    # Nothing left by the cellular interface before the handoff (the old behaviour: a join SYN
    # at the start, retried with backoff); after it, the new subflow carries data within 0.5 s.
    up = _pcap_records(tmp_path / "mobile-_bs.pcap")
    assert up and up[0][0] >= handoff, up[:1]
    data = [t for t, p in _pcap_records(tmp_path / "bs-_dest.pcap") if len(p) > 100]
    assert data and data[0] < handoff + 0.5, data[:1]
    mobile = emu["hosts"][0]
    assert mobile["nstat"].get("MPTcpExtMPJoinSynAckRx", 0) >= 1, "the cellular subflow joined"
    assert s["invariants"]["ok"]
    assert _namespaces(os.getpid()) == []
