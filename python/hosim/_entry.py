"""The ``hosim`` console script: ``hosim.cli.main`` behind a guard against Ctrl-C while the
command line is still being imported (click, the command modules), so that an early Ctrl-C
gives the same one line and exit code 130 as a later one, never a Python traceback.

SIGTERM is made to act as Ctrl-C here already (``hosim.cli.main`` explains why). This module
imports nothing but ``sys`` and ``signal`` (and ``hosim``'s tiny ``__init__``), so the window
in which Ctrl-C still ends in a traceback is Python's own start-up (``site``, and any ``.pth``
file of the environment), before any code of hosim runs (docs/cli.md, "Exit codes").
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> int:
    """Run the ``hosim`` command line; returns its exit code."""
    try:
        import signal  # inside the guard: it builds its enums as it is imported

        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:  # as hosim.cli.main does, sooner
            signal.signal(signal.SIGTERM, signal.default_int_handler)
        from hosim.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        # Before the command line could report it itself (while importing it).
        sys.stderr.write("hosim: error: interrupted\n")
        sys.stderr.flush()
        return 130
