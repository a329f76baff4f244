//! 802.11b and 802.11g PHY timing: the airtime of a frame and the interframe spaces of the
//! DCF. Clause numbers are those of IEEE Std 802.11-2016: 15 (DSSS, 1 and 2 Mb/s), 16
//! (HR/DSSS, 5.5 and 11 Mb/s, short preamble), 17 (OFDM) and 18 (ERP, the 2.4 GHz OFDM of
//! 802.11g); 9.3 (frame formats) and 10.3 (DCF) for the MAC.

use crate::engine::time::SimTime;

const US: SimTime = 1_000;

/// MAC header of a data frame (9.3.2.1: frame control, duration, three addresses, sequence
/// control) and its FCS, in octets.
pub const DATA_MAC_OVERHEAD_BYTES: u32 = 24 + 4;
/// LLC/SNAP header carrying an IP packet in a data frame (IEEE 802.2 with the SNAP header of
/// RFC 1042), in octets.
pub const LLC_SNAP_BYTES: u32 = 8;
/// An ACK frame (9.3.1.4: frame control, duration, receiver address, FCS), in octets.
pub const ACK_BYTES: u32 = 14;
/// dot11ShortRetryLimit's default (Annex C): transmission attempts of a frame before it is
/// discarded.
pub const DEFAULT_RETRY_LIMIT: u32 = 7;

/// Which PHY the medium runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standard {
    /// DSSS/HR-DSSS (Clauses 15 and 16), long or short PPDU preamble.
    B { short_preamble: bool },
    /// ERP-OFDM (Clause 18), long (20 µs) or short (9 µs) slot.
    G { short_slot: bool },
}

/// The data rates each PHY defines, in bit/s.
pub const B_RATES_BPS: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];
pub const G_RATES_BPS: [u64; 8] =
    [6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000];

