//! Invalid input is reported as one line naming the source, the key (or line) and the problem.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl ScenarioError {
    /// An error about key `path` (dotted; empty for the top level).
    pub fn new(source: &str, path: &str, problem: &str) -> Self {
        let problem = one_line(problem);
        let message = if path.is_empty() || path == "." {
            format!("{source}: {problem}")
        } else {
            format!("{source}: key `{path}`: {problem}")
        };
        ScenarioError { message }
    }

    /// A TOML syntax error, located by line and column.
    pub fn from_toml(source: &str, text: &str, e: &toml::de::Error) -> Self {
        let problem = one_line(e.message());
        let message = match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                format!("{source}: line {line}, column {col}: malformed TOML: {problem}")
            }
            None => format!("{source}: malformed TOML: {problem}"),
        };
        ScenarioError { message }
    }
}

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
