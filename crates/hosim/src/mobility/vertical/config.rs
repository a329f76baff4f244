//! The `[vertical]` scenario section: the Fig. 1 topology of Sinky & Hamdaoui (a mobile
//! source with a WiFi and a cellular interface, a common destination), its periodic handoffs
//! and the sender's reaction (docs/reproductions/vertical-handoff.md).
//!
//! The paper gives the access rates (54 Mb/s WiFi with 19 Mb/s achievable, 5.5 Mb/s cellular
//! with 3 Mb/s achievable) and says both networks were built in ns-3; nothing else about the
//! links. `links` selects what an access network is:
//! - `"p2p"` (the default): a rate-limited point-to-point link at `wifi_bps` / `cellular_bps`
//!   (the achievable rates by default, 19 and 3 Mb/s) with the access delay on it;
//! - `"802.11"` (the preset): an 802.11 BSS (`net::wifi`), the access point and the mobile
//!   sharing one half-duplex medium; Network 1 is 802.11g (ERP-OFDM, short slot) at the data
//!   rate `wifi_bps`, Network 2 802.11b (HR/DSSS, long preamble) at `cellular_bps`, so the
//!   achievable rates are an outcome of the MAC. The air itself has no delay (metres, as in
//!   ns-3, whose ACK timeout would not allow milliseconds): the access delay sits on the wired
//!   hop behind the access point, so the base RTTs are the same as with `"p2p"`.
//!
//! Other defaults (docs/reproductions/vertical-handoff.md says why): one-way access delay 5 ms
//! (WiFi) and 50 ms (cellular); a 100 Mb/s, 10 ms wired hop from each access to the
//! destination; 100-packet DropTail queues (the ns-3 default `DropTailQueue` limit, the paper's
//! simulator).

use serde::Deserialize;

use crate::net::wifi::phy::{B_RATES_BPS, G_RATES_BPS};
use crate::spec::{Check, ScenarioError};

/// The two access networks of Fig. 1.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// Network 1: WiFi, low delay, high rate.
    Wifi,
    /// Network 2: cellular, high delay, low rate.
    Cellular,
}

impl Network {
    pub fn other(self) -> Network {
        match self {
            Network::Wifi => Network::Cellular,
            Network::Cellular => Network::Wifi,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Network::Wifi => 0,
            Network::Cellular => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Network::Wifi => "wifi",
            Network::Cellular => "cellular",
        }
    }
}

/// Section III: how the old link ends.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Make before break: packets already queued on the old interface are still sent.
    Soft,
    /// Break before make: packets queued on the old interfaces (both directions) are lost.
    Hard,
}

/// What an access network is (see the module comment).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum Links {
    /// A rate-limited point-to-point link per network.
    #[serde(rename = "p2p")]
    P2p,
    /// An 802.11 BSS per network: 802.11g for WiFi, 802.11b for cellular.
    #[serde(rename = "802.11")]
    Ieee80211,
}

/// The sender's reaction to the cross-layer notification.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Adaptation {
    /// TCP NewReno (TCP-NR): the notification is ignored.
    None,
    /// TCP-CLAH, Algorithms 1 and 2.
    Clah,
    /// Freeze-TCP (Goff et al.): the destination advertises a zero window `freeze_warning_s`
    /// before each handoff and sends three ACKs reopening it right after; the sender is
    /// standard TCP (its persist mode, `tcp/sender/persist.rs`).
    Freeze,
    /// Daniel & Kojo's cross-layer TCP (`tcp/sender/clah.rs`).
    DanielKojo,
}

impl Adaptation {
    pub fn name(self) -> &'static str {
        match self {
            Adaptation::None => "none",
            Adaptation::Clah => "clah",
            Adaptation::Freeze => "freeze",
            Adaptation::DanielKojo => "daniel-kojo",
        }
    }
}

/// CLAH's "path BDP".
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ClahBdp {
    /// BDP_UB = S x N (eq. 3).
    UpperBound,
    /// Access rate x base RTT of the new path.
    Path,
}