impl Standard {
    /// The rates this PHY can send at.
    pub fn rates_bps(self) -> &'static [u64] {
        match self {
            Standard::B { .. } => &B_RATES_BPS,
            Standard::G { .. } => &G_RATES_BPS,
        }
    }

    /// The default BSS basic rate set: the rates every station supports, 1 and 2 Mb/s of
    /// DSSS (Clause 15) for 802.11b, the mandatory 6, 12 and 24 Mb/s of ERP-OFDM (18.1) for
    /// 802.11g. (ns-3.44's 802.11b BSS acknowledges 11 Mb/s frames at 2 Mb/s, the same set.)
    pub fn default_basic_rates_bps(self) -> &'static [u64] {
        match self {
            Standard::B { .. } => &[1_000_000, 2_000_000],
            Standard::G { .. } => &[6_000_000, 12_000_000, 24_000_000],
        }
    }

    /// aSlotTime: 20 µs for DSSS (Table 15-4); ERP 20 µs, or 9 µs when every station of the
    /// BSS supports the short slot (18.4.5, Table 18-5).
    pub fn slot_ns(self) -> SimTime {
        match self {
            Standard::B { .. } | Standard::G { short_slot: false } => 20 * US,
            Standard::G { short_slot: true } => 9 * US,
        }
    }

    /// aSIFSTime: 10 µs for DSSS (Table 15-4) and ERP (Table 18-5).
    pub fn sifs_ns(self) -> SimTime {
        10 * US
    }

    /// DIFS = aSIFSTime + 2 × aSlotTime (10.3.2.3.7).
    pub fn difs_ns(self) -> SimTime {
        self.sifs_ns() + 2 * self.slot_ns()
    }

    /// aCWmin: 31 for DSSS (Table 15-4); 15 for ERP-OFDM (Table 18-5, a BSS of ERP stations
    /// only). aCWmax is 1023 for both.
    pub fn cw_min(self) -> u32 {
        match self {
            Standard::B { .. } => 31,
            Standard::G { .. } => 15,
        }
    }

    pub fn cw_max(self) -> u32 {
        1023
    }

    /// PPDU preamble and PHY header, before the first data bit. DSSS long PPDU: 144-bit
    /// preamble and 48-bit header at 1 Mb/s, 192 µs (15.3.3); HR/DSSS short PPDU: 72-bit
    /// preamble at 1 Mb/s and 48-bit header at 2 Mb/s, 96 µs (16.2.2.3); OFDM: 16 µs
    /// preamble and the 4 µs SIGNAL symbol, 20 µs (17.3.2.4, Table 17-5).
    pub fn preamble_header_ns(self) -> SimTime {
        match self {
            Standard::B { short_preamble: false } => 192 * US,
            Standard::B { short_preamble: true } => 96 * US,
            Standard::G { .. } => 20 * US,
        }
    }

    /// The airtime of a PSDU of `bytes` octets at `rate_bps`, preamble and header included.
    /// DSSS/HR-DSSS: the header's LENGTH field is the PSDU's duration in whole microseconds,
    /// ⌈8 × octets / rate⌉ (16.2.3.5). ERP-OFDM: N_SYM = ⌈(16 + 8 × octets + 6) / N_DBPS⌉
    /// symbols of 4 µs (SERVICE field, data, tail bits; 17.3.5.4, Equation 17-11), then the
    /// 6 µs signal extension of ERP-OFDM (18.3.2.4).
    pub fn ppdu_ns(self, bytes: u32, rate_bps: u64) -> SimTime {
        match self {
            Standard::B { .. } => {
                let bits = 8 * bytes as u64 * 1_000_000;
                self.preamble_header_ns() + bits.div_ceil(rate_bps) * US
            }
            Standard::G { .. } => {
                // N_DBPS = rate × 4 µs.
                let n_dbps = rate_bps * 4 / 1_000_000;
                let n_sym = (16 + 8 * bytes as u64 + 6).div_ceil(n_dbps);
                self.preamble_header_ns() + 4 * US * n_sym + 6 * US
            }
        }
    }

    /// The response rate of a frame sent at `data_rate_bps`: the highest rate of the basic
    /// rate set not above it (10.6.6.5.2), else the lowest basic rate.
    pub fn ack_rate_bps(self, basic_rates_bps: &[u64], data_rate_bps: u64) -> u64 {
        let below = basic_rates_bps.iter().copied().filter(|&r| r <= data_rate_bps).max();
        below.or_else(|| basic_rates_bps.iter().copied().min()).unwrap_or(data_rate_bps)
    }
}

/// The durations of one medium's frame exchanges, fixed once its PHY and rates are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    pub standard: Standard,
    pub data_rate_bps: u64,
    pub ack_rate_bps: u64,
    pub slot_ns: SimTime,
    pub sifs_ns: SimTime,
    pub difs_ns: SimTime,
    /// EIFS = aSIFSTime + DIFS + the ACK's airtime at the lowest basic rate (10.3.2.3.7):
    /// what a station waits after a frame it could not receive (a collision).
    pub eifs_ns: SimTime,
    /// ACKTimeout = aSIFSTime + aSlotTime + aRxPHYStartDelay (10.3.2.9), the PHY start delay
    /// taken as the ACK's preamble and header.
    pub ack_timeout_ns: SimTime,
    pub ack_ns: SimTime,
}

impl Timing {
    pub fn new(standard: Standard, data_rate_bps: u64, basic_rates_bps: &[u64]) -> Timing {
        let ack_rate_bps = standard.ack_rate_bps(basic_rates_bps, data_rate_bps);
        let lowest_basic = basic_rates_bps.iter().copied().min().unwrap_or(ack_rate_bps);
        let slot_ns = standard.slot_ns();
        let sifs_ns = standard.sifs_ns();
        let difs_ns = standard.difs_ns();
        Timing {
            standard,
            data_rate_bps,
            ack_rate_bps,
            slot_ns,
            sifs_ns,
            difs_ns,
            eifs_ns: sifs_ns + difs_ns + standard.ppdu_ns(ACK_BYTES, lowest_basic),
            ack_timeout_ns: sifs_ns + slot_ns + standard.preamble_header_ns(),
            ack_ns: standard.ppdu_ns(ACK_BYTES, ack_rate_bps),
        }
    }

