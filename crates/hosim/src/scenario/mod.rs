//! Scenarios: the TOML schema, `--set` overrides, the template registry, validation with
//! one-line errors, and the builder that turns a scenario into a [`Sim`](crate::sim::Sim).

pub mod build;
mod dumbbell;
pub mod error;
pub mod presets;
pub mod registry;
pub mod schema;

pub use crate::spec::{Check, ScenarioError};
pub use dumbbell::DumbbellSection;
pub use registry::{Registry, Sectioned, Template};
pub use schema::Scenario;

/// Parses scenario text, applies `key.path=value` overrides and validates the result with the
/// built-in templates.
pub fn load(text: &str, source: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    load_with(text, source, overrides, &Registry::builtin())
}

/// As [`load`], with the templates of `registry`.
pub fn load_with(
    text: &str,
    source: &str,
    overrides: &[(String, String)],
    registry: &Registry,
) -> Result<Scenario, ScenarioError> {
    let mut table: toml::Table = toml::from_str(text).map_err(|e| ScenarioError::from_toml(source, text, &e))?;
    for (path, raw) in overrides {
        error::apply_override(&mut table, source, path, raw)?;
    }
    let sections = registry.sections().filter_map(|n| table.remove(n).map(|v| (n.to_string(), v))).collect();
    let value = toml::Value::Table(table);
    let mut scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        ScenarioError::new(source, &path, &e.into_inner().to_string())
    })?;
    scenario.sections = sections;
    registry.validate(&scenario, &Check { source })?;
    Ok(scenario)
}