/// `[vertical]`. Rates in bit/s, times in seconds, queues in packets.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerticalSection {
    /// Time between handoffs; the first one is at `interval_s`.
    #[serde(default = "d_interval_s")]
    pub interval_s: f64,
    /// The network the mobile starts in.
    #[serde(default = "d_first")]
    pub first: Network,
    #[serde(default = "d_mode")]
    pub mode: Mode,
    /// Point-to-point links or 802.11 networks (`wifi_bps` and `cellular_bps` are then the
    /// PHY data rates).
    #[serde(default = "d_links")]
    pub links: Links,
    #[serde(default = "d_adaptation")]
    pub adaptation: Adaptation,
    #[serde(default = "d_clah_bdp")]
    pub clah_bdp: ClahBdp,
    /// When dupack detection resumes after a CLAH handoff to low delay: absent, when all data
    /// sent before the handoff is acknowledged; else this many seconds after the handoff.
    pub clah_dupack_resume_s: Option<f64>,
    #[serde(default = "d_wifi_bps")]
    pub wifi_bps: f64,
    #[serde(default = "d_wifi_delay_s")]
    pub wifi_delay_s: f64,
    #[serde(default = "d_queue_pkts")]
    pub wifi_queue_pkts: u32,
    #[serde(default = "d_cellular_bps")]
    pub cellular_bps: f64,
    #[serde(default = "d_cellular_delay_s")]
    pub cellular_delay_s: f64,
    #[serde(default = "d_queue_pkts")]
    pub cellular_queue_pkts: u32,
    /// The wired hop from each access network to the destination.
    #[serde(default = "d_core_bps")]
    pub core_bps: f64,
    #[serde(default = "d_core_delay_s")]
    pub core_delay_s: f64,
    #[serde(default = "d_core_queue_pkts")]
    pub core_queue_pkts: u32,
    /// Freeze-TCP's warning period: how long before each handoff the destination advertises a
    /// zero window. Absent: the base RTT of the network the mobile is leaving.
    pub freeze_warning_s: Option<f64>,
    /// The mobile's socket send buffer (unsent and unacknowledged data); an application write
    /// that does not fit is refused (ns-3 `TcpSocket::SndBufSize`, default 131072 bytes).
    #[serde(default = "d_sndbuf_bytes")]
    pub sndbuf_bytes: u64,
    /// Rate of the source application at the mobile.
    #[serde(default = "d_app_rate_bps")]
    pub app_rate_bps: f64,
    /// Bin width of the delay and jitter series in the summary.
    #[serde(default = "d_series_bin_s")]
    pub series_bin_s: f64,
}

fn d_interval_s() -> f64 {
    15.0
}
fn d_first() -> Network {
    Network::Wifi
}
fn d_mode() -> Mode {
    Mode::Soft
}
fn d_links() -> Links {
    Links::P2p
}
fn d_adaptation() -> Adaptation {
    Adaptation::None
}
fn d_clah_bdp() -> ClahBdp {
    ClahBdp::UpperBound
}
fn d_wifi_bps() -> f64 {
    19e6
}
fn d_wifi_delay_s() -> f64 {
    0.005
}
fn d_cellular_bps() -> f64 {
    3e6
}
fn d_cellular_delay_s() -> f64 {
    0.050
}
fn d_queue_pkts() -> u32 {
    100
}
fn d_core_bps() -> f64 {
    100e6
}
fn d_core_delay_s() -> f64 {
    0.010
}
fn d_core_queue_pkts() -> u32 {
    1000
}
fn d_sndbuf_bytes() -> u64 {
    131_072
}
fn d_app_rate_bps() -> f64 {
    20e6
}
fn d_series_bin_s() -> f64 {
    0.1
}

impl Default for VerticalSection {
    fn default() -> Self {
        toml::from_str("").expect("all vertical keys have defaults")
    }
}

impl VerticalSection {
    /// (rate, one-way delay, queue) of a network's access link.
    pub fn access(&self, n: Network) -> (f64, f64, u32) {
        match n {
            Network::Wifi => (self.wifi_bps, self.wifi_delay_s, self.wifi_queue_pkts),
            Network::Cellular => (self.cellular_bps, self.cellular_delay_s, self.cellular_queue_pkts),
        }
    }

