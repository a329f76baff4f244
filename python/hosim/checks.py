"""Warnings about input that is valid but probably not what was meant, and about results that
suggest so: a delay of 20 s (meant 20 ms?), a rate of 10 bit/s (meant 10 Mbit/s?), a flow that
delivered nothing. The commands print each as one line on stderr; the exit code is unchanged.

Standard library only (``hosim run --json`` uses it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

__all__ = ["empty_flow_warnings", "identical_seeds_warning", "implausible", "input_warnings", "result_warnings",
           "rwnd_limited_warnings", "scenario_warnings", "text_warnings", "warn"]

#: A delay or RTT key (seconds) above this is almost surely milliseconds given as seconds.
MAX_PLAUSIBLE_DELAY_S = 5.0
#: Link rates (bit/s) outside this range are almost surely a unit slip (kbit/s, Mbit/s).
PLAUSIBLE_RATE_BPS = (1e3, 1e12)
_DELAY_WORDS = ("delay", "rtt", "latency")


def implausible(key: str, value: Any) -> str | None:
    """Why ``value`` is implausible for dotted ``key`` by the unit its name ends with, or ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        return None
    leaf = key.rsplit(".", 1)[-1]
    if leaf.endswith("_s") and any(word in leaf for word in _DELAY_WORDS) and value > MAX_PLAUSIBLE_DELAY_S:
        return f"{key}={value:g}: {value:g} s delay: did you mean {value / 1e3:.3f}?"
    if leaf.endswith("_bps"):
        low, high = PLAUSIBLE_RATE_BPS
        if value < low:
            return f"{key}={value:g}: {value:g} bit/s: did you mean {value:g} Mbit/s ({value * 1e6:.0f})?"
        if value > high:
            return f"{key}={value:g}: {value:g} bit/s is more than 1 Tbit/s: check the unit (bit/s)"
    return None


def scenario_warnings(document: Mapping[str, Any] | None, overrides: Sequence[tuple[str, Any]]) -> list[str]:
    """Implausible values among the scenario's keys (``document``, parsed TOML) and the
    overrides (``(dotted key, python value)``, a key may come several times, as the values of a
    grid); an overridden key of the document is not checked. Each warning is given once."""
    overridden = {key for key, _ in overrides}
    values = [(k, v) for k, v in _flatten(document or {}) if k not in overridden] + list(overrides)
    return list(dict.fromkeys(w for w in (implausible(k, v) for k, v in values) if w is not None))


def text_warnings(text: str, overrides: Sequence[tuple[str, Any]]) -> list[str]:
    """``scenario_warnings`` of scenario TOML ``text`` (parsed once per distinct text: a run of
    ``hosim.run`` pays a dictionary lookup) and ``overrides``; unreadable TOML gives none."""
    overridden = {key for key, _ in overrides}
    values = [(k, v) for k, v in _document_values(text) if k not in overridden] + list(overrides)
    return list(dict.fromkeys(w for w in (implausible(k, v) for k, v in values) if w is not None))


@lru_cache(maxsize=32)
def _document_values(text: str) -> tuple[tuple[str, Any], ...]:
    from hosim.scenario import toml_loads

    loads = toml_loads()
    try:
        document = loads(text) if loads is not None else {}
    except ValueError:
        return ()
    return tuple(_flatten(document))


def input_warnings(scenario: Any, overrides: Sequence[tuple[str, Any]], unset: Sequence[str] = ()) -> list[str]:
    """``scenario_warnings`` of a scenario as ``hosim.run`` takes it (a preset name, a file, TOML
    text) without its ``unset`` keys, and of ``overrides`` (``(dotted key, python value)``); a
    scenario that cannot be read gives none (the run reports it)."""
    from hosim.scenario import load_scenario, toml_loads

    loads = toml_loads()
    try:
        document = loads(load_scenario(scenario)[0]) if loads is not None else None
    except ValueError:  # ScenarioError and TOML syntax errors: the run reports them
        document = None
    for key in unset:
        if isinstance(document, dict):
            *parents, leaf = key.split(".")
            table: Any = document
            for part in parents:
                table = table.get(part, {}) if isinstance(table, dict) else {}
            if isinstance(table, dict):
                table.pop(leaf, None)
    return scenario_warnings(document, overrides)


