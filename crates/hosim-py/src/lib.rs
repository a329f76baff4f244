//! Python bindings: a thin conversion layer over the `hosim` core. No simulation logic here.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into itself; clippy flags the macro output.
#![allow(clippy::useless_conversion)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::Value;

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
create_exception!(
    hosim._native,
    InternalError,
    PyRuntimeError,
    "The core stopped a run that went wrong (an event in the past, no progress): a bug in hosim."
);

/// Rows of traces a run may hold in memory when no sink takes them (all kinds together).
const MEMORY_TRACE_ROWS: usize = 20_000_000;

/// Bumped by `cancel_runs()`: a run started before the bump stops at its next signal check,
/// in whatever thread it runs (Python delivers Ctrl-C to the main thread only).
static CANCEL_GENERATION: AtomicU64 = AtomicU64::new(0);
/// Set by an `atexit` hook: the interpreter is shutting down. A run still going on in a daemon
/// thread must then never take the GIL again (CPython ends such a thread with `pthread_exit`,
/// which cannot unwind through Rust frames: the process would abort with SIGABRT); it parks
/// instead, and the process exits around it.
static SHUTTING_DOWN: AtomicBool = AtomicBool::new(false);

/// Parks this thread for good if the interpreter is shutting down (see `SHUTTING_DOWN`).
fn park_if_shutting_down() {
    while SHUTTING_DOWN.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

/// cancel_runs() -> None
///
/// Stops every run going on in this process, in any thread, at its next signal check (every
/// 64k events): each raises KeyboardInterrupt("interrupted at t = ... s"), as Ctrl-C does for a
/// run in the main thread. Runs started afterwards are not affected.
#[pyfunction]
fn cancel_runs() {
    CANCEL_GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// The `atexit` hook (see `SHUTTING_DOWN`).
#[pyfunction]
fn _shutting_down() {
    SHUTTING_DOWN.store(true, Ordering::SeqCst);
    CANCEL_GENERATION.fetch_add(1, Ordering::SeqCst);
}

fn table_dict<'py>(
    py: Python<'py>,
    t: &hosim::TraceTable,
    kind: hosim::TraceKind,
    names: &[String],
) -> PyResult<Bound<'py, PyDict>> {
    let (_, value_col) = kind.names();
    let id_col = if kind.per_flow() { "flow" } else { "queue" };
    let d = PyDict::new_bound(py);
    let time: Vec<f64> = t.time_ns.iter().map(|&ns| ns as f64 / 1e9).collect();
    let ids: Vec<&str> = t.id.iter().map(|&i| names.get(i as usize).map_or("?", |s| s.as_str())).collect();
    d.set_item("time_s", PyList::new_bound(py, time))?;
    d.set_item(id_col, PyList::new_bound(py, ids))?;
    d.set_item(value_col, PyList::new_bound(py, &t.value))?;
    if let Some(col) = kind.second_column() {
        d.set_item(col, PyList::new_bound(py, &t.value2))?;
    }
    Ok(d)
}