    /// Airtime of the data frame carrying an IP packet of `ip_bytes`.
    pub fn data_ns(&self, ip_bytes: u32) -> SimTime {
        self.standard.ppdu_ns(ip_bytes + LLC_SNAP_BYTES + DATA_MAC_OVERHEAD_BYTES, self.data_rate_bps)
    }

    /// A successful exchange from the first bit of the data frame: data, SIFS, ACK.
    pub fn exchange_ns(&self, ip_bytes: u32) -> SimTime {
        self.data_ns(ip_bytes) + self.sifs_ns + self.ack_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Standard = Standard::G { short_slot: true };
    const B_LONG: Standard = Standard::B { short_preamble: false };
    const B_SHORT: Standard = Standard::B { short_preamble: true };

    /// A 1500-byte IP packet is a 1536-octet MPDU (8 LLC/SNAP + 24 header + 4 FCS).
    #[test]
    fn ofdm_airtime_is_preamble_signal_symbols_and_extension() {
        // 54 Mb/s: N_DBPS 216, ⌈(16 + 12288 + 6) / 216⌉ = 57 symbols: 20 + 228 + 6 µs.
        assert_eq!(Timing::new(G, 54_000_000, &[6_000_000]).data_ns(1500), 254_000);
        // 6 Mb/s: N_DBPS 24, ⌈12310 / 24⌉ = 513 symbols: 20 + 2052 + 6 µs.
        assert_eq!(G.ppdu_ns(1536, 6_000_000), 2_078_000);
        // The ACK at 24 Mb/s: ⌈(16 + 112 + 6) / 96⌉ = 2 symbols: 20 + 8 + 6 µs.
        assert_eq!(G.ppdu_ns(ACK_BYTES, 24_000_000), 34_000);
    }

    #[test]
    fn dsss_airtime_is_preamble_header_and_whole_microseconds_of_payload() {
        // 11 Mb/s long preamble: 192 + ⌈12288 / 11⌉ = 192 + 1118 µs.
        assert_eq!(B_LONG.ppdu_ns(1536, 11_000_000), 1_310_000);
        // Short preamble: 96 µs instead of 192.
        assert_eq!(B_SHORT.ppdu_ns(1536, 11_000_000), 1_214_000);
        // 5.5 Mb/s: ⌈12288 / 5.5⌉ = 2235 µs.
        assert_eq!(B_LONG.ppdu_ns(1536, 5_500_000), 192_000 + 2_235_000);
        // The ACK at 1 Mb/s: 192 + 112 µs.
        assert_eq!(B_LONG.ppdu_ns(ACK_BYTES, 1_000_000), 304_000);
    }

    #[test]
    fn interframe_spaces_follow_the_slot_and_sifs() {
        assert_eq!((G.slot_ns(), G.difs_ns()), (9_000, 28_000));
        assert_eq!(Standard::G { short_slot: false }.difs_ns(), 50_000);
        assert_eq!((B_LONG.slot_ns(), B_LONG.difs_ns()), (20_000, 50_000));
        let t = Timing::new(B_LONG, 11_000_000, &[1_000_000, 2_000_000]);
        // EIFS = SIFS + DIFS + ACK at 1 Mb/s = 10 + 50 + 304 µs.
        assert_eq!(t.eifs_ns, 364_000);
        assert_eq!(t.ack_timeout_ns, 10_000 + 20_000 + 192_000);
    }

    #[test]
    fn the_ack_goes_at_the_highest_basic_rate_not_above_the_data_rate() {
        let basic = G.default_basic_rates_bps();
        assert_eq!(G.ack_rate_bps(basic, 54_000_000), 24_000_000);
        assert_eq!(G.ack_rate_bps(basic, 18_000_000), 12_000_000);
        assert_eq!(G.ack_rate_bps(basic, 6_000_000), 6_000_000);
        assert_eq!(B_LONG.ack_rate_bps(&[1_000_000, 2_000_000], 11_000_000), 2_000_000);
        assert_eq!(G.ack_rate_bps(&[12_000_000], 6_000_000), 12_000_000, "none below: the lowest");
    }
}
