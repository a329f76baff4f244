//! Builds a simulation from a validated scenario: its template expands the graph, the graph
//! becomes the world (`crate::spec::build`), and the template installs its agents.

use super::registry::Registry;
use super::schema::Scenario;
use crate::engine::time::s_to_ns;
use crate::sim::Sim;
use crate::spec::{build as graph, Check, ScenarioError};

/// Builds `s` with the built-in templates.
pub fn build(s: &Scenario, source: &str, seed: u64) -> Result<Sim, ScenarioError> {
    build_with(s, source, seed, &Registry::builtin())
}

/// Builds `s` with the templates of `registry`.
pub fn build_with(s: &Scenario, source: &str, seed: u64, registry: &Registry) -> Result<Sim, ScenarioError> {
    let c = Check { source };
    let template = registry.template(s, &c)?;
    let g = template.expand(s, &c)?;
    let trace_interval = s_to_ns(s.trace.interval_s.unwrap_or(0.1));
    let mut world = graph::build(&g, &s.tcp, &c, seed, s_to_ns(s.duration_s), trace_interval)?;
    world.departure_first = s.engine.departure_first();
    let mut sim = Sim::new(world);
    template.install(s, &mut sim, &c)?;
    graph::trace_queues(&mut sim.world, &g, s.trace.queues.as_deref(), &c)?;
    Ok(sim)
}