def identical_seeds_warning(seeds: Sequence[int], first: Mapping[str, Any], second: Mapping[str, Any]) -> str | None:
    """The warning when two seeds of one grid point give the same summary (apart from ``seed``
    and ``wall_time_s``): the scenario has no random element."""
    ignore = ("seed", "wall_time_s")
    if {k: v for k, v in first.items() if k not in ignore} != {k: v for k, v in second.items() if k not in ignore}:
        return None
    return (f"seeds {seeds[0]} and {seeds[1]} of the first grid point give identical summaries: "
            "the scenario has no random element, so more seeds only repeat the same runs")


def warn(messages: Iterable[str], stacklevel: int = 3) -> None:
    """Each message as a ``HosimWarning`` (``warnings.warn``), for the Python API."""
    import warnings

    from hosim.errors import HosimWarning

    for message in messages:
        warnings.warn(message, HosimWarning, stacklevel=stacklevel)


def _flatten(mapping: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    for key, value in mapping.items():
        if isinstance(value, Mapping):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


#: Up to this many flows that delivered nothing are warned about one line each; more are
#: summed up in one line (a 512-flow dumbbell can starve hundreds of flows).
EMPTY_FLOWS_LISTED = 3


def empty_flow_warnings(summary: Mapping[str, Any], context: str = "") -> list[str]:
    """The flows of the run summary that delivered no byte: a line each, or, past
    ``EMPTY_FLOWS_LISTED`` of them, one line with their number and the first names."""
    where = f" ({context})" if context else ""
    flows = summary.get("flows", []) or []
    empty = [str(f.get("name")) for f in flows if f.get("bytes_delivered") == 0]
    if len(empty) <= EMPTY_FLOWS_LISTED:
        return [
            f"flow {name} delivered no data{where}: check its start time, the link rates and the duration"
            for name in empty
        ]
    first = ", ".join(empty[:EMPTY_FLOWS_LISTED])
    more = len(empty) - EMPTY_FLOWS_LISTED
    return [
        f"{len(empty)} of {len(flows)} flows delivered no data{where} ({first} and {more} more; "
        "`bytes_delivered` in the summary lists them): check their start times, the link rates and the duration"
    ]


#: A flow limited by the peer's receive window for more than this share of its time gets a
#: warning: its throughput is capped near rwnd/RTT whatever the links allow.
RWND_LIMITED_SHARE = 0.5


def rwnd_limited_warnings(summary: Mapping[str, Any]) -> list[str]:
    """The flows the receive window held back for most of their time (the core's per-flow
    ``rwnd_limited_s``: the congestion window allowed more than the advertised window), one
    line for all of them."""
    end_s = summary.get("sim_time_s") or 0.0
    limited = []
    for f in summary.get("flows", []) or []:
        held_s = f.get("rwnd_limited_s") or 0.0
        active_s = f.get("completion_time_s") or max(end_s - (f.get("start_s") or 0.0), 0.0)
        if active_s > 0 and held_s > RWND_LIMITED_SHARE * active_s:
            limited.append((str(f.get("name")), held_s / active_s, f.get("goodput_bps") or 0.0))
    if not limited:
        return []
    shown = ", ".join(f"{name} {share:.0%} ({goodput / 1e6:.3g} Mbit/s)" for name, share, goodput in
                      limited[:EMPTY_FLOWS_LISTED])
    more = f" and {len(limited) - EMPTY_FLOWS_LISTED} more" if len(limited) > EMPTY_FLOWS_LISTED else ""
    return [f"{len(limited)} of {len(summary.get('flows', []))} flows were limited by the receiver's window for "
            f"most of their time ({shown}{more}; `rwnd_limited_s` in the summary): their throughput is capped "
            "near rwnd/RTT; raise tcp.rwnd_bytes if that is not meant"]


def result_warnings(summary: Mapping[str, Any]) -> list[str]:
    """Every warning a run's summary gives: flows that delivered nothing, flows the receive
    window held back."""
    return empty_flow_warnings(summary) + rwnd_limited_warnings(summary)
