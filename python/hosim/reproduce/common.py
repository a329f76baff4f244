"""What every ``hosim reproduce PAPER`` shares: the output directory (``--out``, default a new
``./hosim-reproduce-<paper>-<n>/``; ``--force``), atomic figure and data files, the progress bar
on stderr, the Markdown report, and ``--check``: a quick re-computation compared with the
numbers committed in ``docs/reproductions/``."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click

from hosim.outdir import atomic_write, atomic_write_text, prepare_output, write_manifest
from hosim.runner import Progress

__all__ = [
    "COMMITTED",
    "COMMITTED_FILES",
    "Comparison",
    "default_out",
    "out_options",
    "output_options",
    "prepare",
    "profile_option",
    "with_profile",
    "progress_on_stderr",
    "save_figure",
    "write_json",
    "write_report",
]

F = TypeVar("F", bound=Callable[..., Any])

#: The committed numbers that ``--check`` compares with, shipped in the package: copies of the
#: files of ``docs/reproductions`` that the checks read (``COMMITTED_FILES``), kept equal to them
#: by ``tests/test_reproduce_outputs.py``.
COMMITTED = Path(__file__).resolve().parent / "committed"

#: The files under ``COMMITTED``, by their path relative to ``docs/reproductions``.
COMMITTED_FILES = (
    "data/drop-or-forward-100M.json",
    "data/inter-rat-linux.json",
    "data/inter-rat.json",
    "data/lte-intra-handover.json",
    "figures/hsdpa-results.json",
)


def default_out(paper: str, base: Path | None = None) -> Path:
    """``./hosim-reproduce-<paper>-<n>``: the first ``n`` from 1 whose directory does not exist."""
    base = Path.cwd() if base is None else base
    n = 1
    while (base / f"hosim-reproduce-{paper}-{n}").exists():
        n += 1
    return base / f"hosim-reproduce-{paper}-{n}"


def out_options(paper: str) -> Callable[[F], F]:
    """``--out`` and ``--force`` for ``hosim reproduce PAPER`` (see ``prepare``)."""

    def decorate(command: F) -> F:
        command = click.option(
            "--force", is_flag=True,
            help="Write into --out even if it holds files that an earlier reproduction of this paper did not "
                 "write.")(command)
        return click.option(
            "--out", type=click.Path(file_okay=False, path_type=Path), default=None,
            show_default=f"a new ./hosim-reproduce-{paper}-<n>/",
            help="Directory for the figures, data and report.md (to update the committed documents: "
                 "--out docs/reproductions --force).")(command)

    return decorate


def output_options(paper: str) -> Callable[[F], F]:
    """``out_options`` plus ``--check`` and ``--against``."""

    def decorate(command: F) -> F:
        command = click.option(
            "--against", type=click.Path(file_okay=False, path_type=Path), default=None,
            show_default="the committed numbers shipped with hosim (those of docs/reproductions)",
            help="With --check: the directory holding the committed data/ (and figures/).")(command)
        command = click.option(
            "--check", is_flag=True,
            help="Re-compute a quick version (seconds) and compare it with the committed numbers; "
                 "exit 1 if one differs. Writes nothing.")(command)
        return out_options(paper)(command)

    return decorate


#: ``tcp.*`` overrides every run of the current reproduction takes (``--profile``).
PROFILE_OVERRIDES: dict[str, Any] = {}

PROFILES = ("ns2", "rfc", "ns3", "linux")


def profile_option(command: F) -> F:
    """``--profile NAME``: run every experiment with ``tcp.profile = NAME`` instead of the
    preset's (the keys the preset sets explicitly still win, see docs/tcp.md)."""

    def remember(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        PROFILE_OVERRIDES.clear()
        if value is not None:
            PROFILE_OVERRIDES["tcp.profile"] = value
        return value

    return click.option(
        "--profile", type=click.Choice(PROFILES), default=None, callback=remember, expose_value=False,
        show_default="the preset's", help="TCP profile of every run (a key the preset sets still wins).")(command)


def with_profile(overrides: dict[str, Any]) -> dict[str, Any]:
    """``overrides`` with the ``--profile`` override added (``overrides`` unchanged if none)."""
    return {**PROFILE_OVERRIDES, **overrides} if PROFILE_OVERRIDES else overrides


def prepare(paper: str, out: Path | None, force: bool) -> Path:
    """The output directory, checked (one-line error, exit 2) before anything runs."""
    out = default_out(paper) if out is None else out
    prepare_output(out, f"reproduce {paper}", force)
    return out


def finish(paper: str, out: Path, seeds: int, command_line: Sequence[str]) -> None:
    from hosim.runner import core_version

    write_manifest(out, {"command": f"reproduce {paper}", "hosim": core_version(), "seeds": seeds,
                         "command_line": list(command_line)})


def save_figure(figure: Any, path: Path, **savefig: Any) -> Path:
    """``figure.savefig(path)`` through a temporary file (the format comes from ``path``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if figure.canvas is None or not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, lambda tmp: figure.savefig(tmp, format=path.suffix.lstrip("."), **savefig))


def write_json(path: Path, data: Any, **dumps: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(path, json.dumps(data, **dumps) + "\n")


def write_report(out: Path, title: str, intro: str, sections: Sequence[tuple[str, str, Sequence[Path]]]) -> Path:
    """``report.md``: per section a heading, a Markdown table (hosim's numbers beside the
    paper's) and the figures, linked relative to ``out``."""
    lines = [f"# {title}", "", intro, ""]
    for heading, table, figures in sections:
        lines += [f"## {heading}", ""]
        if table:
            lines += [table, ""]
        for figure in figures:
            lines += [f"![{figure.stem}]({figure.relative_to(out).as_posix()})", ""]
    return atomic_write_text(out / "report.md", "\n".join(lines))


@contextmanager
def progress_on_stderr(label: str) -> Iterator[Progress | None]:
    """A rich progress bar on stderr (when it is a terminal) counting every run of the
    reproduction: the runner reports ``(done, total)`` per batch, this adds the batches up."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Bar(*columns, console=Console(stderr=True), transient=True) as bar:
        bar_task = bar.add_task(label, total=None)
        totals = BatchTotals()

        def update(done: int, total: int) -> None:
            completed, overall = totals.update(done, total)
            bar.update(bar_task, completed=completed, total=overall)

        yield update


class BatchTotals:
    """Adds up the ``(done, total)`` reports of successive batches of runs: a report after the
    previous batch was complete, or one that goes backwards, starts a new batch."""

    def __init__(self) -> None:
        self.base = 0
        self.done = 0
        self.total = 0

    def update(self, done: int, total: int) -> tuple[int, int]:
        """``(runs done, runs known)`` over every batch so far."""
        if self.total and (self.done >= self.total or done < self.done):
            self.base += self.total
        self.done, self.total = done, total
        return self.base + done, self.base + total


# --- --check ---------------------------------------------------------------------------------


@dataclass
class Comparison:
    """Committed numbers against re-computed ones, with a relative tolerance."""

    source: str
    rel_tol: float = 1e-9
    rows: list[tuple[str, Any, Any, bool]] = field(default_factory=list)

    def add(self, name: str, committed: Any, current: Any) -> None:
        self.rows.append((name, committed, current, _same(committed, current, self.rel_tol)))

    def compare_fields(self, prefix: str, committed: dict[str, Any], current: dict[str, Any],
                       fields: Sequence[str] | None = None) -> None:
        for key in committed if fields is None else fields:
            self.add(f"{prefix}.{key}", committed.get(key), current.get(key))

    @property
    def differences(self) -> list[tuple[str, Any, Any, bool]]:
        return [row for row in self.rows if not row[3]]

    def markdown(self) -> str:
        lines = ["| quantity | committed | now | |", "|---|---|---|---|"]
        lines += [f"| {n} | {_show(a)} | {_show(b)} | {'ok' if ok else 'DIFFERS'} |" for n, a, b, ok in self.rows]
        return "\n".join(lines)

    def report(self) -> int:
        """Print the table on stdout and, if a number differs, one line on stderr; the exit code."""
        click.echo(self.markdown())
        bad = self.differences
        if not bad:
            click.echo(f"\nall {len(self.rows)} numbers match {self.source}")
            return 0
        names = ", ".join(n for n, *_ in bad[:3]) + (", ..." if len(bad) > 3 else "")
        sys.stderr.write(f"hosim: check failed: {len(bad)} of {len(self.rows)} numbers differ from "
                         f"{self.source} ({names})\n")
        return 1


#: Two-sided 95 % quantiles of Student's t distribution, t(0.975; df) for df = 1..30 (the
#: standard table; e.g. 2.093 for the 19 degrees of freedom of 20 seeds).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """t(0.975; df): the table up to 30 degrees of freedom, beyond it the normal quantile with
    the first two Cornish-Fisher terms (within 0.001 of the exact value for df > 30)."""
    if df < 1:
        raise ValueError("a confidence interval needs at least two samples")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def ci95_half_width(values: Sequence[float]) -> float:
    """Half-width of the 95 % confidence interval of the mean of independent samples (Student
    t with n - 1 degrees of freedom); 0 for fewer than two samples."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return t975(n - 1) * sd / math.sqrt(n)


def committed_file(against: Path | None, relative: str) -> tuple[Path, Any]:
    """The committed JSON ``relative`` to ``against`` (default ``COMMITTED``), read."""
    base = COMMITTED if against is None else against
    path = base / relative
    try:
        return path, json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise click.ClickException(f"{path}: no committed numbers there (--against DIR: a directory that holds "
                                   f"{relative}, such as docs/reproductions of a source checkout)") from None


def _same(a: Any, b: Any, rel_tol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return bool(a == b)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-12)


def _show(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)
