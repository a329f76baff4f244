//! Python bindings: a thin conversion layer over the `hosim` core. No simulation logic here.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into itself; clippy flags the macro output.
#![allow(clippy::useless_conversion)]

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(
    hosim._native,
    ScenarioError,
    PyValueError,
    "Invalid scenario input (one line naming source, key and problem)."
);
create_exception!(
    hosim._native,
    InvariantError,
    PyRuntimeError,
    "A simulator invariant was violated (a bug in hosim)."
);

fn table_dict<'py>(
    py: Python<'py>,
    t: &hosim::TraceTable,
    id_col: &str,
    value_col: &str,
    names: &[String],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    let time: Vec<f64> = t.time_ns.iter().map(|&ns| ns as f64 / 1e9).collect();
    let ids: Vec<&str> = t.id.iter().map(|&i| names.get(i as usize).map_or("?", |s| s.as_str())).collect();
    d.set_item("time_s", PyList::new_bound(py, time))?;
    d.set_item(id_col, PyList::new_bound(py, ids))?;
    d.set_item(value_col, PyList::new_bound(py, &t.value))?;
    Ok(d)
}

/// run(scenario_toml, source, seed, overrides, traces, capture_dir=None, capture_links=None,
/// capture_format=None) -> (summary_json, traces)
#[pyfunction]
#[pyo3(signature = (scenario_toml, source, seed, overrides, traces, capture_dir=None, capture_links=None, capture_format=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    scenario_toml: &str,
    source: &str,
    seed: Option<u64>,
    overrides: Vec<(String, String)>,
    traces: bool,
    capture_dir: Option<std::path::PathBuf>,
    capture_links: Option<Vec<String>>,
    capture_format: Option<String>,
) -> PyResult<(String, PyObject)> {
    let capture = hosim::CaptureOptions { dir: capture_dir, links: capture_links, format: capture_format };
    let opts = hosim::RunOptions { seed, overrides, traces, capture };
    let text = scenario_toml.to_string();
    let src = source.to_string();
    let out = py.allow_threads(move || hosim::run(&text, &src, &opts)).map_err(|e| match e {
        hosim::Error::Scenario(e) => ScenarioError::new_err(e.message),
        hosim::Error::Invariant(m) => InvariantError::new_err(m),
        hosim::Error::Io(m) => PyOSError::new_err(m),
    })?;
    let summary = serde_json::to_string(&out.summary).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let tables = PyDict::new_bound(py);
    if traces {
        for kind in hosim::TraceKind::ALL {
            let (name, value_col) = kind.names();
            let (id_col, names) = if kind.per_flow() { ("flow", &out.flow_names) } else { ("queue", &out.link_names) };
            tables.set_item(name, table_dict(py, out.traces.table(kind), id_col, value_col, names)?)?;
        }
        tables.set_item("goodput", table_dict(py, &out.goodput, "flow", "goodput_bps", &out.flow_names)?)?;
    }
    Ok((summary, tables.into_any().unbind()))
}

/// presets() -> list of (name, description, toml)
#[pyfunction]
fn presets() -> Vec<(&'static str, &'static str, &'static str)> {
    hosim::scenario::presets::PRESETS.to_vec()
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add("InvariantError", m.py().get_type_bound::<InvariantError>())?;
    Ok(())
}
