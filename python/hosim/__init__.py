"""hosim: packet-level simulator for TCP across mobility events.

>>> import hosim
>>> result = hosim.run("dumbbell", seed=1, overrides={"tcp.recovery": "sack"})
>>> result.summary["flows"][0]["goodput_bps"]
>>> result.cwnd            # a DataFrame: time_s, flow, cwnd_bytes, effective_window_bytes
>>> sweep = hosim.sweep("dumbbell", {"dumbbell.loss": [0.0, 0.01]}, seeds=5)
>>> sweep.flows            # one row per grid point, seed and flow

Importing ``hosim`` is cheap: ``run``, ``sweep`` and ``Result`` (which need pandas and the
native module) load on first use, so ``hosim.models`` works without the native extension.
Likely slips in the input are ``HosimWarning``s (``warnings``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hosim._version import __version__
from hosim.errors import HosimWarning, InvariantError, ScenarioError

__all__ = ["HosimWarning", "InvariantError", "Result", "ScenarioError", "__version__", "cancel_runs", "emulate",
           "presets", "run", "sweep"]

if TYPE_CHECKING:
    from hosim.api import Result, cancel_runs, presets, run, sweep
    from hosim.emulation import emulate

_LAZY = {"run", "Result", "cancel_runs", "presets", "sweep"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from hosim import api

        return getattr(api, name)
    if name == "emulate":
        from hosim.emulation import emulate

        return emulate
    raise AttributeError(f"module 'hosim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY | {"emulate"})
