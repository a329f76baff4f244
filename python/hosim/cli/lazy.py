"""One way to load subcommands on demand: a ``LazyGroup`` takes a table of subcommand name ->
``"module:attribute"`` and imports a module only when its command is listed or invoked, so
that ``hosim run`` pays neither for the plotting code nor for the papers' drivers.

The tables are ``hosim.cli.COMMANDS`` (the top level), ``hosim.models.MODEL_COMMANDS`` and
``hosim.reproduce.REPRODUCTIONS``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click

__all__ = ["LazyGroup", "load_command"]


def load_command(target: str) -> click.Command:
    """The click command named by ``"module:attribute"``."""
    module_name, _, attribute = target.partition(":")
    command = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(command, click.Command):
        raise TypeError(f"{target} is not a click command")
    return command


class LazyGroup(click.Group):
    """A group whose subcommands come from ``table`` (name -> ``"module:attribute"``), listed
    in sorted order. ``unknown``: the noun of a subcommand (``"paper"``), to refuse an unknown
    one by listing the known ones; else click's own "No such command"."""

    def __init__(self, *args: Any, table: Mapping[str, str], unknown: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table
        self.unknown = unknown

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.table)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.table.get(cmd_name)
        return load_command(target) if target is not None else None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if self.unknown and name and not name.startswith("-") and name not in self.table:
            known = ", ".join(sorted(self.table))
            raise click.UsageError(f"unknown {self.unknown} {name!r} ({self.unknown}s: {known})", ctx)
        return super().resolve_command(ctx, args)
