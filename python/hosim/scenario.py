"""Scenario text: where a scenario comes from (a file, a preset, TOML text), the TOML values of
``--set`` and ``overrides={...}`` (read and written), and ``--unset``.

Standard library only (plus ``tomli``/``tomli_w`` where TOML must be read or written on old
Pythons): sweep workers and ``hosim run --json`` import it. The presets come from the native
module, imported on first use.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple, Union

from hosim.errors import ScenarioError

__all__ = [
    "STRING_SOURCE",
    "Preset",
    "ScenarioLike",
    "load_scenario",
    "native",
    "override_pairs",
    "parse_toml_value",
    "presets",
    "remove_keys",
    "toml_literal",
    "toml_loads",
]

ScenarioLike = Union[str, "os.PathLike[str]"]

#: The label of a scenario given as TOML text.
STRING_SOURCE = "<string>"


class Preset(NamedTuple):
    """A scenario shipped with hosim: a topology template filled with one paper's values."""

    name: str
    description: str
    toml: str


def presets() -> list[Preset]:
    """All presets, in the order the core lists them."""
    return [Preset(*entry) for entry in native().presets()]


def native() -> Any:
    """The Rust extension module, imported on first use so that the pure-Python helpers here
    (``toml_literal``, ...) work without it."""
    try:
        import hosim._native as _native
    except ImportError as exc:
        raise ImportError(
            "hosim's native module (hosim._native) is not built: "
            "install the package with `pip install -e .` from the repository root"
        ) from exc
    return _native


# --- scenario text -------------------------------------------------------------------------


def load_scenario(scenario: ScenarioLike) -> tuple[str, str]:
    """Find the TOML text of ``scenario`` and a label naming where it came from.

    ``scenario`` is resolved in this order: a ``Path`` is a file; a string containing a
    newline is TOML text; a string naming an existing file is that file; a string containing
    ``=`` is TOML text; a string that looks like a path (``/``, ``.toml``, leading ``.`` or ``~``)
    is a file; any other string is a preset name. A missing file or unknown preset is a
    ``ScenarioError``.
    """
    if isinstance(scenario, os.PathLike):
        return _read_scenario_file(Path(scenario))
    if not isinstance(scenario, str):
        raise TypeError(f"scenario must be a path, a preset name or TOML text, not {type(scenario).__name__}")
    if "\n" in scenario:
        return scenario, STRING_SOURCE
    path = Path(scenario).expanduser()
    if path.is_file():
        return _read_scenario_file(path, label=scenario)
    if "=" in scenario:
        return scenario, STRING_SOURCE
    if _looks_like_path(scenario):
        return _read_scenario_file(path, label=scenario)
    for preset in presets():
        if preset.name == scenario:
            return preset.toml, f"preset {preset.name}"
    names = ", ".join(p.name for p in presets())
    raise ScenarioError(f"{scenario}: neither a scenario file nor a preset (presets: {names})")


def _looks_like_path(text: str) -> bool:
    return "/" in text or os.sep in text or text.endswith(".toml") or text.startswith(("~", "."))


def _read_scenario_file(path: Path, label: str | None = None) -> tuple[str, str]:
    source = label if label is not None else str(path)
    try:
        return path.read_text(encoding="utf-8"), source
    except FileNotFoundError:
        raise ScenarioError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise ScenarioError(f"{source}: is a directory, not a scenario file") from None
    except OSError as exc:
        raise ScenarioError(f"{source}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{source}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None


# --- override values -------------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_STRING_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def toml_literal(value: Any) -> str:
    """The TOML literal for a Python value: ``True`` -> ``true``, ``"reno"`` -> ``"reno"``,
    ``0.01`` -> ``0.01``, lists -> arrays, mappings -> inline tables.

    Raises ``TypeError`` for values TOML cannot express (``None``, arbitrary objects).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return _toml_float(float(value))
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, Mapping):
        items = ", ".join(f"{_toml_key(k)} = {toml_literal(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return toml_literal(value.tolist())
    raise TypeError(f"{type(value).__name__} value {value!r} has no TOML literal")


def _toml_float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)  # always has '.' or an exponent, both valid TOML floats


def _toml_string(value: str) -> str:
    out = []
    for ch in value:
        if ch in _STRING_ESCAPES:
            out.append(_STRING_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_key(key: Any) -> str:
    key = str(key)
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def parse_toml_value(raw: str) -> Any:
    """Read a ``--set`` / ``--grid`` value the way the core does: a TOML value if it parses
    as one (``0.01``, ``true``, ``[1, 2]``, ``"x"``), otherwise the raw string (``reno``)."""
    if "\n" in raw or "\r" in raw:
        return raw
    loads = toml_loads()
    if loads is None:  # Python < 3.11 without tomli: JSON covers numbers, booleans and arrays
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    try:
        return loads(f"v = {raw}")["v"]
    except ValueError:  # tomllib.TOMLDecodeError is a ValueError
        return raw


def toml_loads() -> Any:
    """``tomllib.loads`` (``tomli.loads`` before Python 3.11), or ``None`` without tomli.
    TOML nested too deeply for the parser (a ``RecursionError`` inside it) is a ``ValueError``
    like any other invalid TOML: the input's fault, not a bug (exit 2)."""
    if sys.version_info >= (3, 11):
        import tomllib

        return _depth_checked(tomllib.loads)
    try:
        import tomli
    except ImportError:
        return None
    return _depth_checked(tomli.loads)


@cache
def _depth_checked(loads: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    def checked(text: str) -> dict[str, Any]:
        try:
            return loads(text)
        except RecursionError:
            raise ValueError("arrays or tables nested too deeply") from None

    return checked


def remove_keys(text: str, keys: Sequence[str], source: str = STRING_SOURCE) -> str:
    """Scenario TOML ``text`` without the dotted ``keys`` (``--unset``), so that an override can
    use a key that conflicts with one the preset sets. The text is parsed and written again
    (comments are dropped; values are unchanged). A key that is not there is a ``ScenarioError``."""
    if not keys:
        return text
    loads = toml_loads()
    if loads is None:
        raise ScenarioError(f"{source}: --unset needs the tomli package on Python < 3.11")
    import tomli_w

    try:
        document = loads(text)
    except ValueError as exc:
        raise ScenarioError(f"{source}: not valid TOML: {exc}") from None
    for key in keys:
        *parents, leaf = key.split(".")
        table: Any = document
        for part in parents:
            table = table.get(part) if isinstance(table, dict) else None
        if not isinstance(table, dict) or leaf not in table:
            raise ScenarioError(f"{source}: --unset {key}: the scenario does not set this key")
        del table[leaf]
    return str(tomli_w.dumps(document))


def override_pairs(overrides: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """``{"a.b": value}`` -> ``[("a.b", "<TOML literal>")]``, the form the core takes."""
    if overrides is None:
        return []
    if not isinstance(overrides, Mapping):
        raise TypeError(f"overrides must be a mapping of dotted key to value, not {type(overrides).__name__}")
    pairs = []
    for key, value in overrides.items():
        if not isinstance(key, str) or not key:
            raise ScenarioError(f"override key {key!r}: must be a non-empty dotted path such as 'tcp.mss_bytes'")
        try:
            pairs.append((key, toml_literal(value)))
        except TypeError as exc:
            raise ScenarioError(f"override {key}: {exc}") from None
    return pairs
