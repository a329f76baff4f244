"""``hosim demo``: TCP variants compared on preset scenarios, with plots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hosim.cli.format import fmt_by_name, header_for, new_console, print_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["demo_command"]


@click.command("demo")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("hosim-demo"),
              show_default="./hosim-demo", help="Directory for the plots and summary.csv.")
@click.option("--duration", type=click.FloatRange(min=0, min_open=True), default=None,
              show_default="each scenario's duration_s", help="Simulated seconds per run.")
@click.option("--seed", type=click.IntRange(min=0), default=1, help="Seed shared by every run.")
@click.option("--csv", "as_csv", is_flag=True, help="Print summary.csv on stdout instead of the tables.")
def demo_command(out: Path, duration: float | None, seed: int, as_csv: bool) -> None:
    """Compare TCP variants on preset scenarios and plot them.

    Section "tcp-recovery": Reno, NewReno and SACK loss recovery on the dumbbell preset, same
    seed. Section "lte-x2": the LTE X2 handover with the standard, fast and predicted path
    switch, and prediction with RED/ECN (runs last at least 3 s, past the handover at 2.3 s).
    Prints a table per section and writes its cwnd and goodput plots and summary.csv."""
    from hosim.demo import run_demo

    console = new_console()

    def report(section: Any, table: pd.DataFrame, files: list[Path]) -> None:
        if as_csv:
            return
        columns = [c for c in table.columns if c not in ("section", "variant")]
        rows = [[str(r["variant"]), *(fmt_by_name(c, r[c]) for c in columns)] for r in table.to_dict("records")]
        print_table(console, section.title, ["variant", *(header_for(c) for c in columns)], rows)
        console.print(f"plots: {', '.join(str(f) for f in files)}\n", markup=False)

    run_demo(out, duration_s=duration, seed=seed, report=report)
    if as_csv:
        click.echo((out / "summary.csv").read_text(encoding="utf-8"), nl=False)
        return
    console.print(f"summary: {out / 'summary.csv'}", markup=False)
