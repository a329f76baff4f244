"""The ns-3.44 setup shared by the 802.11 referees: bench/ns3/wifi/*.py (the medium against
hosim's) and bench/ns3/papers/vertical.py (the TCP-CLAH paper's two networks). Benchmark only.

- `install_bss`: one infrastructure BSS on a YansWifiChannel of its own: YansWifiPhy,
  ConstantRateWifiManager at the data rate with control frames at the standard's lowest rate
  (no rate control), RTS/CTS off (RtsCtsThreshold above every frame), no QoS (plain DCF), and
  one beacon every 1024 TU (about 1 s) without jitter instead of every 100 TU: hosim's medium
  carries no management frames, and a beacon at 1 Mb/s every 102.4 ms takes about 1 % of the
  airtime. Beacons cannot be switched off: a station disassociates after
  StaWifiMac::MaxMissedBeacons, and the first beacon tells 802.11g stations to use the short
  slot.
- `newreno_defaults`: ns-3's TcpNewReno with TcpClassicRecovery (the defaults are CUBIC and
  PRR), no timestamps, delayed ACK every 2nd segment, equal send and receive buffers, and the
  WifiMacQueue's size and MaxDelay (500 ms by default, a drop of stale frames no standard asks
  for). The callers add their own defaults on top.

Each caller imports this file by path (`sys.path`), as the scripts here run from their folder.
"""

from __future__ import annotations

#: ns-3's WifiMode name of each rate of the two standards.
DSSS_MODES = {1e6: "DsssRate1Mbps", 2e6: "DsssRate2Mbps", 5.5e6: "DsssRate5_5Mbps", 11e6: "DsssRate11Mbps"}


def mode_name(std: str, rate: float) -> str:
    if std == "802.11g":
        return f"ErpOfdmRate{int(rate / 1e6)}Mbps"
    return DSSS_MODES[rate]


def install_bss(ns, std: str, rate: float, ap, stas, ssid_name: str):
    """One BSS of node `ap` and the node or NodeContainer `stas` at `rate` of standard `std`
    ("802.11g" or "802.11b"), on a channel of its own. Returns (the AP's devices, the stations'
    devices), NetDeviceContainers. Positions, addresses and queue discs are the caller's."""
    chan = ns.YansWifiChannelHelper.Default()
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(chan.Create())
    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211g if std == "802.11g" else ns.WIFI_STANDARD_80211b)
    ctrl = "ErpOfdmRate6Mbps" if std == "802.11g" else "DsssRate1Mbps"
    wifi.SetRemoteStationManager(
        "ns3::ConstantRateWifiManager", "DataMode", ns.StringValue(mode_name(std, rate)),
        "ControlMode", ns.StringValue(ctrl), "RtsCtsThreshold", ns.UintegerValue(65535),
    )
    mac = ns.WifiMacHelper()
    ssid = ns.Ssid(ssid_name)
    beacon = ns.TimeValue(ns.MicroSeconds(1024 * 1024))
    mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid), "BeaconInterval", beacon,
                "EnableBeaconJitter", ns.BooleanValue(False))
    ap_dev = wifi.Install(phy, mac, ap)
    mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid))
    sta_dev = wifi.Install(phy, mac, stas)
    return ap_dev, sta_dev


def newreno_defaults(ns, *, mss: int, sack: bool, buf_bytes: int, wifi_queue_pkts: int,
                     wifi_queue_delay_s: float) -> None:
    """Config defaults every referee here shares: see the module's docstring."""
    D = ns.Config.SetDefault
    D("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(wifi_queue_delay_s)))
    D("ns3::WifiMacQueue::MaxSize", ns.StringValue(f"{wifi_queue_pkts}p"))
    D("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpNewReno")))
    D("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))
    D("ns3::TcpSocket::SegmentSize", ns.UintegerValue(mss))
    D("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    D("ns3::TcpSocket::SndBufSize", ns.UintegerValue(buf_bytes))
    D("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(buf_bytes))
    D("ns3::TcpSocketBase::Sack", ns.BooleanValue(sack))
    D("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))


def write_rows(rows: list, path: str | None) -> None:
    """The scripts' results file (JSON, one object per case), when asked for."""
    import json

    if path:
        with open(path, "w") as f:
            json.dump(rows, f, indent=1)