    /// Freeze-TCP's warning period before leaving network `n`, seconds.
    pub fn freeze_warning_s(&self, n: Network) -> f64 {
        self.freeze_warning_s.unwrap_or_else(|| self.base_rtt_s(n))
    }

    /// Round-trip propagation delay through network `n`, seconds.
    pub fn base_rtt_s(&self, n: Network) -> f64 {
        2.0 * (self.access(n).1 + self.core_delay_s)
    }

    pub fn validate(&self, c: &Check, duration_s: f64) -> Result<(), ScenarioError> {
        c.positive("vertical.interval_s", self.interval_s)?;
        // A handoff every interval_s: each is an event and a log record, so their number is bounded.
        let most = crate::mobility::MAX_HANDOVERS_PER_RUN;
        let min_s = (duration_s / most).max(1e-6);
        if self.interval_s < min_s {
            let m = format!(
                "must be >= {min_s:e} s (>= 1 us, and at most {most:e} handoffs in the run: duration_s / interval_s), got {:e} s",
                self.interval_s
            );
            return Err(c.err("vertical.interval_s", &m));
        }
        for (k, v) in [
            ("wifi_bps", self.wifi_bps),
            ("cellular_bps", self.cellular_bps),
            ("core_bps", self.core_bps),
            ("app_rate_bps", self.app_rate_bps),
        ] {
            c.positive(&format!("vertical.{k}"), v)?;
            if v < 1.0 {
                return Err(c.err(&format!("vertical.{k}"), &format!("must be >= 1 bit/s, got {v}")));
            }
        }
        if self.app_rate_bps > crate::app::MAX_RATE_BPS {
            let m = format!("must be at most {:e} bit/s, got {}", crate::app::MAX_RATE_BPS, self.app_rate_bps);
            return Err(c.err("vertical.app_rate_bps", &m));
        }
        if self.links == Links::Ieee80211 {
            for (k, v, rates, std) in [
                ("wifi_bps", self.wifi_bps, &G_RATES_BPS[..], "802.11g"),
                ("cellular_bps", self.cellular_bps, &B_RATES_BPS[..], "802.11b"),
            ] {
                if !rates.contains(&(v.round() as u64)) || v.fract() != 0.0 {
                    let list: Vec<String> = rates.iter().map(|r| format!("{r:e}")).collect();
                    let m = format!("with links = \"802.11\" must be an {std} rate ({}), got {v:e}", list.join(", "));
                    return Err(c.err(&format!("vertical.{k}"), &m));
                }
            }
        }
        c.non_negative("vertical.wifi_delay_s", self.wifi_delay_s)?;
        c.non_negative("vertical.cellular_delay_s", self.cellular_delay_s)?;
        c.non_negative("vertical.core_delay_s", self.core_delay_s)?;
        c.at_least("vertical.wifi_queue_pkts", self.wifi_queue_pkts as u64, 1)?;
        c.at_least("vertical.cellular_queue_pkts", self.cellular_queue_pkts as u64, 1)?;
        c.at_least("vertical.core_queue_pkts", self.core_queue_pkts as u64, 1)?;
        c.positive("vertical.series_bin_s", self.series_bin_s)?;
        if duration_s / self.series_bin_s > 1e6 {
            return Err(c.err("vertical.series_bin_s", &format!("more than 1e6 bins over duration_s = {duration_s}")));
        }
        if let Some(t) = self.clah_dupack_resume_s {
            c.positive("vertical.clah_dupack_resume_s", t)?;
        }
        if let Some(t) = self.freeze_warning_s {
            c.positive("vertical.freeze_warning_s", t)?;
            if t >= self.interval_s {
                let msg = format!("must be below vertical.interval_s = {}, got {t}", self.interval_s);
                return Err(c.err("vertical.freeze_warning_s", &msg));
            }
        }
        c.at_least("vertical.sndbuf_bytes", self.sndbuf_bytes, 1)?;
        Ok(())
    }
}

/// Node names of the template.
pub const MOBILE: &str = "mobile";
pub const DEST: &str = "dest";
/// The access point of each network, by `Network::index`.
pub const ACCESS: [&str; 2] = ["ap", "bs"];
