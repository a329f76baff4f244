"""What every ``hosim reproduce PAPER`` shares: the output directory (``--out``, default a new
``./hosim-reproduce-<paper>-<n>/``; ``--force``), atomic figure and data files, the progress bar
on stderr, the Markdown report, and ``--check``: a quick re-computation compared with the
numbers committed in ``docs/reproductions/``."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click

from hosim.outdir import atomic_write, atomic_write_text, prepare_output, write_manifest
from hosim.runner import Progress, Task
from hosim.scenario import toml_literal
from hosim.stats import ci95_half_width, t975

__all__ = [
    "COMMITTED",
    "COMMITTED_FILES",
    "Comparison",
    "change_options",
    "ci95_half_width",
    "changes_record",
    "default_out",
    "out_options",
    "output_options",
    "prepare",
    "preset_task",
    "preset_text",
    "progress_on_stderr",
    "refuse_changes_with_check",
    "run_preset",
    "save_figure",
    "t975",
    "with_profile",
    "write_json",
    "write_report",
]

F = TypeVar("F", bound=Callable[..., Any])

#: The committed numbers that ``--check`` compares with, shipped in the package: copies of the
#: files of ``docs/reproductions`` that the checks read, and of the MPTCP kernel runs of
#: vertical-handoff.md (``COMMITTED_FILES``), kept equal to them by ``tests/test_reproduce_outputs.py``.
COMMITTED = Path(__file__).resolve().parent / "committed"

#: The files under ``COMMITTED``, by their path relative to ``docs/reproductions``.
COMMITTED_FILES = (
    "data/drop-or-forward-100M.json",
    "data/hsdpa-ns2.json",
    "data/inter-rat-linux.json",
    "data/inter-rat.json",
    "data/lte-intra-handover.json",
    "data/todays-handovers.json",
    "data/vertical-handoff-mptcp.json",
    "data/vertical-handoff-ns3.json",
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
#: ``--set KEY=VALUE`` of the current reproduction: applied to every run, after the profile.
SET_OVERRIDES: dict[str, Any] = {}
#: ``--unset KEY`` of the current reproduction: removed from the preset of every run.
UNSET_KEYS: list[str] = []
#: The ``--set`` keys that a run of the reproduction sets itself to another value (it varies
#: them): there the experiment's value wins. Reported in report.md and on stderr.
CONTESTED: set[str] = set()

PROFILES = ("ns2", "rfc", "ns3", "linux")


def change_options(command: F) -> F:
    """``--profile NAME``, ``--set KEY=VALUE`` and ``--unset KEY``: changes every run of the
    reproduction takes, recorded in its manifest and at the top of its report.md. The profile
    sets ``tcp.profile`` (the keys the preset sets explicitly still win, see docs/tcp.md); a
    ``--set`` value wins over the preset's and the profile's, but not over a key the experiment
    itself sets in a run (the variable it varies); ``--unset`` removes a key from the preset."""

    # Each callback sets its own state (click calls them in the order the options were given);
    # when the command's Context closes, everything is forgotten: the next command, or a direct
    # call of a reproduction's functions, starts without them.
    def remember_profile(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        PROFILE_OVERRIDES.clear()
        ctx.call_on_close(forget_changes)
        if value is not None:
            PROFILE_OVERRIDES["tcp.profile"] = value
        return value

    def remember_sets(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
        from hosim.cli.common import parse_sets
        from hosim.scenario import parse_toml_value

        SET_OVERRIDES.clear()
        CONTESTED.clear()
        ctx.call_on_close(forget_changes)
        SET_OVERRIDES.update({key: parse_toml_value(raw) for key, raw in parse_sets(value)})
        return value

    def remember_unsets(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
        UNSET_KEYS[:] = list(value)
        ctx.call_on_close(forget_changes)
        return value

    command = click.option(
        "--unset", "unsets", multiple=True, metavar="KEY", callback=remember_unsets, expose_value=False,
        help="Remove a key the preset sets, in every run (e.g. to replace it by a conflicting key). Repeatable.",
    )(command)
    command = click.option(
        "--set", "sets", multiple=True, metavar="KEY=VALUE", callback=remember_sets, expose_value=False,
        help="Override a scenario value in every run, e.g. --set tcp.cc=cubic (a key the experiment varies keeps "
             "its values). Repeatable.",
    )(command)
    return click.option(
        "--profile", type=click.Choice(PROFILES), default=None, callback=remember_profile, expose_value=False,
        show_default="the preset's", help="TCP profile of every run (a key the preset sets still wins).")(command)


def forget_changes() -> None:
    """Clear ``--profile``, ``--set`` and ``--unset`` (and what was contested)."""
    for state in (PROFILE_OVERRIDES, SET_OVERRIDES, CONTESTED):
        state.clear()
    UNSET_KEYS.clear()


def changed() -> bool:
    """Whether the current reproduction runs with ``--set`` or ``--unset`` (its numbers are then
    not the committed ones)."""
    return bool(SET_OVERRIDES or UNSET_KEYS)


def refuse_changes_with_check() -> None:
    """``--check`` compares with numbers made without ``--set``/``--unset``: a usage error."""
    if changed():
        raise click.UsageError("--check compares with the committed numbers, which were made without --set and "
                               "--unset: leave them out, or run without --check")


def with_profile(overrides: dict[str, Any]) -> dict[str, Any]:
    """``overrides`` (a run's own keys) with the ``--profile`` and ``--set`` overrides under
    them (``overrides`` unchanged if there are none)."""
    if not PROFILE_OVERRIDES and not SET_OVERRIDES:
        return overrides
    CONTESTED.update(k for k, v in SET_OVERRIDES.items() if k in overrides and overrides[k] != v)
    return {**PROFILE_OVERRIDES, **SET_OVERRIDES, **overrides}


def preset_text(name: str, unset: Sequence[str] = ()) -> tuple[str, str]:
    """The preset's TOML text and its label, without the ``--unset`` keys (then ``unset``)."""
    from hosim.scenario import load_scenario, remove_keys

    text, source = load_scenario(name)
    keys = [*UNSET_KEYS, *unset]
    return (remove_keys(text, keys, source) if keys else text), source


def preset_task(name: str, seed: int | None, overrides: Mapping[str, Any], unset: Sequence[str] = ()) -> Task:
    """A run of preset ``name`` with the reproduction's changes (``with_profile``, ``--unset``)."""
    from hosim.scenario import override_pairs

    text, source = preset_text(name, unset)
    return Task(text, seed, tuple(override_pairs(with_profile(dict(overrides)))), source)


def run_preset(name: str, seed: int | None, overrides: Mapping[str, Any], traces: bool = True,
               capture: Any = None) -> Any:
    """``hosim.api.run`` of preset ``name`` with the reproduction's changes; a ``Result``."""
    from hosim.api import run_text
    from hosim.scenario import override_pairs

    text, source = preset_text(name)
    return run_text(text, source, seed=seed, overrides=override_pairs(with_profile(dict(overrides))),
                    traces=traces, capture=capture)


def changes_record() -> dict[str, Any]:
    """What every run was changed by, as the manifest records it."""
    return {"profile": PROFILE_OVERRIDES.get("tcp.profile"),
            "overrides": {k: SET_OVERRIDES[k] for k in sorted(SET_OVERRIDES)},
            "unset": list(UNSET_KEYS), "overridden_by_the_experiment": sorted(CONTESTED)}


def prepare(paper: str, out: Path | None, force: bool) -> Path:
    """The output directory, checked (one-line error, exit 2) before anything runs."""
    out = default_out(paper) if out is None else out
    prepare_output(out, f"reproduce {paper}", force)
    return out


def finish(paper: str, out: Path, seeds: int, command_line: Sequence[str]) -> None:
    """The manifest: the command, hosim's version, the seeds, the changes every run took
    (``changes_record``) and the command line; a warning for each contested ``--set`` key."""
    from hosim.cli.format import warn
    from hosim.runner import core_version

    for key in sorted(CONTESTED):
        warn(f"--set {key}: some runs of the experiment set {key} themselves (it is what they vary); "
             "there their value was used")
    write_manifest(out, {"command": f"reproduce {paper}", "hosim": core_version(), "seeds": seeds,
                         **changes_record(), "command_line": list(command_line)})


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


def write_report(out: Path, title: str, intro: str, sections: Sequence[tuple[str, str, Sequence[Path]]],
                 seeds: str, claims: Sequence[str] = ()) -> Path:
    """``report.md``: what was run (``run_description``), the paper's claims with their
    verdicts (``claims``: ``hosim.reproduce.claims.report_lines``), then per section a
    heading, a Markdown table (hosim's numbers beside the paper's) and the figures, linked
    relative to ``out``. ``seeds``: the seeds, in words (``"1-5 per Table I cell"``)."""
    lines = [f"# {title}", "", *run_description(seeds), "", intro, "", *claims]
    for heading, table, figures in sections:
        lines += [f"## {heading}", ""]
        if table:
            lines += [table, ""]
        for figure in figures:
            lines += [f"![{figure.stem}]({figure.relative_to(out).as_posix()})", ""]
    return atomic_write_text(out / "report.md", "\n".join(lines))


def run_description(seeds: str) -> list[str]:
    """The lines at the top of report.md that say how it was made: the profile, the overrides
    (``--set``, ``--unset``, and the keys the experiment kept for itself), the seeds, the
    version of hosim and its core, and the command line."""
    from hosim.cli.invocation import command_line
    from hosim.runner import core_version

    profile = PROFILE_OVERRIDES.get("tcp.profile")
    profile_text = f"`{profile}` (--profile)" if profile else "the preset's"
    sets = ", ".join(f"`{k} = {toml_literal(v)}`" for k, v in sorted(SET_OVERRIDES.items())) or "none"
    lines = [
        "**What was run.**",
        "",
        f"- TCP profile: {profile_text}",
        f"- overrides (--set): {sets}",
        f"- keys removed (--unset): {', '.join(f'`{k}`' for k in UNSET_KEYS) or 'none'}",
    ]
    if CONTESTED:
        lines.append(f"- kept by the experiment where it varies them: {', '.join(f'`{k}`' for k in sorted(CONTESTED))}")
    lines += [f"- seeds: {seeds}", f"- version: {core_version()}",
              f"- command: `{' '.join(command_line())}`"]
    return lines


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
