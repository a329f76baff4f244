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

# First thing, in as few bytecodes as possible (a signal between two of them would end in a
# traceback: bench/fuzz_outdir.py found one in the list comprehension that stood here): hold
# SIGINT and SIGTERM, noting them in `_held` (a dict's `__setitem__` takes the handler's two
# arguments, so no function has to be defined first). The script's own lines after this
# import (`re.sub` on argv[0]) and the call of `main` are covered too.
_held: dict[int, object] = {}
_PREVIOUS = {_signal.SIGINT: _signal.signal(_signal.SIGINT, _held.__setitem__),
             _signal.SIGTERM: _signal.signal(_signal.SIGTERM, _held.__setitem__)}

import sys  # noqa: E402 - after the signals are held

__all__ = ["main"]

#: A signal the user's shell ignores (`nohup`, a background job) stays ignored.
_HOLDING = [s for s, previous in _PREVIOUS.items() if previous in (_signal.default_int_handler, _signal.SIG_DFL)]
for _s, _previous in _PREVIOUS.items():
    if _s not in _HOLDING:
        _signal.signal(_s, _previous)
        _held.pop(_s, None)

#: A Ctrl-C that Python could not raise where it came, answered 5 ms later (``_retry``).
_deferred: list[int] = []


def _unraisable(info: "sys.UnraisableHookArgs") -> None:
    """A KeyboardInterrupt raised where Python cannot pass it on (a weakref callback, such
    as the import system's module-lock ``cb``, a ``__del__``, a garbage-collector callback) is
    "ignored": Python printed a traceback and went on, and the run went to its end as if
    Ctrl-C had not been pressed (bench/fuzz_outdir.py). Here it is kept, and raised again 5 ms
    later (SIGALRM), where the code can take it; any other such exception goes to Python's
    own hook."""
    if info.exc_type is not None and issubclass(info.exc_type, KeyboardInterrupt):
        _deferred.append(_signal.SIGINT)
        _signal.setitimer(_signal.ITIMER_REAL, 0.005)
        return
    sys.__unraisablehook__(info)


def _retry(signum: int, frame: object) -> None:
    if _deferred:
        del _deferred[:]
        raise KeyboardInterrupt


def main() -> int:
    """Run the ``hosim`` command line; returns its exit code."""
    code = None
    try:
        if _HOLDING:
            _signal.signal(_signal.SIGALRM, _retry)
            sys.unraisablehook = _unraisable
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
    if _HOLDING:  # a retry still armed would end the process by SIGALRM once Python restores it
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, _signal.SIG_IGN)
        del _deferred[:]
