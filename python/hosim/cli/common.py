"""What the commands that run simulations share: ``--set`` and ``--grid`` parsing, warnings
about implausible scenario values, and the manifest of an output directory."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from hosim.cli.invocation import command_line

__all__ = ["fail", "parse_grid", "parse_sets", "scenario_warnings", "split_top_level", "write_manifest"]


def fail(message: str) -> NoReturn:
    """A usage error: one line on stderr, exit 2."""
    raise click.UsageError(message)


def parse_sets(items: Sequence[str]) -> list[tuple[str, str]]:
    """``--set a.b=value`` -> ``("a.b", "value")``, value kept raw (the core reads it as TOML)."""
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail(f"--set {item!r}: expected KEY=VALUE with a dotted key, e.g. --set dumbbell.loss=0.01")
        pairs.append((key.strip(), value))
    return pairs


def parse_grid(items: Sequence[str]) -> dict[str, list[Any]]:
    """``--grid a.b=1,2,3`` -> ``{"a.b": [1, 2, 3]}``, each value read as TOML (else a string)."""
    from hosim.scenario import parse_toml_value

    grid: dict[str, list[Any]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"--grid {item!r}: expected KEY=V1,V2,... e.g. --grid tcp.recovery=reno,sack")
        if key in grid:
            fail(f"--grid {key}: given twice")
        parts = split_top_level(values)
        if any(not p for p in parts):
            fail(f"--grid {item!r}: empty value in the list")
        grid[key] = [parse_toml_value(p) for p in parts]
    return grid


def split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets, braces and quotes, so ``[1,2],[3,4]`` is two values."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def scenario_warnings(scenario: str, overrides: Sequence[tuple[str, Any]], unsets: Sequence[str]) -> list[str]:
    """The warnings about implausible values in the scenario (file, preset or text) and the
    overrides (``hosim.checks.input_warnings``). The caller prints them once the scenario is
    known to be valid: a value the core rejects gets its error line only, not a "did you mean"
    warning before it."""
    from hosim.checks import input_warnings

    return input_warnings(scenario, overrides, unsets)


def write_manifest(out: Path, command: str, text: str, source: str, fields: Mapping[str, Any],
                   line: Sequence[str] | None = None) -> Path:
    """``manifest.json`` of a command's output directory: the command, the core's version, the
    scenario with its hash, ``fields`` and the command line that was run (``line``, or the
    current click context's: pass it when writing from another thread)."""
    import hashlib

    from hosim.outdir import write_manifest as write
    from hosim.runner import core_version

    manifest = {
        "command": command,
        "hosim": core_version(),
        "scenario": source,
        "scenario_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        **fields,
        "command_line": list(line) if line is not None else command_line(),
    }
    return write(out, manifest)
