//! A congestion controller's own settings: the `[tcp.<name>]` table of a scenario (and of a
//! flow's `tcp` table), declared in the controller's file as a [`Table`] of its settings type
//! and listed once in [`super::ALGORITHMS`] (a test's controller: `Registry::with_algorithm`).
//!
//! A table is read as TOML, key by key over the type's defaults (serde, unknown keys
//! rejected), then checked by the controller's `validate`. Layers merge key by key: a flow's
//! `tcp.cubic` over `[tcp.cubic]`. The settings are resolved when the scenario is read and
//! handed to the controller once, when a sender is made: nothing of this runs per packet.
//!
//! The keys here are an algorithm's parameters, with one default in every profile. A choice
//! where real stacks differ is a dialect key of `[tcp]` that a profile sets (`tcp/profile.rs`,
//! docs/tcp.md "Which keys are a profile's").

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::AnyCc;
use crate::tcp::config::TcpConfig;

/// A problem with one key of a table: `key` is its path inside the table (empty: the table
/// itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError {
    pub key: String,
    pub problem: String,
}

impl KeyError {
    pub fn new(key: &str, problem: impl Into<String>) -> Self {
        KeyError { key: key.to_string(), problem: problem.into() }
    }
}

/// What the scenario reader needs of a congestion controller: its name (the value of
/// `tcp.cc` and of its table's key), how to read its table, and how to make it.
pub trait Algorithm: Send + Sync {
    /// `tcp.cc = "<name>"` selects it; `[tcp.<name>]` holds its settings.
    fn name(&self) -> &'static str;
    /// The settings of `table` (keys over the defaults), checked.
    fn resolve(&self, table: &toml::Table) -> Result<Settings, KeyError>;
    /// Every key of its table with its default.
    fn defaults(&self) -> toml::Table;
    /// The controller of a flow with `cfg` (its settings in `cfg.cc_settings`, or the
    /// defaults when no table was given).
    fn controller(&self, cfg: &TcpConfig) -> AnyCc;
}

impl fmt::Debug for dyn Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm whose settings are a `T`: the common case, written as two functions, as a
/// mechanism's `spec::Sectioned` is.
pub struct Table<T> {
    pub name: &'static str,
    /// Checks values serde cannot (ranges): a key inside the table and the problem.
    pub validate: fn(&T) -> Result<(), KeyError>,
    /// The controller of a flow with `cfg` and settings `T`.
    pub controller: fn(&TcpConfig, &T) -> AnyCc,
}

impl<T> Algorithm for Table<T>
where
    T: DeserializeOwned + Serialize + Default + fmt::Debug + Send + Sync + 'static,
{
    fn name(&self) -> &'static str {
        self.name
    }

    fn resolve(&self, table: &toml::Table) -> Result<Settings, KeyError> {
        let t: T = serde_path_to_error::deserialize(toml::Value::Table(table.clone())).map_err(|e| {
            let path = e.path().to_string();
            KeyError::new(if path == "." { "" } else { &path }, e.into_inner().to_string())
        })?;
        (self.validate)(&t)?;
        Ok(Settings(Arc::new(t)))
    }

    fn defaults(&self) -> toml::Table {
        toml::Table::try_from(T::default()).expect("settings serialize as a TOML table")
    }

    fn controller(&self, cfg: &TcpConfig) -> AnyCc {
        match cfg.cc_settings.get::<T>(self.name) {
            Some(s) => (self.controller)(cfg, s),
            None => (self.controller)(cfg, &T::default()),
        }
    }
}

/// One algorithm's settings, of the type its [`Table`] declares.
#[derive(Clone)]
pub struct Settings(Arc<dyn Any + Send + Sync>);

/// The `[tcp.<name>]` tables a flow's configuration holds: for each, the keys given (merged
/// over the layers) and the settings they resolve to.
#[derive(Clone, Default)]
pub struct CcSettings {
    entries: Vec<(&'static str, toml::Table, Settings)>,
}

impl fmt::Debug for CcSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter().map(|(n, raw, _)| (n, raw))).finish()
    }
}

impl CcSettings {
    /// The settings of algorithm `name`, if a table gave any.
    pub fn get<T: 'static>(&self, name: &str) -> Option<&T> {
        self.entries.iter().find(|e| e.0 == name).and_then(|e| e.2 .0.downcast_ref())
    }

    /// The keys given so far for `name`.
    pub fn keys(&self, name: &str) -> Option<&toml::Table> {
        self.entries.iter().find(|e| e.0 == name).map(|e| &e.1)
    }

    /// Merges `layer` over the keys given so far for `alg` and resolves the result. The
    /// layer is checked alone first, so that an error names the layer that gave the key.
    pub fn apply(&mut self, alg: &dyn Algorithm, layer: &toml::Table) -> Result<(), KeyError> {
        alg.resolve(layer)?;
        let mut raw = self.keys(alg.name()).cloned().unwrap_or_default();
        merge(&mut raw, layer);
        let value = alg.resolve(&raw)?;
        match self.entries.iter_mut().find(|e| e.0 == alg.name()) {
            Some(e) => *e = (alg.name(), raw, value),
            None => self.entries.push((alg.name(), raw, value)),
        }
        Ok(())
    }
}

/// `over`'s keys replace `base`'s, table by table.
fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ALGORITHMS;
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).expect("TOML")
    }

    fn cubic() -> &'static dyn Algorithm {
        *ALGORITHMS.iter().find(|a| a.name() == "cubic").expect("cubic")
    }

    #[test]
    fn a_flow_layer_overrides_only_the_keys_it_gives() {
        let mut s = CcSettings::default();
        s.apply(cubic(), &table("beta = 0.5\nc = 0.3")).expect("valid");
        s.apply(cubic(), &table("beta = 0.6")).expect("valid");
        assert_eq!(s.keys("cubic"), Some(&table("beta = 0.6\nc = 0.3")));
        let st = s.get::<crate::tcp::cc::CubicSettings>("cubic").expect("cubic settings");
        assert_eq!((st.beta, st.c, st.fast_convergence), (0.6, 0.3, true));
    }

    #[test]
    fn an_unknown_key_is_named_by_its_path_in_the_table() {
        let e = cubic().resolve(&table("betta = 0.5")).err().expect("refused");
        assert_eq!(e.key, "betta");
        assert!(e.problem.contains("unknown field") && e.problem.contains("`beta`"), "{}", e.problem);
    }

    #[test]
    fn a_bad_layer_is_refused_even_when_a_later_one_would_fix_it() {
        let mut s = CcSettings::default();
        let e = s.apply(cubic(), &table("beta = 1.5")).expect_err("refused");
        assert_eq!(e.key, "beta");
        assert_eq!(s.keys("cubic"), None, "nothing kept");
    }

    #[test]
    fn every_built_in_algorithm_has_a_distinct_name_and_serializable_defaults() {
        let mut names: Vec<_> = ALGORITHMS.iter().map(|a| a.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALGORITHMS.len());
        for a in ALGORITHMS {
            a.resolve(&a.defaults()).unwrap_or_else(|e| panic!("{}: {e:?}", a.name()));
        }
    }
}