/// run(scenario_toml, source, seed, overrides, traces, capture_dir=None, capture_links=None,
///     capture_format=None, trace_sink=None, summary_dict=False) -> (summary, traces)
///
/// The summary is JSON text, or with `summary_dict` the dict `json.loads` would make of it.
/// With `capture_dir`, packets of `capture_links` (names or "all"; default: the scenario's
/// `[capture]`) are written there as pcapng or pcap (`capture_format`).
/// The run checks for signals (Ctrl-C) every 64k events; a KeyboardInterrupt raised by a
/// signal handler ends it as KeyboardInterrupt("interrupted at t = ... s"). With `trace_sink`,
/// trace rows are passed in chunks of about 64k rows as `trace_sink(name, {column: values})`
/// while the run goes on, and the returned traces are empty; without it they are returned, up
/// to `MEMORY_TRACE_ROWS` rows in all (more is an error).
#[pyfunction]
#[pyo3(signature = (scenario_toml, source, seed, overrides, traces, capture_dir=None, capture_links=None, capture_format=None, trace_sink=None, summary_dict=false))]
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
    trace_sink: Option<PyObject>,
    summary_dict: bool,
) -> PyResult<(PyObject, PyObject)> {
    // The Python side stages its capture in a directory it made (`_StagedCapture`), and may
    // remove it when it gives the run up on Ctrl-C: the core must not make it again.
    let capture =
        hosim::CaptureOptions { dir: capture_dir, links: capture_links, format: capture_format, existing_dir: true };
    let opts = hosim::RunOptions { seed, overrides, traces, capture };
    let text = scenario_toml.to_string();
    let src = source.to_string();
    let mut sink_err: Option<PyErr> = None;
    let mut mem: [hosim::TraceTable; 8] = Default::default();
    let mut held = 0usize;
    let generation = CANCEL_GENERATION.load(Ordering::SeqCst);
    let result = py.allow_threads(|| {
        // Ctrl-C: Python's handler raises KeyboardInterrupt inside check_signals (main thread);
        // cancel_runs() in any thread.
        let mut interrupt = || {
            park_if_shutting_down();
            CANCEL_GENERATION.load(Ordering::SeqCst) != generation || Python::with_gil(|py| py.check_signals().is_err())
        };
        let mut sink = |kind: hosim::TraceKind, t: &hosim::TraceTable, names: &[String]| -> Result<(), String> {
            if let Some(cb) = &trace_sink {
                park_if_shutting_down();
                return Python::with_gil(|py| {
                    let r = table_dict(py, t, kind, names).and_then(|d| cb.call1(py, (kind.names().0, d)).map(|_| ()));
                    r.map_err(|e| {
                        let m = e.to_string();
                        sink_err.get_or_insert(e);
                        m
                    })
                });
            }
            held += t.len();
            if held > MEMORY_TRACE_ROWS {
                return Err(format!(
                    "traces: more than {MEMORY_TRACE_ROWS} rows would be held in memory; write them to files \
                     with `hosim run --out DIR` (streamed), or shorten duration_s"
                ));
            }
            let m = &mut mem[kind as usize];
            m.time_ns.extend_from_slice(&t.time_ns);
            m.id.extend_from_slice(&t.id);
            m.value.extend_from_slice(&t.value);
            m.value2.extend_from_slice(&t.value2);
            Ok(())
        };
        let mut hooks = hosim::RunHooks { interrupt: Some(&mut interrupt), trace_sink: Some(&mut sink) };
        let result = hosim::run_with(&text, &src, &opts, &mut hooks);
        park_if_shutting_down(); // before allow_threads takes the GIL back
        result
    });
    if let Some(e) = sink_err {
        return Err(e);
    }
    let out = result.map_err(|e| match e {
        hosim::Error::Scenario(e) => ScenarioError::new_err(e.message),
        hosim::Error::Invariant(m) => InvariantError::new_err(m),
        hosim::Error::Io(m) => PyOSError::new_err(m),
        hosim::Error::Internal(m) => InternalError::new_err(m),
        hosim::Error::Interrupted { at_s } => {
            pyo3::exceptions::PyKeyboardInterrupt::new_err(format!("interrupted at t = {at_s} s"))
        }
        hosim::Error::Output(m) => PyRuntimeError::new_err(m),
    })?;
    // As a dict, built straight from the summary: the same dict as `json.loads` of the JSON
    // text (the same keys in the same order, the same ints and floats), without writing and
    // parsing that text.
    let summary: PyObject = if summary_dict {
        summary_to_py(py, &out.summary, &mut HashMap::new())?
    } else {
        serde_json::to_string(&out.summary).map_err(|e| PyRuntimeError::new_err(e.to_string()))?.into_py(py)
    };
    let tables = PyDict::new_bound(py);
    if traces && trace_sink.is_none() {
        for kind in hosim::TraceKind::ALL {
            let names = if kind.per_flow() { &out.flow_names } else { &out.link_names };
            tables.set_item(kind.names().0, table_dict(py, &mem[kind as usize], kind, names)?)?;
        }
    }
    Ok((summary, tables.into_any().unbind()))
}

