"""The command line that started the running command, kept on the click Context (its root's
``obj``) so that every output directory's manifest can record it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import click

__all__ = ["Invocation", "command_line"]


@dataclass(frozen=True)
class Invocation:
    """The arguments after ``hosim`` (``hosim.cli.main`` passes them as the Context's ``obj``)."""

    argv: Sequence[str] = field(default_factory=tuple)

    def command_line(self) -> list[str]:
        return ["hosim", *self.argv]


def command_line(ctx: click.Context | None = None) -> list[str]:
    """``["hosim", ARGS...]`` of the running command (``ctx``: default the current Context).
    A command invoked without ``hosim.cli.main`` (click's test runner) gives ``["hosim"]``."""
    ctx = ctx if ctx is not None else click.get_current_context(silent=True)
    invocation = ctx.find_object(Invocation) if ctx is not None else None
    return invocation.command_line() if invocation is not None else ["hosim"]
