//! An estimate of a run's cost made before it runs, from its scenario text and overrides:
//! `duration_s` × flows (flow-seconds). The Python runner orders and batches runs by it (the
//! binding's `estimated_cost`). Each template counts the flows of its own section
//! (`Template::flows`), so the estimate names no mechanism's keys. The text need not be a
//! valid scenario: what cannot be read counts as its default.

use super::registry::Registry;

/// Duration assumed when the scenario gives none that can be read.
const DEFAULT_DURATION_S: f64 = 10.0;

/// `duration_s` × flows of the scenario `text` with the `key.path=value` `overrides` applied
/// in order. Flows are the `[[flows]]` of an explicit graph plus those each template section
/// given describes (a dumbbell's `flows`, a cell's UEs), at least 1; a section that does not
/// parse counts as 1 flow.
pub fn estimated_cost(text: &str, overrides: &[(String, String)], registry: &Registry) -> f64 {
    let mut table: toml::Table = toml::from_str(text).unwrap_or_default();
    for (path, raw) in overrides {
        // An override that cannot be applied leaves the estimate as it was; the run reports it.
        let _ = super::error::apply_override(&mut table, "", path, raw);
    }
    let duration_s = table.get("duration_s").and_then(positive).unwrap_or(DEFAULT_DURATION_S);
    let mut flows = table.get("flows").and_then(|f| f.as_array()).map_or(0, |a| a.len() as u64);
    for t in registry.templates() {
        if let Some(section) = t.section().and_then(|name| table.get(name)) {
            flows += t.flows(section).unwrap_or(1) as u64;
        }
    }
    duration_s.max(1e-3) * flows.max(1) as f64
}

fn positive(v: &toml::Value) -> Option<f64> {
    let x = v.as_float().or_else(|| v.as_integer().map(|i| i as f64))?;
    (x > 0.0 && x.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(text: &str, overrides: &[(&str, &str)]) -> f64 {
        let o: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        estimated_cost(text, &o, &Registry::builtin())
    }

    #[test]
    fn each_template_counts_the_flows_of_its_own_section() {
        let dumbbell = "duration_s = 20.0\n[dumbbell]\nflows = 4\n";
        assert_eq!(cost(dumbbell, &[]), 80.0);
        assert_eq!(cost(dumbbell, &[("duration_s", "5"), ("dumbbell.flows", "8")]), 40.0);
        // A cell's UEs: the source cell's default one and five in the target cell.
        assert_eq!(cost("duration_s = 5\n[lte_x2]\ntarget_ues = 5\n", &[]), 30.0);
        assert_eq!(cost("duration_s = 2\n[fcp]\nmobiles = 3\n", &[]), 6.0);
        assert_eq!(cost("duration_s = 2\n[hsdpa]\nproxy = true\n", &[]), 4.0, "the proxy splits the connection");
        // A graph's [[flows]], and the default duration.
        assert_eq!(cost("[[flows]]\nname = 'a'\n[[flows]]\nname = 'b'\n", &[]), 20.0);
    }

    #[test]
    fn what_cannot_be_read_counts_as_its_default() {
        assert_eq!(cost("not toml [", &[]), 10.0);
        assert_eq!(cost("duration_s = -3\n[dumbbell]\nflows = 'many'\n", &[]), 10.0);
        assert_eq!(cost("duration_s = 1\n", &[("dumbbell.flows", "0")]), 1.0, "at least one flow");
        assert_eq!(cost("duration_s = 1\n", &[("a..b", "1")]), 1.0);
    }
}
