//! `--set a.b=value` overrides. The error type itself is `crate::spec::ScenarioError`.

use crate::spec::ScenarioError;

/// Applies one `--set a.b.c=value` override. The value is read as a TOML value; if it does not
/// parse as one it is taken as a string (so `--set tcp.recovery=sack` works unquoted).
pub fn apply_override(table: &mut toml::Table, source: &str, path: &str, raw: &str) -> Result<(), ScenarioError> {
    let keys: Vec<&str> = path.split('.').collect();
    if path.is_empty() || keys.iter().any(|k| k.is_empty()) {
        return Err(ScenarioError::new(source, path, "invalid --set key path"));
    }
    if path.chars().any(char::is_control) {
        return Err(ScenarioError::new(source, path, "invalid --set key path (it holds a control character)"));
    }
    // A line break would let the value's text go on as more TOML (`1\n[dumbbell]\nflows=3`),
    // which was silently dropped: one --set is one value on one line.
    if raw.contains(['\n', '\r']) {
        return Err(ScenarioError::new(
            source,
            path,
            "the --set value holds a line break; give one value on one line (in a TOML string, write \\n)",
        ));
    }
    let value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) if t.len() == 1 => t.remove("v").expect("parsed key"),
        _ => toml::Value::String(raw.to_string()),
    };
    let mut cur = table;
    for (i, key) in keys.iter().enumerate() {
        if i + 1 == keys.len() {
            cur.insert((*key).to_string(), value);
            return Ok(());
        }
        let entry = cur.entry((*key).to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = match entry {
            toml::Value::Table(t) => t,
            _ => {
                let prefix = keys[..=i].join(".");
                return Err(ScenarioError::new(source, path, &format!("`{prefix}` is not a table")));
            }
        };
    }
    Ok(())
}
