"""Packet capture (`hosim run --pcap`) of an LTE X2 handover run, read back with dpkt.

pcapng blocks are walked here (dpkt's pcapng reader takes one interface only); the IPv4, TCP,
UDP and GTP-U headers inside are parsed with dpkt and the checksums recomputed independently.
"""

from __future__ import annotations

import functools
import json
import struct
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

dpkt = pytest.importorskip("dpkt")

from hosim.cli import main  # noqa: E402

SETS = ["--set", "duration_s=2.6"]

#: TEIDs of the LTE X2 mechanism (crates/hosim/src/mobility/lte_x2/gtp.rs).


def s1u_teid(enb: int, ue: int) -> int:
    return 0x1000_0000 | (enb << 16) | ue


def x2_teid(ho: int) -> int:
    return 0x2000_0000 | ho


def ones_complement_ok(data: bytes) -> bool:
    """RFC 1071: the 16-bit one's complement sum over data including its checksum is 0xffff."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total == 0xFFFF


def transport_ok(buf: bytes) -> bool:
    """The TCP or UDP checksum of the IPv4 packet ``buf``, over the RFC 793 pseudo-header."""
    ihl, total = (buf[0] & 0x0F) * 4, struct.unpack_from("!H", buf, 2)[0]
    raw = buf[ihl:total]
    pseudo = buf[12:20] + struct.pack("!BBH", 0, buf[9], len(raw))
    return ones_complement_ok(pseudo + raw)


@functools.lru_cache(maxsize=1)
def read_pcapng(path: Path) -> tuple[list[tuple[str, int]], list[tuple[int, int, bytes]]]:
    """(interfaces as (name, tsresol), packets as (interface id, timestamp, bytes))."""
    data = path.read_bytes()
    interfaces: list[tuple[str, int]] = []
    packets: list[tuple[int, int, bytes]] = []
    at = 0
    while at < len(data):
        block_type, length = struct.unpack_from("<II", data, at)
        body = data[at + 8 : at + length - 4]
        if block_type == 1:  # Interface Description Block
            name, tsresol, opt = "", 6, 8
            while opt + 4 <= len(body):
                code, olen = struct.unpack_from("<HH", body, opt)
                value = body[opt + 4 : opt + 4 + olen]
                if code == 2:
                    name = value.decode()
                elif code == 9:
                    tsresol = value[0]
                elif code == 0:
                    break
                opt += 4 + (olen + 3) // 4 * 4
            interfaces.append((name, tsresol))
        elif block_type == 6:  # Enhanced Packet Block
            iface, ts_hi, ts_lo, caplen, _orig = struct.unpack_from("<IIIII", body, 0)
            packets.append((iface, ts_hi << 32 | ts_lo, body[20 : 20 + caplen]))
        at += length
    return interfaces, packets


@pytest.fixture(scope="module")
def lte_capture(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("lte-capture")
    assert main(["run", "lte-x2", *SETS, "--out", str(out), "--no-traces", "--pcap", "all"]) == 0
    read_pcapng.cache_clear()
    return json.loads((out / "summary.json").read_text()), out


def test_pcapng_has_one_nanosecond_interface_per_link_and_packets_as_transmitted(lte_capture: Any) -> None:
    summary, out = lte_capture
    interfaces, packets = read_pcapng(out / "capture.pcapng")
    links = summary["capture"]["links"]
    assert [name for name, _ in interfaces] == [link["name"] for link in links]
    assert all(tsresol == 9 for _, tsresol in interfaces)
    counts = Counter(iface for iface, _, _ in packets)
    for i, link in enumerate(links):
        assert counts[i] == link["packets"] == link["transmitted"] + link["in_service_at_end"], link["name"]
    stamps = [ts for _, ts, _ in packets]
    assert stamps == sorted(stamps) and stamps[-1] <= summary["sim_time_s"] * 1e9


def test_every_ipv4_tcp_and_udp_checksum_is_valid(lte_capture: Any) -> None:
    _, out = lte_capture
    _, packets = read_pcapng(out / "capture.pcapng")
    checked = Counter()
    for _, _, buf in packets:
        ip = dpkt.ip.IP(buf)
        assert ones_complement_ok(buf[: ip.hl * 4])
        assert transport_ok(buf)
        checked[ip.p] += 1
        if ip.p == dpkt.ip.IP_PROTO_UDP:
            gtp = bytes(ip.data.data)
            if gtp[1] == 255:  # G-PDU: the inner packet
                inner = dpkt.ip.IP(gtp[8:])
                assert ones_complement_ok(gtp[8 : 8 + inner.hl * 4]) and transport_ok(gtp[8:])
                checked["inner"] += 1
    assert checked[dpkt.ip.IP_PROTO_TCP] > 1000 and checked["inner"] > 1000


def test_gtpu_teids_and_end_markers_follow_the_handover(lte_capture: Any) -> None:
    summary, out = lte_capture
    interfaces, packets = read_pcapng(out / "capture.pcapng")
    names = [name for name, _ in interfaces]
    teids: dict[str, Counter[tuple[int, int]]] = defaultdict(Counter)
    end_markers: dict[str, list[float]] = defaultdict(list)
    for iface, ts, buf in packets:
        ip = dpkt.ip.IP(buf)
        if ip.p != dpkt.ip.IP_PROTO_UDP:
            continue
        udp = ip.data
        assert (udp.sport, udp.dport) == (2152, 2152)
        flags, msg, length, teid = struct.unpack("!BBHI", bytes(udp.data)[:8])
        assert flags == 0x30 and length == len(udp.data) - 8
        teids[names[iface]][(msg, teid)] += 1
        if msg == 254:
            end_markers[names[iface]].append(ts / 1e9)
    ue_ref, ho = 0, 0
    # S-GW -> source eNodeB: the reference UE's S1-U bearer, then the S-GW's end marker.
    assert set(teids["router->senb"]) == {(255, s1u_teid(0, ue_ref)), (254, s1u_teid(0, ue_ref))}
    # Source -> target over X2: forwarded packets and the forwarded end marker.
    assert set(teids["senb->router"]) == {(255, x2_teid(ho)), (254, x2_teid(ho))}
    # The target's downlink: its own UEs (1..5), the reference UE after the path switch, X2.
    assert {t for _, t in teids["router->tenb"]} == {s1u_teid(1, u) for u in range(6)} | {x2_teid(ho)}
    h = summary["handovers"][0]
    assert len(end_markers["router->senb"]) == 1 and len(end_markers["senb->router"]) == 1
    # The S-GW sends its end marker when it switches the path; it reaches the source eNodeB
    # (end_marker_at_source_s) after the router queue and the link delay.
    assert h["sgw_switch_s"] <= end_markers["router->senb"][0] < h["end_marker_at_source_s"]
    assert h["end_marker_at_source_s"] == pytest.approx(end_markers["senb->router"][0], abs=1e-9)


def test_tcp_options_and_ports_as_sent(lte_capture: Any) -> None:
    summary, out = lte_capture
    _, packets = read_pcapng(out / "capture.pcapng")
    syns, sacks = [], 0
    for _, _, buf in packets:
        ip = dpkt.ip.IP(buf)
        if ip.p != dpkt.ip.IP_PROTO_TCP:
            continue
        tcp = ip.data
        opts = dict(dpkt.tcp.parse_opts(tcp.opts))
        if tcp.flags & dpkt.tcp.TH_SYN and not tcp.flags & dpkt.tcp.TH_ACK:
            syns.append((tcp.sport, tcp.dport, opts))
        sacks += dpkt.tcp.TCP_OPT_SACK in opts
    # A SYN is captured on every link it crosses outside a tunnel: once per flow and link.
    assert {sport for sport, _, _ in syns} == {10000 + i for i in range(len(summary["flows"]))}
    for _, dport, opts in syns:
        assert dport == 5001 and struct.unpack("!H", opts[dpkt.tcp.TCP_OPT_MSS]) == (1460,)
        assert dpkt.tcp.TCP_OPT_SACKOK not in opts, "the preset runs Reno: no SACK"
    assert sacks == 0


def test_classic_pcap_writes_one_file_per_link_with_microsecond_stamps(tmp_path: Path) -> None:
    code = main(["run", "lte-x2", *SETS, "--out", str(tmp_path), "--no-traces",
                 "--pcap", "router->senb,senb->router", "--pcap-format", "pcap",
                 "--set", "tcp.recovery=sack"])
    assert code == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["capture"]["files"] == ["router-%3Esenb.pcap", "senb-%3Erouter.pcap"]
    for link in summary["capture"]["links"]:
        with open(tmp_path / link["file"], "rb") as f:
            reader = dpkt.pcap.Reader(f)
            assert reader.datalink() == dpkt.pcap.DLT_RAW or reader.datalink() == 101
            frames = list(reader)
        assert len(frames) == link["packets"], link["name"]


def test_pcap_without_out_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "lte-x2", "--pcap", "all"]) == 2
    assert "--pcap needs --out DIR" in capsys.readouterr().err


def test_unknown_link_is_an_input_error_naming_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "lte-x2", *SETS, "--out", str(tmp_path), "--pcap", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert "capture.links" in err and "nowhere" in err


def test_scenario_capture_section_with_snaplen_keeps_the_original_length(tmp_path: Path) -> None:
    sets = ["--set", "duration_s=1", "--set", "lte_x2.handover_at_s=0.5",
            "--set", 'capture.links=["srv_ue_ref->sgw"]', "--set", "capture.snaplen=64"]
    assert main(["run", "lte-x2", *sets, "--out", str(tmp_path), "--no-traces"]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["capture"]["snaplen"] == 64
    with open(tmp_path / "capture.pcapng", "rb") as f:
        data = f.read()
    lengths = []
    at = 0
    while at < len(data):
        block_type, length = struct.unpack_from("<II", data, at)
        if block_type == 6:
            lengths.append(struct.unpack_from("<II", data, at + 20))
        at += length
    assert len(lengths) == summary["capture"]["links"][0]["packets"]
    assert all(cap == min(orig, 64) for cap, orig in lengths)
    assert max(orig for _, orig in lengths) == 20 + 20 + 1460


def test_api_run_takes_a_capture(tmp_path: Path) -> None:
    import hosim
    from hosim.api import Capture

    result = hosim.run("dumbbell", overrides={"duration_s": 1}, traces=False, capture=Capture(tmp_path, ["all"]))
    assert result.summary["capture"]["files"] == ["capture.pcapng"]
    assert (tmp_path / "capture.pcapng").stat().st_size > 0
