//! The template registry: each template declares its `topology` key and its section, expands
//! into an explicit graph and installs its agents. Validation is generic: a section that
//! belongs to another template is an error naming it, and a template that builds the graph
//! rejects explicit `nodes`, `links` and `flows`.
//!
//! Adding a mechanism: its folder under `crate::mobility` exporting a `TEMPLATE` (a
//! [`Sectioned`], `crate::spec::template`) and a `PRESET`, one line for each in
//! [`Registry::builtin`] and `super::presets::PRESETS`. Tools and tests may add their own
//! templates with [`Registry::with`], and congestion controllers (`tcp.cc` and their
//! `[tcp.<name>]` table) with [`Registry::with_algorithm`].

use super::schema::Scenario;
use crate::sim::Sim;
use crate::spec::{Check, Graph, ScenarioError};
use crate::tcp::cc::Algorithm;

pub use crate::spec::template::{Sectioned, Template};

/// `topology = "graph"`: the scenario's own `nodes`, `links` and `flows`.
pub struct ExplicitGraph;

impl Template for ExplicitGraph {
    fn topology(&self) -> &'static str {
        "graph"
    }

    fn builds_graph(&self) -> bool {
        false
    }

    fn parse(&self, _s: &Scenario, _c: &Check) -> Result<(), ScenarioError> {
        Ok(())
    }

    fn validate(&self, s: &Scenario, c: &Check) -> Result<(), ScenarioError> {
        if s.nodes.is_empty() {
            return Err(
                c.err("nodes", "a graph scenario needs at least one [[nodes]] entry (or set topology = \"dumbbell\")")
            );
        }
        Ok(())
    }

    fn expand(&self, s: &Scenario, _c: &Check) -> Result<Graph, ScenarioError> {
        Ok(Graph {
            nodes: s.nodes.clone(),
            links: s.links.clone(),
            flows: s.flows.clone(),
            traced_queues: Vec::new(),
            start_jitter_s: 0.0,
            media: s.media.clone(),
        })
    }

    fn install(&self, _s: &Scenario, _sim: &mut Sim, _c: &Check) -> Result<(), ScenarioError> {
        Ok(())
    }
}

/// The templates a scenario may name, and the congestion controllers (`tcp.cc`).
pub struct Registry {
    templates: Vec<Box<dyn Template>>,
    algorithms: Vec<&'static dyn Algorithm>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::builtin()
    }
}

impl Registry {
    /// The templates of this crate.
    pub fn builtin() -> Registry {
        Registry {
            templates: vec![
                Box::new(ExplicitGraph),
                Box::new(super::dumbbell::TEMPLATE),
                Box::new(crate::mobility::fcp::TEMPLATE),
                Box::new(crate::mobility::lte_x2::TEMPLATE),
                Box::new(crate::mobility::hsdpa_proxy::TEMPLATE),
                Box::new(crate::mobility::vertical::TEMPLATE),
                Box::new(crate::mobility::inter_rat::TEMPLATE),
                Box::new(crate::mobility::cellular::TEMPLATE),
            ],
            algorithms: crate::tcp::cc::ALGORITHMS.to_vec(),
        }
    }

    /// This registry and one more congestion controller.
    pub fn with_algorithm(mut self, a: &'static dyn Algorithm) -> Registry {
        self.algorithms.push(a);
        self
    }

    /// The congestion controllers, built-in first.
    pub fn algorithms(&self) -> &[&'static dyn Algorithm] {
        &self.algorithms
    }

    /// This registry and one more template.
    pub fn with(mut self, t: Box<dyn Template>) -> Registry {
        self.templates.push(t);
        self
    }

    pub fn get(&self, topology: &str) -> Option<&dyn Template> {
        self.templates.iter().find(|t| t.topology() == topology).map(|t| t.as_ref())
    }

    /// Names of all template sections.
    pub fn sections(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.templates.iter().filter_map(|t| t.section())
    }

    /// The templates, in the order they were added.
    pub fn templates(&self) -> impl Iterator<Item = &dyn Template> + '_ {
        self.templates.iter().map(|t| t.as_ref())
    }

    /// The scenario's template; an unknown `topology` is an error listing the known ones.
    pub fn template(&self, s: &Scenario, c: &Check) -> Result<&dyn Template, ScenarioError> {
        self.get(&s.topology).ok_or_else(|| {
            let known: Vec<String> = self.templates.iter().map(|t| format!("`{}`", t.topology())).collect();
            c.err("topology", &format!("unknown variant `{}`, expected one of {}", s.topology, known.join(", ")))
        })
    }

    /// Parses every section given, then checks the scenario: common keys, sections that belong
    /// to another template, explicit graph entries under a graph-building template, and the
    /// template's own parameters.
    pub fn validate(&self, s: &Scenario, c: &Check) -> Result<(), ScenarioError> {
        let this = self.template(s, c)?;
        for t in self.templates.iter().filter(|t| t.section().is_some_and(|n| s.sections.contains_key(n))) {
            t.parse(s, c)?;
        }
        s.validate_common(c)?;
        for t in &self.templates {
            if let Some(name) = t.section().filter(|n| s.sections.contains_key(*n)) {
                if t.topology() != this.topology() {
                    return Err(c.err(name, &format!("only allowed with topology = \"{}\"", t.topology())));
                }
            }
        }
        if this.builds_graph() {
            for (key, given) in [
                ("nodes", !s.nodes.is_empty()),
                ("links", !s.links.is_empty()),
                ("flows", !s.flows.is_empty()),
                ("media", !s.media.is_empty()),
            ] {
                if given {
                    let problem =
                        format!("not allowed with topology = \"{}\" (the template builds the graph)", this.topology());
                    return Err(c.err(key, &problem));
                }
            }
        }
        this.validate(s, c)
    }
}
