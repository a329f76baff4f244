//! Topology templates: what a mechanism (or the dumbbell) declares so that a scenario can name
//! it with `topology = "..."`. Each mechanism exports one [`Sectioned`] `TEMPLATE` and its
//! [`Preset`]; the registry (`crate::scenario::registry`) lists them, one line each. Validation
//! common to every template (a section of another template, explicit graph entries under a
//! template that builds the graph) is the registry's.

use serde::de::DeserializeOwned;

use super::schema::Scenario;
use super::{Check, Graph, ScenarioError};
use crate::sim::Sim;

/// A preset: (name, one-line description, scenario TOML text), embedded in the binary.
pub type Preset = (&'static str, &'static str, &'static str);

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

    /// The number of flows its section (as given, not validated) describes, for an estimate of
    /// a run's cost made before the run (`crate::scenario::cost`); None if the section does
    /// not parse.
    fn flows(&self, _section: &toml::Value) -> Option<u32> {
        None
    }
}

/// A template with a section of type `T`: the common case, written as four functions and a
/// count.
pub struct Sectioned<T> {
    pub topology: &'static str,
    pub section: &'static str,
    pub validate: fn(&T, &Scenario, &Check) -> Result<(), ScenarioError>,
    pub expand: fn(&T) -> Graph,
    pub install: fn(&T, &mut Sim, &Check) -> Result<(), ScenarioError>,
    /// How many flows the section describes (a dumbbell's `flows`, a cell's UEs), for the
    /// run-cost estimate.
    pub flows: fn(&T) -> u32,
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

    fn flows(&self, section: &toml::Value) -> Option<u32> {
        T::deserialize(section.clone()).ok().map(|t| (self.flows)(&t))
    }
}

/// `install` of a template without agents.
pub fn no_agents<T>(_: &T, _: &mut Sim, _: &Check) -> Result<(), ScenarioError> {
    Ok(())
}

/// `flows` of a template whose section describes one flow.
pub fn one_flow<T>(_: &T) -> u32 {
    1
}
