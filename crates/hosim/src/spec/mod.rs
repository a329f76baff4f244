//! What a scenario describes below the level of its template: the explicit graph (nodes,
//! links, flows, TCP tables, rate models), the scenario schema, the template type every
//! mechanism exports, the one-line input errors and their validation helpers, and the builder
//! that turns a graph into a [`World`](crate::sim::World). Mechanism templates
//! (`crate::mobility`) describe their networks with these types.

pub mod build;
pub mod error;
pub mod graph;
pub mod rate;
pub mod schema;
pub mod tcp_tables;
pub mod template;
pub mod wifi;

pub use error::{Check, ScenarioError};
pub use graph::Graph;
pub use schema::Scenario;
pub use template::{Preset, Sectioned, Template};
