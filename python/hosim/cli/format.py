"""What every command prints with: the console, tables that never cut a cell, numbers
formatted by the unit their column name ends with, CSV, and warning lines on stderr."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

__all__ = [
    "csv_text",
    "fmt_by_name",
    "fmt_mb",
    "fmt_mbps",
    "fmt_mean_std",
    "fmt_ms",
    "fmt_num",
    "header_for",
    "new_console",
    "print_table",
    "summary_csv",
    "warn",
]


def warn(message: str) -> None:
    """One warning line on stderr: ``hosim: warning: MESSAGE``."""
    sys.stderr.write(f"hosim: warning: {message}\n")
    sys.stderr.flush()


def new_console() -> Console:
    from rich.console import Console

    # Not a terminal (a pipe, a log file): $COLUMNS, else 80 columns; wider tables print as blocks.
    width = None if sys.stdout.isatty() else _int_env("COLUMNS", 80)
    return Console(highlight=False, soft_wrap=False, width=width)


def _int_env(name: str, default: int) -> int:
    try:
        return max(40, int(os.environ.get(name, "")))
    except ValueError:
        return default


# --- number formatting for tables ------------------------------------------------------------


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt_mbps(bps: Any) -> str:
    """bit/s -> Mbit/s with 3 decimals (cellular rates are often below 1 Mbit/s)."""
    return "-" if _missing(bps) else f"{bps / 1e6:,.3f}"


def fmt_mb(n_bytes: Any) -> str:
    return "-" if _missing(n_bytes) else f"{n_bytes / 1e6:,.3f}"


def fmt_ms(seconds: Any) -> str:
    return "-" if _missing(seconds) else f"{seconds * 1e3:,.1f}"


def fmt_num(value: Any, digits: int = 2) -> str:
    if _missing(value):
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def fmt_by_name(name: str, value: Any) -> str:
    """Format a value by the unit its column name ends with (see ``header_for``)."""
    if name.endswith("_bps"):
        return fmt_mbps(value)
    if name.endswith("_bytes"):
        return fmt_mb(value)
    if name.endswith("_s"):
        return fmt_ms(value) if _in_ms(name) else fmt_num(value, 3)
    return fmt_num(value)


def header_for(name: str) -> str:
    """Column header with the unit ``fmt_by_name`` shows: ``rtt_mean_s`` -> ``rtt mean (ms)``,
    ``goodput_bps`` -> ``goodput (Mbit/s)``, ``bytes_delivered`` style names unchanged."""
    for suffix, unit in (("_bps", "Mbit/s"), ("_bytes", "MB"), ("_s", "s")):
        if name.endswith(suffix):
            unit = "ms" if suffix == "_s" and _in_ms(name) else unit
            return f"{name[: -len(suffix)].replace('_', ' ')}\n({unit})"
    return name.replace("_", " ")


def _in_ms(name: str) -> bool:
    return "rtt" in name or "delay" in name


def fmt_mean_std(mean: Any, std: Any, fmt: Any = fmt_num) -> str:
    return fmt(mean) if _missing(std) else f"{fmt(mean)} ± {fmt(std)}"


def _table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int = 1) -> Table:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    # One space of right padding plus the box's blank separator: two spaces between columns.
    # overflow="fold": a cell too wide for the console wraps; it is never cut to "…".
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD,
                  padding=(0, 1, 0, 0), show_edge=False)
    for i, header in enumerate(headers):
        table.add_column(header, justify="right" if i >= numeric_from else "left", overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # names from scenarios are text, not markup
    table.caption = " "  # a blank line after the table
    return table


def print_table(console: Console, title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                 numeric_from: int = 1) -> None:
    """Print a table at its natural width if it fits the console; otherwise one block per row
    (field, value), so that no cell is cut or folded."""
    table = _table(title, headers, rows, numeric_from)
    natural = console.measure(table, options=console.options.update_width(100_000)).maximum
    if natural <= console.width:
        console.print(table)
        return
    labels = [h.replace("\n", " ") for h in headers]
    for n, row in enumerate(rows, start=1):
        block = _table(f"{title} ({n} of {len(rows)})", ["field", "value"], list(zip(labels, row)), numeric_from=2)
        console.print(block)


# --- CSV ---------------------------------------------------------------------------------------


def csv_text(records: Sequence[dict[str, Any]]) -> str:
    """Records as CSV with every field (union of keys, in first-seen order); raw values."""
    import csv
    import io

    columns: list[str] = []
    for record in records:
        columns += [k for k in record if k not in columns]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({k: _csv_cell(v) for k, v in record.items()})
    return buffer.getvalue()


def _csv_cell(value: Any) -> Any:
    import json

    return json.dumps(value) if isinstance(value, (list, dict)) else "" if value is None else value


def summary_csv(summary: dict[str, Any]) -> str:
    """The flow, queue and handover lists of a run summary as CSV blocks, each after a
    ``# <table>`` line and separated by a blank line."""
    blocks = []
    for name in ("flows", "queues", "handovers"):
        records = summary.get(name) or []
        if records or name == "flows":
            blocks.append(f"# {name}\n" + csv_text(records))
    return "\n".join(blocks)
