//! Presets: scenario files embedded in the binary, one per paper experiment. Each template
//! exports its own (`PRESET` beside its `TEMPLATE`); this is their list, one line each.

use crate::spec::Preset;

/// (name, one-line description, TOML text).
pub const PRESETS: &[Preset] = &[
    super::dumbbell::PRESET,
    crate::mobility::fcp::PRESET,
    crate::mobility::lte_x2::PRESET,
    crate::mobility::hsdpa_proxy::PRESET,
    crate::mobility::vertical::PRESET,
    crate::mobility::inter_rat::PRESET,
    crate::mobility::cellular::PRESET,
    crate::mobility::cellular::HIGHWAY_PRESET,
];

pub fn find(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|p| p.0 == name).map(|p| p.2)
}
