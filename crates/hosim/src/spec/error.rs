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

/// `s` with its control characters escaped (`\n`, `\u{1b}`): a key or a file name given by the
/// user is quoted in an error, which must stay one line whatever they hold.
fn escape_controls(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars().map(|ch| if ch.is_control() { ch.escape_debug().to_string() } else { ch.to_string() }).collect()
}

impl ScenarioError {
    /// An error about key `path` (dotted; empty for the top level).
    pub fn new(source: &str, path: &str, problem: &str) -> Self {
        let problem = one_line(problem);
        let (source, path) = (escape_controls(source), escape_controls(path));
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
        let source = escape_controls(source);
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

/// Validation helpers: each returns an error naming `key` when the value is out of range. The
/// key is anything printable (a `&str`, or a [`Field`]), turned into text only for the error,
/// so that checking the valid fields of a large topology formats nothing.
pub struct Check<'a> {
    pub source: &'a str,
}

/// `list[index].field`, a key of one element of a scenario's list, written out only when an
/// error names it: a 512-flow dumbbell has about 8,000 such keys, every one valid.
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    pub list: &'static str,
    pub index: usize,
    pub field: &'a str,
}

impl fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}].{}", self.list, self.index, self.field)
    }
}

impl Check<'_> {
    pub fn err(&self, key: &(impl fmt::Display + ?Sized), problem: &str) -> ScenarioError {
        ScenarioError::new(self.source, &key.to_string(), problem)
    }

    pub fn finite(&self, key: &(impl fmt::Display + ?Sized), v: f64) -> Result<(), ScenarioError> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be a finite number, got {v}")))
        }
    }

    pub fn positive(&self, key: &(impl fmt::Display + ?Sized), v: f64) -> Result<(), ScenarioError> {
        self.finite(key, v)?;
        if v > 0.0 {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be > 0, got {v}")))
        }
    }

    pub fn non_negative(&self, key: &(impl fmt::Display + ?Sized), v: f64) -> Result<(), ScenarioError> {
        self.finite(key, v)?;
        if v >= 0.0 {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be >= 0, got {v}")))
        }
    }

    pub fn probability(&self, key: &(impl fmt::Display + ?Sized), v: f64) -> Result<(), ScenarioError> {
        self.finite(key, v)?;
        if (0.0..=1.0).contains(&v) {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be a probability in [0, 1], got {v}")))
        }
    }

    /// A time in seconds computed from the input (a template's product, a sum): finite, >= 0,
    /// at most [`MAX_TIME_S`](crate::engine::time::MAX_TIME_S), so that it converts to u64
    /// nanoseconds and can be added to another such time without wrapping.
    pub fn time(&self, key: &(impl fmt::Display + ?Sized), v: f64) -> Result<(), ScenarioError> {
        use crate::engine::time::MAX_TIME_S;
        self.non_negative(key, v)?;
        if v > MAX_TIME_S {
            return Err(self.err(key, &format!("must be <= {MAX_TIME_S:e} s, got {v}")));
        }
        Ok(())
    }

    pub fn at_least(&self, key: &(impl fmt::Display + ?Sized), v: u64, min: u64) -> Result<(), ScenarioError> {
        if v >= min {
            Ok(())
        } else {
            Err(self.err(key, &format!("must be >= {min}, got {v}")))
        }
    }
}