/// The summary as the objects `json.loads` makes of its JSON text: null, bools, ints (a JSON
/// number without a fraction: serde_json keeps u64 and i64 apart from f64, and writes an f64
/// with a fraction or exponent), floats, strings, lists, and dicts in the summary's key order.
///
/// Written here instead of with `pythonize` for the keys: a summary repeats a few dozen keys
/// once per flow and per link (about 24,000 at 512 flows), and `pythonize` makes and hashes a
/// new Python string for each. Here each distinct key is made once (`keys`), and Python keeps
/// its hash (bench/decisions.md, "A summary without copies").
fn summary_to_py<'v>(py: Python<'_>, v: &'v Value, keys: &mut HashMap<&'v str, Py<PyString>>) -> PyResult<PyObject> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_py(py),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_py(py),
            (None, Some(i)) => i.into_py(py),
            // A Value holds only finite floats (serde_json turns NaN and infinities into null).
            (None, None) => n.as_f64().unwrap_or(f64::NAN).into_py(py),
        },
        Value::String(s) => s.into_py(py),
        Value::Array(items) => {
            let list = PyList::empty_bound(py);
            for item in items {
                list.append(summary_to_py(py, item, keys)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new_bound(py);
            for (k, item) in map {
                let key = keys.entry(k.as_str()).or_insert_with(|| PyString::new_bound(py, k).unbind()).clone_ref(py);
                let value = summary_to_py(py, item, keys)?;
                dict.set_item(key, value)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// emulate(...) -> (summary, traces): the summary as JSON text and, with `traces`, the trace
/// tables as `run` returns them (else an empty dict): the scenario in real time, with the
/// kernel's TCP at the chosen flows' hosts (crates/hosim-emulate). Linux only; needs root.
#[cfg(target_os = "linux")]
#[pyfunction]
#[pyo3(signature = (scenario_toml, source, seed, overrides, flows, server=None, client=None, client_delay_s=0.2, time_limit_s=None, app_output_dir=None, capture_dir=None, capture_links=Vec::new(), realtime=true, multipath=false, traces=false, follow_attachment=true))]
#[allow(clippy::too_many_arguments)]
fn emulate(
    py: Python<'_>,
    scenario_toml: &str,
    source: &str,
    seed: Option<u64>,
    overrides: Vec<(String, String)>,
    flows: Vec<String>,
    server: Option<String>,
    client: Option<String>,
    client_delay_s: f64,
    time_limit_s: Option<f64>,
    app_output_dir: Option<std::path::PathBuf>,
    capture_dir: Option<std::path::PathBuf>,
    capture_links: Vec<String>,
    realtime: bool,
    multipath: bool,
    traces: bool,
    follow_attachment: bool,
) -> PyResult<(String, PyObject)> {
    let opts = hosim_emulate::EmulateOptions {
        seed,
        overrides,
        flows,
        server,
        client,
        client_delay_s,
        time_limit_s,
        app_output_dir,
        capture_dir,
        capture_links,
        realtime,
        multipath,
        follow_attachment,
        traces,
    };
    let (text, src) = (scenario_toml.to_string(), source.to_string());
    // The loop watches SIGINT itself (and cleans up); Python's handler also runs, so Ctrl-C
    // then raises KeyboardInterrupt here.
    let out = py.allow_threads(|| hosim_emulate::emulate(&text, &src, &opts)).map_err(|e| match e {
        hosim_emulate::Error::Input(m) => ScenarioError::new_err(m),
        hosim_emulate::Error::Run(hosim::Error::Scenario(e)) => ScenarioError::new_err(e.message),
        hosim_emulate::Error::Run(hosim::Error::Invariant(m)) => InvariantError::new_err(m),
        hosim_emulate::Error::Run(hosim::Error::Interrupted { at_s }) => {
            pyo3::exceptions::PyKeyboardInterrupt::new_err(format!("interrupted at t = {at_s} s"))
        }
        hosim_emulate::Error::Run(hosim::Error::Io(m)) => PyOSError::new_err(m),
        hosim_emulate::Error::Run(e) => InternalError::new_err(e.to_string()),
    })?;
    let summary = serde_json::to_string(&out.summary).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let tables = PyDict::new_bound(py);
    if traces {
        for kind in hosim::TraceKind::ALL {
            let names = if kind.per_flow() { &out.flow_names } else { &out.link_names };
            tables.set_item(kind.names().0, table_dict(py, &out.traces.tables[kind as usize], kind, names)?)?;
        }
    }
    Ok((summary, tables.into_any().unbind()))
}

/// presets() -> list of (name, description, toml)
#[pyfunction]
fn presets() -> Vec<(&'static str, &'static str, &'static str)> {
    hosim::scenario::presets::PRESETS.to_vec()
}

/// estimated_cost(scenario_toml, overrides) -> duration_s × flows, the run's cost estimated
/// before it runs; each template counts the flows of its own section. Text that is not a valid
/// scenario is estimated from what can be read of it (defaults: 10 s, 1 flow).
#[pyfunction]
fn estimated_cost(scenario_toml: &str, overrides: Vec<(String, String)>) -> f64 {
    hosim::scenario::cost::estimated_cost(scenario_toml, &overrides, &hosim::scenario::Registry::builtin())
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(estimated_cost, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    #[cfg(target_os = "linux")]
    m.add_function(wrap_pyfunction!(emulate, m)?)?;
    m.add_function(wrap_pyfunction!(cancel_runs, m)?)?;
    let hook = wrap_pyfunction!(_shutting_down, m)?;
    m.py().import_bound("atexit")?.call_method1("register", (hook,))?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add("InvariantError", m.py().get_type_bound::<InvariantError>())?;
    m.add("InternalError", m.py().get_type_bound::<InternalError>())?;
    Ok(())
}
