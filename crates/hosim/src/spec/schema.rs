//! The scenario schema. Unknown keys are rejected everywhere (`deny_unknown_fields`).
//! Rates are in bit/s, times in seconds, sizes in bytes unless a name says otherwise.
//!
//! The keys every scenario shares are fields here; a template's own section (`[fcp]`,
//! `[lte_x2]`, ...) is kept as TOML in `sections` and parsed by its template
//! (`super::template`), so adding a mechanism does not touch this file.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::spec::graph::{FlowSpec, LinkSpec, NodeSpec, TcpSection};
use crate::spec::{Check, ScenarioError};
use crate::tcp::TcpConfig;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: Option<String>,
    pub description: Option<String>,
    /// The template that builds the graph (`graph`: the explicit `nodes`, `links`, `flows`).
    #[serde(default = "default_topology")]
    pub topology: String,
    pub duration_s: f64,
    pub seed: Option<u64>,
    #[serde(default)]
    pub tcp: TcpSection,
    #[serde(default)]
    pub trace: TraceSection,
    #[serde(default)]
    pub capture: CaptureSection,
    #[serde(default)]
    pub engine: EngineSection,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// 802.11 networks of an explicit graph (`spec/wifi.rs`).
    #[serde(default)]
    pub media: Vec<crate::spec::wifi::MediumSpec>,
    /// Template sections by name, as given (parsed by their templates).
    #[serde(skip)]
    pub sections: BTreeMap<String, toml::Value>,
}

fn default_topology() -> String {
    "graph".into()
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSection {
    /// Width of the goodput-trace bins.
    pub interval_s: Option<f64>,
    /// Link queues whose length is traced, by link name. Default: the template's choice.
    pub queues: Option<Vec<String>>,
}

/// `[capture]`: packet capture of links (`crate::observe::pcap`), written when the run has an
/// output directory (`hosim run --out DIR`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSection {
    /// Link names, or `["all"]`, or `["flows"]` (the links into and out of every flow's
    /// destination: each flow's packets once, at its receiver).
    pub links: Option<Vec<String>>,
    /// `pcapng` (default: one file, one interface per link) or `pcap` (one file per link).
    pub format: Option<String>,
    /// Bytes kept of each packet (the checksums still cover the whole packet); 0: all.
    pub snaplen: Option<u32>,
}

/// `[engine]`: choices of the simulation engine itself.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSection {
    /// A packet offered to a link at the very nanosecond the link's transmission ends:
    /// `"departure_first"` (default; the transmission is over first) or `"event_order"` (the
    /// event scheduled first runs first, as in ns-2 and ns-3). See `World::departure_first`.
    pub tie_order: Option<String>,
}

impl EngineSection {
    /// Whether the tie order is `departure_first` (the default).
    pub fn departure_first(&self) -> bool {
        self.tie_order.as_deref() != Some("event_order")
    }
}

impl Scenario {
    /// The keys every scenario has, whatever its template.
    pub fn validate_common(&self, c: &Check) -> Result<(), ScenarioError> {
        if let Some(f) = self.capture.format.as_deref() {
            if f != "pcapng" && f != "pcap" {
                return Err(c.err("capture.format", &format!("unknown format {f:?} (pcapng, pcap)")));
            }
        }
        if let Some(t) = self.engine.tie_order.as_deref() {
            if t != "departure_first" && t != "event_order" {
                return Err(c.err("engine.tie_order", &format!("unknown order {t:?} (departure_first, event_order)")));
            }
        }
        c.positive("duration_s", self.duration_s)?;
        if self.duration_s > 1e6 {
            return Err(c.err("duration_s", &format!("must be <= 1e6 s, got {}", self.duration_s)));
        }
        self.tcp.apply(&TcpConfig::default(), c, "tcp")?;
        if let Some(i) = self.trace.interval_s {
            c.positive("trace.interval_s", i)?;
        }
        Ok(())
    }

    /// Section `name` parsed as `T` (all defaults when absent). Errors name the key inside it.
    pub fn section<T: DeserializeOwned + Default>(&self, name: &str, c: &Check) -> Result<T, ScenarioError> {
        let Some(v) = self.sections.get(name) else { return Ok(T::default()) };
        serde_path_to_error::deserialize(v.clone()).map_err(|e| {
            let inner = e.path().to_string();
            let path = if inner == "." { name.to_string() } else { format!("{name}.{inner}") };
            c.err(&path, &e.into_inner().to_string())
        })
    }
}
