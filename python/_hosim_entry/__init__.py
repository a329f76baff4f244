"""The ``hosim`` console script's entry point, a top-level package shipped beside ``hosim``
(``[tool.maturin] python-packages`` in pyproject.toml; maturin ships packages, not modules).

Why a module of its own: the script pip writes runs ``from _hosim_entry import main``. Had the
entry point been inside ``hosim``, that import would first run ``hosim/__init__.py``, which
loads the native module (about 1.5 ms, longer under load), and Ctrl-C in that time ended in a
Python traceback. This module imports only ``sys`` and ``_signal`` (both loaded while Python
starts), and as it is imported it holds SIGINT and SIGTERM back: a signal that comes before
``main`` runs is noted, then answered as Ctrl-C with one line and exit code 130 once ``main``
is in its guard. What remains outside is Python's own start-up (``site`` and the
environment's ``.pth`` files) and the import system finding this file, before any line of it
runs (docs/cli.md, "Exit codes"; docs/reliability.md).

SIGTERM acts as Ctrl-C, as ``hosim.cli.main`` explains.
"""

import _signal  # no `from __future__`: that is one more module to find and load
import sys

__all__ = ["main"]

_held: list[int] = []


def _hold(signum: int, frame: object) -> None:
    _held.append(signum)


# At import, first thing: the script's own lines after this import (`re.sub` on argv[0])
# and the call of `main` are covered too. A signal the user's shell ignores stays ignored.
_HOLDING = [s for s in (_signal.SIGINT, _signal.SIGTERM)
            if _signal.getsignal(s) in (_signal.default_int_handler, _signal.SIG_DFL)]
for _s in _HOLDING:
    _signal.signal(_s, _hold)


def main() -> int:
    """Run the ``hosim`` command line; returns its exit code."""
    code = None
    try:
        for s in _HOLDING:  # from here on a signal raises KeyboardInterrupt, inside the guard
            _signal.signal(s, _signal.default_int_handler)
        if _held:
            raise KeyboardInterrupt
        try:
            from hosim.cli import main as cli_main
        except Exception as exc:
            # Ctrl-C inside a class body's `__set_name__` reaches Python 3.11 as the cause of
            # a RuntimeError ("Error calling __set_name__"): the same interrupt.
            if not isinstance(exc.__cause__, KeyboardInterrupt):
                raise
            raise KeyboardInterrupt from None

        code = cli_main()
        _ignore_late_signals()
    except KeyboardInterrupt:
        _ignore_late_signals()
        if code is None:
            # Before the command line could report it itself (while importing it).
            sys.stderr.write("hosim: error: interrupted\n")
            sys.stderr.flush()
            code = 130
    return int(code)


def _ignore_late_signals() -> None:
    """The command has its exit code and has said what it had to: a signal from now on is
    ignored. Python restores the default action of SIGINT and SIGTERM as it finalizes (not of
    an ignored one), and a signal then would end the process by the signal, hiding the exit
    code (bench/fuzz_outdir.py: exit -15 after `hosim: error: ... No space left on device`)."""
    for s in _HOLDING:
        _signal.signal(s, _signal.SIG_IGN)
