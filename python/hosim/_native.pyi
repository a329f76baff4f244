"""Type stub for the Rust extension module ``hosim._native`` (crates/hosim-py)."""

from collections.abc import Callable
from typing import Any, Literal, overload

class ScenarioError(ValueError):
    """Invalid input; ``str(e)`` is one line naming the source, the key and the problem."""

class InvariantError(RuntimeError):
    """A violated simulator invariant: a bug in hosim."""

class InternalError(RuntimeError):
    """The core stopped a run that went wrong (an event in the past, no progress): a bug."""

_Tables = dict[str, dict[str, list[float | int | str]]]

@overload
def run(
    scenario_toml: str,
    source: str,
    seed: int | None,
    overrides: list[tuple[str, str]],
    traces: bool,
    capture_dir: str | None = None,
    capture_links: list[str] | None = None,
    capture_format: str | None = None,
    trace_sink: Callable[[str, dict[str, list[float | int | str]]], object] | None = None,
    summary_dict: Literal[False] = False,
) -> tuple[str, _Tables]: ...
@overload
def run(
    scenario_toml: str,
    source: str,
    seed: int | None,
    overrides: list[tuple[str, str]],
    traces: bool,
    capture_dir: str | None = None,
    capture_links: list[str] | None = None,
    capture_format: str | None = None,
    trace_sink: Callable[[str, dict[str, list[float | int | str]]], object] | None = None,
    *,
    summary_dict: Literal[True],
) -> tuple[dict[str, Any], _Tables]:
    """Run a scenario with ``seed`` (None: the scenario's ``seed``, else 1); returns the summary
    as JSON text (with ``summary_dict``, as the dict ``json.loads`` would make of that text,
    built without the text) and, when ``traces`` and no ``trace_sink``, the trace tables as
    {name: {column: values}} (at most 20 million rows, else RuntimeError). With ``trace_sink``
    the tables are passed to it in chunks while the run goes on. With ``capture_dir``, the
    packet capture of ``capture_links`` (else the scenario's ``[capture]``) is written there; a
    write failure raises OSError. Signals are checked every 64k events: Ctrl-C ends the run
    with KeyboardInterrupt("interrupted at t = ... s")."""

def emulate(
    scenario_toml: str,
    source: str,
    seed: int | None,
    overrides: list[tuple[str, str]],
    flows: list[str],
    server: str | None = None,
    client: str | None = None,
    client_delay_s: float = 0.2,
    time_limit_s: float | None = None,
    app_output_dir: str | None = None,
    capture_dir: str | None = None,
    capture_links: list[str] = ...,
    realtime: bool = True,
    multipath: bool = False,
    traces: bool = False,
    follow_attachment: bool = True,
) -> tuple[str, dict[str, dict[str, list[Any]]]]:
    """Linux only (absent elsewhere): the scenario in real time with the kernel's TCP at the
    chosen flows' hosts (crates/hosim-emulate); the summary as JSON text, and with ``traces``
    the trace tables as ``run`` returns them (else an empty dict)."""

def presets() -> list[tuple[str, str, str]]:
    """(name, one-line description, TOML text) of every embedded preset."""

def estimated_cost(scenario_toml: str, overrides: list[tuple[str, str]]) -> float:
    """``duration_s × flows`` of the scenario with the overrides applied, estimated before the
    run; each template counts the flows of its own section (text that is not a valid scenario
    counts what can be read of it: 10 s and 1 flow by default)."""

def version() -> str:
    """Version of the Rust core."""

def cancel_runs() -> None:
    """Stop every run going on in this process, in any thread, at its next signal check: each
    raises KeyboardInterrupt("interrupted at t = ... s"). Runs started later are not affected."""
