//! The template registry: each template declares its `topology` key and its section, expands
//! into an explicit graph and installs its agents. Validation is generic: a section that
//! belongs to another template is an error naming it, and a template that builds the graph
//! rejects explicit `nodes`, `links` and `flows`.
//!
//! Adding a mechanism: its folder under `crate::mobility`, one entry in [`Registry::builtin`]
//! and a preset. Tools and tests may add their own templates with [`Registry::with`].

use serde::de::DeserializeOwned;

use super::dumbbell::{self, DumbbellSection};
use super::schema::Scenario;
use crate::mobility::{fcp, hsdpa_proxy, inter_rat, lte_x2, vertical};
use crate::sim::Sim;
use crate::spec::{Check, Graph, ScenarioError};

/// A topology template.
pub trait Template: Send + Sync {
    /// The value of `topology` that selects it.
    fn topology(&self) -> &'static str;

    /// The name of its scenario section, if it has one.
    fn section(&self) -> Option<&'static str> {
        None
    }

    /// Whether it builds the graph itself (then explicit `nodes`, `links`, `flows` are errors).
    fn builds_graph(&self) -> bool {
        true
    }

    /// Parses its section (when present), so that type errors name their key.
    fn parse(&self, s: &Scenario, c: &Check) -> Result<(), ScenarioError>;

    /// Checks its parameters.
    fn validate(&self, s: &Scenario, c: &Check) -> Result<(), ScenarioError>;

    fn expand(&self, s: &Scenario, c: &Check) -> Result<Graph, ScenarioError>;

    /// Adds its agents to the simulation built from its graph.
    fn install(&self, s: &Scenario, sim: &mut Sim, c: &Check) -> Result<(), ScenarioError>;
}

/// A template with a section of type `T`: the common case, written as four functions.
pub struct Sectioned<T> {
    pub topology: &'static str,
    pub section: &'static str,
    pub validate: fn(&T, &Scenario, &Check) -> Result<(), ScenarioError>,
    pub expand: fn(&T) -> Graph,
    pub install: fn(&T, &mut Sim, &Check) -> Result<(), ScenarioError>,
}

impl<T: DeserializeOwned + Default> Template for Sectioned<T> {
    fn topology(&self) -> &'static str {
        self.topology
    }

    fn section(&self) -> Option<&'static str> {
        Some(self.section)
    }

    fn parse(&self, s: &Scenario, c: &Check) -> Result<(), ScenarioError> {
        s.section::<T>(self.section, c).map(|_| ())
    }

    fn validate(&self, s: &Scenario, c: &Check) -> Result<(), ScenarioError> {
        (self.validate)(&s.section(self.section, c)?, s, c)
    }

    fn expand(&self, s: &Scenario, c: &Check) -> Result<Graph, ScenarioError> {
        Ok((self.expand)(&s.section(self.section, c)?))
    }

    fn install(&self, s: &Scenario, sim: &mut Sim, c: &Check) -> Result<(), ScenarioError> {
        (self.install)(&s.section(self.section, c)?, sim, c)
    }
}

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

fn no_agents<T>(_: &T, _: &mut Sim, _: &Check) -> Result<(), ScenarioError> {
    Ok(())
}

const DUMBBELL: Sectioned<DumbbellSection> = Sectioned {
    topology: "dumbbell",
    section: "dumbbell",
    validate: |d, _, c| d.validate(c),
    expand: dumbbell::expand,
    install: no_agents,
};

const FCP: Sectioned<fcp::FcpSection> = Sectioned {
    topology: "fcp",
    section: "fcp",
    validate: |f, s, c| f.validate(c, s.duration_s),
    expand: fcp::expand,
    install: fcp::install,
};

const LTE_X2: Sectioned<lte_x2::LteX2Section> = Sectioned {
    topology: "lte-x2",
    section: "lte_x2",
    validate: |l, s, c| l.validate(c, s.duration_s),
    expand: lte_x2::expand,
    install: |l, sim, _| {
        lte_x2::install(l, sim);
        Ok(())
    },
};

const HSDPA: Sectioned<hsdpa_proxy::HsdpaSection> = Sectioned {
    topology: "hsdpa",
    section: "hsdpa",
    validate: |h, _, c| h.validate(c),
    expand: hsdpa_proxy::expand,
    install: |h, sim, _| {
        hsdpa_proxy::install(h, sim);
        Ok(())
    },
};

const VERTICAL: Sectioned<vertical::VerticalSection> = Sectioned {
    topology: "vertical",
    section: "vertical",
    validate: |v, s, c| v.validate(c, s.duration_s),
    expand: vertical::expand,
    install: vertical::install,
};

const INTER_RAT: Sectioned<inter_rat::InterRatSection> = Sectioned {
    topology: "inter-rat",
    section: "inter_rat",
    validate: |i, s, c| i.validate(c, s.duration_s),
    expand: inter_rat::expand,
    install: |i, sim, _| {
        inter_rat::install(i, sim);
        Ok(())
    },
};

/// The templates a scenario may name.
pub struct Registry {
    templates: Vec<Box<dyn Template>>,
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
                Box::new(DUMBBELL),
                Box::new(FCP),
                Box::new(LTE_X2),
                Box::new(HSDPA),
                Box::new(VERTICAL),
                Box::new(INTER_RAT),
            ],
        }
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
