//! Scenarios: the TOML schema, `--set` overrides, the template registry, validation with
//! one-line errors, and the builder that turns a scenario into a [`Sim`](crate::sim::Sim).

pub mod build;
pub mod cost;
mod dumbbell;
pub mod error;
pub mod presets;
pub mod registry;

pub use crate::spec::schema;
pub use crate::spec::{Check, Preset, ScenarioError};
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
    check_times(&table, "", &Check { source })?;
    let tcp_tables = crate::spec::tcp_tables::take(&mut table, registry.algorithms());
    let sections = registry.sections().filter_map(|n| table.remove(n).map(|v| (n.to_string(), v))).collect();
    let value = toml::Value::Table(table);
    let mut scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        ScenarioError::new(source, &path, &e.into_inner().to_string())
    })?;
    scenario.sections = sections;
    tcp_tables.attach(&mut scenario, registry.algorithms(), &Check { source })?;
    registry.validate(&scenario, &Check { source })?;
    Ok(scenario)
}

/// Every key named `*_s` is a time: it must be within [`MAX_TIME_S`] and either 0 or at least
/// one nanosecond (a smaller value would round to 0 ns, an interval that never advances time).
/// Checked on the raw table so that every template's keys are covered.
fn check_times(table: &toml::Table, prefix: &str, c: &Check) -> Result<(), ScenarioError> {
    for (k, v) in table {
        let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        check_time_value(v, &path, k.ends_with("_s"), c)?;
    }
    Ok(())
}

fn check_time_value(v: &toml::Value, path: &str, is_time: bool, c: &Check) -> Result<(), ScenarioError> {
    use crate::engine::time::{MAX_TIME_S, MIN_NONZERO_TIME_S};
    match v {
        toml::Value::Table(t) => check_times(t, path, c),
        toml::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_time_value(item, &format!("{path}[{i}]"), is_time, c)?;
            }
            Ok(())
        }
        toml::Value::Float(_) | toml::Value::Integer(_) if is_time => {
            let x = v.as_float().unwrap_or_else(|| v.as_integer().unwrap_or(0) as f64);
            if x.is_finite() && x.abs() > MAX_TIME_S {
                return Err(c.err(path, &format!("must be <= {MAX_TIME_S:e} s, got {x}")));
            }
            if x > 0.0 && x < MIN_NONZERO_TIME_S {
                return Err(c.err(path, &format!("must be 0 or >= {MIN_NONZERO_TIME_S:e} s (1 ns), got {x}")));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
