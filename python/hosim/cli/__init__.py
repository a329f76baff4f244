"""The ``hosim`` command line: one module per command, loaded on demand from ``COMMANDS``.

Exit codes: 0 success, 2 invalid input (one line on stderr: ``hosim: error: ...``), 1 internal
error (one line: ``hosim: internal error: ...``; set ``HOSIM_DEBUG=1`` for the traceback),
130 interrupted. Heavy imports (pandas, rich, the native module) happen inside the commands so
that ``hosim --help`` stays fast.

The modules: ``run`` (``hosim run``, ``hosim presets``), ``sweep``, ``summarize``, ``demo``, ``model``,
``reproduce``, ``plot``; ``format`` (tables and numbers), ``common`` (``--set``/``--grid``
parsing, warnings about the scenario, manifests), ``options`` (the options of commands that run
many simulations), ``invocation`` (the command line on the click Context), ``lazy`` (the
on-demand group).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from hosim._version import __version__
from hosim.cli.invocation import Invocation
from hosim.cli.lazy import LazyGroup
from hosim.errors import ClusterError, Interrupted, InvariantError

__all__ = ["COMMANDS", "cli", "main", "one_line"]

#: ``hosim COMMAND``: command name -> ``"module:attribute"`` of its click command.
COMMANDS = {
    "demo": "hosim.cli.demo:demo_command",
    "emulate": "hosim.cli.emulate:emulate_command",
    "model": "hosim.cli.model:model_group",
    "plot": "hosim.cli.plot:plot_group",
    "presets": "hosim.cli.run:presets_command",
    "reproduce": "hosim.cli.reproduce:reproduce_group",
    "run": "hosim.cli.run:run_command",
    "summarize": "hosim.cli.summarize:summarize_command",
    "sweep": "hosim.cli.sweep:sweep_command",
}

# click >= 8.2 raises this (a UsageError) for a group called without arguments; older click
# prints the help itself and exits 0.
_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "show_default": True, "max_content_width": 100}


# --- entry point and error reporting ---------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script passes it to ``sys.exit``)."""
    args = list(argv) if argv is not None else sys.argv[1:]
    if argv is None:
        _terminate_like_ctrl_c()
    try:
        try:
            code = _main(args)
        except KeyboardInterrupt as exc:  # outside the command (setting up, or printing a warning)
            code = _report("error", "interrupted", 130, exc)
        if argv is None:
            _exit_now_if_a_run_was_left_behind(code)
        return code
    finally:
        if argv is None:
            # The process is about to exit: its last garbage collections would walk every
            # object of every module loaded (0.1-0.2 s once pandas is), to free memory that
            # the exit frees anyway. Files are closed by then; atexit handlers still run.
            gc.freeze()


def _exit_now_if_a_run_was_left_behind(code: int) -> None:
    """End the process at once (``os._exit``) when `hosim run` started a worker thread (see
    ``hosim.cli.run.WORKER_STARTED``) or was interrupted (exit 130):
    - a run left behind in a worker thread on Ctrl-C: finalizing the interpreter would end that
      thread with ``pthread_exit`` wherever it is, and inside the core's Rust frames that aborts
      the process (SIGABRT);
    - a run that stopped at once: its worker thread is still ending (freeing its malloc arena)
      while ``exit`` runs the libraries' destructors. bench/fuzz_outdir.py caught that twice as
      ``malloc_consolidate(): invalid chunk size`` (SIGABRT; the core dump: the main thread in
      ``exit(130)`` -> OpenBLAS's ``gotoblas_quit``, the worker in ``tcache_thread_shutdown``).
    Files are closed and staging removed by then; nothing is left for exit handlers to do."""
    run_module = sys.modules.get("hosim.cli.run")
    abandoned = getattr(run_module, "ABANDONED", None)
    started = getattr(run_module, "WORKER_STARTED", None)
    if (abandoned is not None and (abandoned.is_set() or code == 130)) or (started is not None and started.is_set()):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _terminate_like_ctrl_c() -> None:
    """SIGTERM (``kill PID``, a batch system's time limit) stops a command as Ctrl-C does: the
    run stops, ``--out`` is left as it was (staging files removed), one line, exit 130. Without
    this, SIGTERM would end the process at once and leave a half-written packet capture in its
    staging directory and a stale lock."""
    import signal

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, signal.default_int_handler)


def _main(args: list[str]) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _run(args)


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    """A warning of the library (``HosimWarning`` and the rest) as one ``hosim: warning:`` line."""
    sys.stderr.write(f"hosim: warning: {one_line(str(message))}\n")
    sys.stderr.flush()


def _run(args: list[str]) -> int:
    try:
        code = cli.main(args=args, prog_name="hosim", standalone_mode=False, obj=Invocation(tuple(args)))
    except _NO_ARGS_IS_HELP as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else cli.get_help(click.Context(cli)))
        return 0
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        return _report("error", exc.format_message() + hint, 2, exc)
    except click.ClickException as exc:
        return _report("error", exc.format_message(), 2, exc)
    except click.Abort as exc:
        # The core's KeyboardInterrupt says when: "interrupted at t = ... s".
        return _report("error", str(exc.__cause__ or "") or "interrupted", 130, exc)
    except Interrupted as exc:
        return _report("interrupted", str(exc), 130, exc)
    except ClusterError as exc:
        return _report("error", str(exc), 2, exc)
    except InvariantError as exc:
        return _report("internal error", f"simulator invariant violated (a bug in hosim): {exc}", 1, exc)
    except ValueError as exc:  # ScenarioError and invalid model parameters
        return _report("error", str(exc), 2, exc)
    except (FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError, NotADirectoryError) as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return _report("error", f"{where}{exc.strerror or exc}", 2, exc)
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except OSError as exc:
        # The environment, not a bug: a full disk, a read-only file system, a quota.
        where = f"{exc.filename}: " if exc.filename else ""
        return _report("error", f"{where}{exc.strerror or exc}", 2, exc)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one line, exit 1
        return _report("internal error", f"{type(exc).__name__}: {exc}", 1, exc)
    return code if isinstance(code, int) else 0


def _report(kind: str, message: str, code: int, exc: BaseException) -> int:
    if _debug():
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    sys.stderr.write(f"hosim: {kind}: {one_line(str(message)) or type(exc).__name__}\n")
    sys.stderr.flush()
    return code


def one_line(message: str) -> str:
    """A message of several lines as one: lines joined by "; ", except after a line ending in
    ":", "," or "." (a list or a sentence, like click's "Choose from:\n\treno,\n\tsack"), joined by a space."""
    out = ""
    for line in (raw.strip() for raw in message.splitlines()):
        if line:
            out += line if not out else (" " if out.endswith((":", ",", ".")) else "; ") + line
    return out


def _debug() -> bool:
    return os.environ.get("HOSIM_DEBUG", "") not in ("", "0")


def _silence_stdout() -> None:
    # The reader went away (`hosim presets | head -1`): drop whatever is still buffered.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


# --- the top-level group ---------------------------------------------------------------------


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    try:
        import hosim._native as native

        core = native.version()
    except ImportError:
        core = "not built"
    click.echo(f"hosim {__version__} (core {core})")
    ctx.exit()


@click.group(cls=LazyGroup, table=COMMANDS, context_settings=CONTEXT_SETTINGS, no_args_is_help=True)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the versions of hosim and its simulator core, then exit.")
def cli() -> None:
    """hosim: packet-level simulator for TCP across mobility events.

    Exit codes: 0 success, 2 invalid input, 1 internal error. Set HOSIM_DEBUG=1 to get a
    traceback with an error.
    """
