"""Click options shared by the commands that run many simulations (``hosim sweep`` and every
``hosim reproduce PAPER``): ``--jobs``, ``--cluster``, ``--cache-dir``, ``--no-cache``, and the
``Runner`` they describe."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from hosim.runner import CACHE_DIR_ENV, NO_CACHE_ENV, ResultCache, Runner

__all__ = ["CLUSTER_HELP", "check_jobs_or_cluster", "runner_from_options", "runner_options"]

F = TypeVar("F", bound=Callable[..., Any])


#: ``--cluster``'s help, shared with docs/cli.md.
CLUSTER_HELP = (
    "Run on a Dask cluster instead of local worker processes: local:N (a LocalCluster of N single-threaded "
    "worker processes) or a scheduler address such as tcp://HOST:8786. Needs: pip install 'hosim[cluster]'."
)


def runner_options(default_jobs: int | None = 1) -> Callable[[F], F]:
    """Add ``--jobs``, ``--cluster``, ``--cache-dir`` and ``--no-cache`` to a click command; the
    command receives ``jobs``, ``cluster``, ``cache_dir`` and ``no_cache`` (see
    ``runner_from_options``). ``--jobs`` given together with ``--cluster`` is a usage error."""
    show_jobs: Any = "all cores" if default_jobs is None else True

    def decorate(command: F) -> F:
        command = click.option(
            "--cluster", metavar="local:N|tcp://HOST:PORT", default=None, callback=_check_cluster,
            help=CLUSTER_HELP,
        )(command)
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


def _check_cluster(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from hosim.cluster import check_spec
    from hosim.errors import ClusterError

    try:
        check_spec(value)
    except ClusterError as exc:
        raise click.BadParameter(str(exc).split(": ", 1)[-1], ctx, _param) from None
    return value


def check_jobs_or_cluster(cluster: str | None) -> None:
    """A usage error if the running command got both ``--jobs`` and ``--cluster``."""
    ctx = click.get_current_context(silent=True)
    if cluster is not None and ctx is not None and ctx.get_parameter_source("jobs") == ParameterSource.COMMANDLINE:
        raise click.UsageError("--jobs and --cluster: choose one (the cluster's workers run the jobs)", ctx)


def runner_from_options(
    jobs: int | None, cache_dir: Path | None, no_cache: bool, cluster: str | None = None
) -> Runner:
    """The ``Runner`` for ``--jobs`` or ``--cluster`` (a ``hosim.cluster.DaskExecutor``),
    ``--cache-dir`` and ``--no-cache``."""
    check_jobs_or_cluster(cluster)
    if cluster is not None:
        from hosim.cluster import DaskExecutor

        return Runner(DaskExecutor.from_spec(cluster), ResultCache.from_env(cache_dir, enabled=not no_cache))
    return Runner.from_options(jobs, cache_dir, cache=not no_cache)
