//! `--set a.b=value` overrides. The error type itself is `crate::spec::ScenarioError`.

use crate::spec::ScenarioError;

/// Applies one `--set a.b.c=value` override. The value is read as a TOML value; if it does not
/// parse as one it is taken as a string (so `--set tcp.recovery=sack` works unquoted).
pub fn apply_override(table: &mut toml::Table, source: &str, path: &str, raw: &str) -> Result<(), ScenarioError> {
    let keys: Vec<&str> = path.split('.').collect();
    if path.is_empty() || keys.iter().any(|k| k.is_empty()) {
        return Err(ScenarioError::new(source, path, "invalid --set key path"));
    }
    let value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").expect("parsed key"),
        Err(_) => toml::Value::String(raw.to_string()),
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
