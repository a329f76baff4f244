"""Warnings about input that is valid but probably not what was meant, and about results that
suggest so: a delay of 20 s (meant 20 ms?), a rate of 10 bit/s (meant 10 Mbit/s?), a flow that
delivered nothing. The commands print each as one line on stderr; the exit code is unchanged.

Standard library only (``hosim run --json`` uses it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["empty_flow_warnings", "implausible", "scenario_warnings"]

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
