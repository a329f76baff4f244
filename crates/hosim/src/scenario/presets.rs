//! Presets: scenario files embedded in the binary, one per paper experiment.

/// (name, one-line description, TOML text).
pub const PRESETS: &[(&str, &str, &str)] = &[
    (
        "dumbbell",
        "Dumbbell: N bulk TCP flows share a 12 Mb/s, 20 ms bottleneck with a 90-packet DropTail queue",
        include_str!("../../../../presets/dumbbell.toml"),
    ),
    (
        "fcp",
        "Cohen & Levin drop/forward/rearrange handovers: sender, FCP, 2 BSs, 10 mobiles (100/10 Mb/s), NewReno",
        include_str!("../../../../presets/fcp.toml"),
    ),
    (
        "lte-x2",
        "LTE X2 handover with forwarding through the core router (Pacifico et al.): path switch standard/fast/predicted, DropTail/RED/ECN",
        include_str!("../../../../presets/lte-x2.toml"),
    ),
    (
        "hsdpa",
        "HSDPA (Ren et al. 2008): TCP over a varying-rate downlink, optionally through the window adaptation proxy",
        include_str!("../../../../presets/hsdpa.toml"),
    ),
    (
        "vertical",
        "Sinky & Hamdaoui: WiFi <-> cellular soft handoffs of a mobile source every 15 s, TCP NewReno or TCP-CLAH",
        include_str!("../../../../presets/vertical.toml"),
    ),
    (
        "inter-rat",
        "Inter-RAT handover LTE <-> UMTS (3GPP, back-to-back loss): forwarding / bicasting / none, TCP SACK recovery and convergence time",
        include_str!("../../../../presets/inter-rat.toml"),
    ),
];

pub fn find(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|p| p.0 == name).map(|p| p.2)
}
