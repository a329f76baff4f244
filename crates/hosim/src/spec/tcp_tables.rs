//! The `[tcp.<algorithm>]` tables of a scenario: `[tcp]` and every `flows[i].tcp` may hold
//! one per congestion controller (`tcp/cc/table.rs`). serde reads the flat keys of a
//! `TcpSection` with unknown keys refused, and cannot also collect the tables that algorithms
//! declare, so the reader takes them out of the TOML first ([`take`]) and puts them back on
//! the parsed sections ([`Taken::attach`]), where `TcpSection::apply` reads them. `tcp.cc`
//! is looked up among the same algorithms.
//!
//! A table for an algorithm other than the flow's `tcp.cc` is accepted and checked: a sweep
//! over `tcp.cc` keeps one scenario, and a flow that picks another controller may still
//! read `[tcp.<its algorithm>]`.

use super::error::{Check, ScenarioError};
use super::graph::TcpSection;
use super::schema::Scenario;
use crate::tcp::cc::Algorithm;
use crate::tcp::CcKind;

type Entries = Vec<(String, toml::Value)>;

/// Tables taken out of `[tcp]` and out of each `flows[i].tcp`, by flow index.
#[derive(Debug, Default)]
pub struct Taken {
    tcp: Entries,
    flows: Vec<(usize, Entries)>,
}

/// Takes every entry of `tcp` and of each `flows[i].tcp` that is a table or is named after
/// one of `algorithms` (no flat key of `[tcp]` is a table).
pub fn take(table: &mut toml::Table, algorithms: &[&'static dyn Algorithm]) -> Taken {
    let mut taken = Taken::default();
    if let Some(toml::Value::Table(tcp)) = table.get_mut("tcp") {
        taken.tcp = take_from(tcp, algorithms);
    }
    if let Some(toml::Value::Array(flows)) = table.get_mut("flows") {
        for (i, flow) in flows.iter_mut().enumerate() {
            if let Some(toml::Value::Table(tcp)) = flow.get_mut("tcp") {
                let entries = take_from(tcp, algorithms);
                if !entries.is_empty() {
                    taken.flows.push((i, entries));
                }
            }
        }
    }
    taken
}

fn take_from(tcp: &mut toml::Table, algorithms: &[&'static dyn Algorithm]) -> Entries {
    let names: Vec<String> = tcp
        .iter()
        .filter(|(k, v)| v.is_table() || algorithms.iter().any(|a| a.name() == k.as_str()))
        .map(|(k, _)| k.clone())
        .collect();
    names.into_iter().filter_map(|n| tcp.remove(&n).map(|v| (n, v))).collect()
}

impl Taken {
    /// Puts the tables back on `s` (its `[tcp]` and its flows), each under its algorithm, and
    /// finds every `cc` given among `algorithms`. Errors name the key.
    pub fn attach(
        self,
        s: &mut Scenario,
        algorithms: &[&'static dyn Algorithm],
        c: &Check,
    ) -> Result<(), ScenarioError> {
        attach_to(&mut s.tcp, self.tcp, algorithms, c, "tcp")?;
        for (i, entries) in self.flows {
            let prefix = format!("flows[{i}].tcp");
            let flow = s.flows.get_mut(i).ok_or_else(|| c.err(&prefix, "no such flow"))?;
            attach_to(flow.tcp.get_or_insert_with(TcpSection::default), entries, algorithms, c, &prefix)?;
        }
        for (i, f) in s.flows.iter_mut().enumerate() {
            if let Some(t) = f.tcp.as_mut() {
                find_cc(t, algorithms, c, &format!("flows[{i}].tcp"))?;
            }
        }
        find_cc(&mut s.tcp, algorithms, c, "tcp")
    }
}

fn attach_to(
    sec: &mut TcpSection,
    entries: Entries,
    algorithms: &[&'static dyn Algorithm],
    c: &Check,
    prefix: &str,
) -> Result<(), ScenarioError> {
    for (name, value) in entries {
        let key = format!("{prefix}.{name}");
        let Some(alg) = algorithms.iter().find(|a| a.name() == name) else {
            let known = names(algorithms);
            return Err(c.err(&key, &format!("unknown table: the congestion controllers' tables are {known}")));
        };
        let toml::Value::Table(t) = value else {
            return Err(c.err(&key, &format!("must be a table of {name}'s settings (`[{key}]`)")));
        };
        // Checked here too, so that a flow's table is refused when the scenario is read.
        alg.resolve(&t).map_err(|e| {
            let key = if e.key.is_empty() { key.clone() } else { format!("{key}.{}", e.key) };
            c.err(&key, &e.problem)
        })?;
        sec.tables.push((CcKind(*alg), t));
    }
    Ok(())
}

fn find_cc(
    sec: &mut TcpSection,
    algorithms: &[&'static dyn Algorithm],
    c: &Check,
    prefix: &str,
) -> Result<(), ScenarioError> {
    if let Some(name) = &sec.cc {
        let kind = algorithm(name, algorithms).map_err(|problem| c.err(&format!("{prefix}.cc"), &problem))?;
        sec.cc_kind = Some(kind);
    }
    Ok(())
}

/// The algorithm named `name` among `algorithms`.
pub fn algorithm(name: &str, algorithms: &[&'static dyn Algorithm]) -> Result<CcKind, String> {
    match algorithms.iter().find(|a| a.name() == name) {
        Some(a) => Ok(CcKind(*a)),
        None => Err(format!("unknown variant `{name}`, expected one of {}", names(algorithms))),
    }
}

fn names(algorithms: &[&'static dyn Algorithm]) -> String {
    algorithms.iter().map(|a| format!("`{}`", a.name())).collect::<Vec<_>>().join(", ")
}
