"""Click options shared by the commands that run many simulations (``hosim sweep`` and every
``hosim reproduce PAPER``): ``--jobs``, ``--cache-dir``, ``--no-cache``, and the ``Runner``
they describe."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from hosim.runner import CACHE_DIR_ENV, NO_CACHE_ENV, Runner

__all__ = ["runner_from_options", "runner_options"]

F = TypeVar("F", bound=Callable[..., Any])


def runner_options(default_jobs: int | None = 1) -> Callable[[F], F]:
    """Add ``--jobs``, ``--cache-dir`` and ``--no-cache`` to a click command; the command
    receives ``jobs``, ``cache_dir`` and ``no_cache`` (see ``runner_from_options``)."""
    show_jobs: Any = "all cores" if default_jobs is None else True

    def decorate(command: F) -> F:
        command = click.option(
            "--no-cache", is_flag=True,
            help=f"Run everything again: neither read nor write the result cache (also: {NO_CACHE_ENV}=1).",
        )(command)
        command = click.option(
            "--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
            show_default=f"${CACHE_DIR_ENV}, else ~/.cache/hosim",
            help="Directory of the result cache: a run already in it is not run again.",
        )(command)
        return click.option(
            "--jobs", type=click.IntRange(min=1), default=default_jobs, show_default=show_jobs,
            help="Parallel worker processes; 1 runs everything in this process.",
        )(command)

    return decorate


def runner_from_options(jobs: int | None, cache_dir: Path | None, no_cache: bool) -> Runner:
    """The ``Runner`` for ``--jobs``, ``--cache-dir`` and ``--no-cache``."""
    return Runner.from_options(jobs, cache_dir, cache=not no_cache)
