"""The exceptions hosim raises, and its warning category.

``ScenarioError`` (a ``ValueError``) means the input is wrong: a scenario file, a preset name,
an override. Its message is one line naming the source, the key and the problem.
``InvariantError`` (a ``RuntimeError``) means the simulator broke one of its own invariants,
for example packet conservation: that is a bug in hosim, never in the scenario.

Both are the native module's classes, so errors raised by the Rust core and by the Python
layer are caught by the same ``except`` clause. Without the native module (for example when
only ``hosim.models`` is used from a source checkout) stand-ins of the same names are defined.
"""

from __future__ import annotations

__all__ = ["ClusterError", "HosimWarning", "Interrupted", "InvariantError", "ScenarioError"]

try:
    from hosim._native import InvariantError, ScenarioError
except ImportError:  # native module not built: keep hosim.models and the CLI help usable

    class ScenarioError(ValueError):  # type: ignore[no-redef]
        """Invalid input: one line naming the source, the key and the problem."""

    class InvariantError(RuntimeError):  # type: ignore[no-redef]
        """A violated simulator invariant: a bug in hosim."""


class HosimWarning(UserWarning):
    """Input that is valid but probably a slip (a 20 s delay, a 50 bit/s link), or a result that
    suggests one (a flow that delivered nothing, seeds that give identical runs). The Python API
    issues these through ``warnings.warn``; the command line prints the same text as
    ``hosim: warning: ...`` lines."""


class Interrupted(Exception):
    """Ctrl-C during a command that keeps its finished work (``hosim sweep``); the message says
    what was kept and how to resume. The CLI prints it as one line and exits 130."""


class ClusterError(RuntimeError):
    """``--cluster`` cannot be used: Dask is not installed, the scheduler cannot be reached, or a
    worker runs another hosim build. The CLI prints it as one line and exits 2."""
