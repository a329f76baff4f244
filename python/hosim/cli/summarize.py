"""``hosim summarize DIR``: the statistics ``hosim sweep`` printed, again, from its directory
(its flows and handovers tables), optionally for one flow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

__all__ = ["summarize_command"]


@click.command("summarize")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--flow", default=None, metavar="NAME",
              help="Summarize this flow only, instead of the sum over every flow of a run.")
@click.option("--csv", "as_csv", is_flag=True,
              help="Print the table of means (with standard deviations and 95 % intervals) as CSV on stdout.")
def summarize_command(directory: Path, flow: str | None, as_csv: bool) -> None:
    """Print the means over seeds with their 95 % confidence intervals (Student t) and the shares
    of handover outcomes with their 95 % Wilson intervals, from a directory that `hosim sweep
    --out` wrote (its manifest.json, flows.parquet and handovers.parquet)."""
    from hosim.cli.sweep import print_summary
    from hosim.outdir import read_manifest

    manifest = read_manifest(directory)
    if manifest is None or manifest.get("command") != "sweep":
        raise click.UsageError(f"{directory}: not a `hosim sweep --out` directory (no sweep manifest.json there)")
    grid = manifest.get("grid")
    keys = list(grid) if isinstance(grid, dict) else []
    flows = _columns(directory / "flows.parquet")
    handovers = _columns(directory / "handovers.parquet")
    print_summary(flows, handovers, keys, flow, as_csv)


def _columns(path: Path) -> dict[str, list[Any]]:
    """A table the sweep wrote, as columns (none if it is not there: an unfinished sweep)."""
    if not path.exists():
        raise click.UsageError(f"{path}: not found; the sweep has not finished (run it again to resume it)")
    import pyarrow.parquet as pq

    columns: dict[str, list[Any]] = pq.read_table(path).to_pydict()
    return columns
