//! Scenarios: the TOML schema, `--set` overrides, validation with one-line errors, topology
//! templates, and the builder that turns a scenario into a [`World`](crate::world::World).

pub mod build;
pub mod error;
pub mod presets;
pub mod rate;
pub mod schema;
pub mod templates;

pub use error::ScenarioError;
pub use schema::Scenario;

/// Parses scenario text, applies `key.path=value` overrides and validates the result.
pub fn load(text: &str, source: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let mut table: toml::Table = toml::from_str(text).map_err(|e| ScenarioError::from_toml(source, text, &e))?;
    for (path, raw) in overrides {
        error::apply_override(&mut table, source, path, raw)?;
    }
    let value = toml::Value::Table(table);
    let scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        ScenarioError::new(source, &path, &e.into_inner().to_string())
    })?;
    scenario.validate(source)?;
    Ok(scenario)
}
