"""``hosim model NAME``: the papers' analytical models, one subcommand per model, each loaded
from ``hosim.models.MODEL_COMMANDS`` when it is asked for."""

from __future__ import annotations

import click

from hosim.cli.lazy import LazyGroup
from hosim.models import MODEL_COMMANDS

__all__ = ["model_group"]


@click.group("model", cls=LazyGroup, table=MODEL_COMMANDS, no_args_is_help=True)
def model_group() -> None:
    """Analytical models from the papers hosim reproduces."""
