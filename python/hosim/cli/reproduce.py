"""``hosim reproduce PAPER``: one subcommand per paper, each loaded from
``hosim.reproduce.REPRODUCTIONS`` when it is asked for; an unknown paper lists the known ones."""

from __future__ import annotations

import click

from hosim.cli.lazy import LazyGroup
from hosim.reproduce import REPRODUCTIONS

__all__ = ["reproduce_group"]


@click.group("reproduce", cls=LazyGroup, table=REPRODUCTIONS, unknown="paper", no_args_is_help=True)
def reproduce_group() -> None:
    """Re-run a paper's experiments and write the figures and data behind
    docs/reproductions/. Every run goes through the result cache, so an interrupted
    reproduction resumes where it stopped; see 'hosim reproduce PAPER --help'."""
