"""Output directories of the commands that write files (``hosim run --out``, ``hosim sweep
--out``, ``hosim reproduce PAPER --out``).

A command writes into a directory only if it is new, empty, or holds a ``manifest.json`` that
the same kind of command wrote (its earlier output, which it may replace or resume); anything
else needs ``--force``. The directory is checked to be writable before any simulation runs.
Every file is written under a temporary name in the same directory and then renamed over the
final name (``os.replace``), so a reader or an interrupted command never leaves half a file.
A campaign (``hosim sweep``) also holds a lock file with its pid while it writes: a second
writer is refused; a lock whose process is gone is taken over.

Standard library only: sweep workers and ``hosim run --json`` import this module.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "LOCK",
    "MANIFEST",
    "DirectoryLock",
    "OutputError",
    "atomic_write",
    "atomic_write_text",
    "missing_dirs",
    "prepare_output",
    "read_manifest",
    "remove_if_empty",
    "write_manifest",
]

MANIFEST = "manifest.json"
LOCK = "hosim.lock"


class OutputError(ValueError):
    """An output directory that may not or cannot be written; the message is one line."""


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], object]) -> Path:
    """Call ``write(tmp)`` with a temporary path beside ``path``, then rename it to ``path``.
    On any error (or Ctrl-C) the temporary file is removed and ``path`` is left as it was."""
    final = Path(path)
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, final)
    except OSError as exc:
        with contextlib.suppress(OSError):  # a read-only file system refuses even that
            tmp.unlink(missing_ok=True)
        if exc.filename is not None and os.fspath(exc.filename) != os.fspath(tmp):
            raise
        # A full disk or a read-only directory: name the file that was to be written.
        raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(final)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return final


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest in ``directory``, or ``None`` when there is none or it is unreadable."""
    try:
        manifest = json.loads((Path(directory) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def write_manifest(directory: str | os.PathLike[str], manifest: Mapping[str, Any]) -> Path:
    return atomic_write_text(Path(directory) / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def prepare_output(directory: str | os.PathLike[str], command: str, force: bool = False) -> dict[str, Any] | None:
    """Make sure ``directory`` may receive the output of ``hosim COMMAND`` and can be written
    (it is created if needed); returns the manifest already there (``None`` if none).

    Raises ``OutputError`` for a file in the way, a non-empty directory that another command
    (or a person) filled, unless ``force``, and a directory that cannot be written."""
    path = Path(directory)
    if path.exists() and not path.is_dir():
        raise OutputError(f"--out {path}: exists and is not a directory")
    created = missing_dirs(path)
    previous = read_manifest(path) if path.is_dir() else None
    if path.is_dir() and not force and any(p.name != LOCK for p in path.iterdir()):
        if previous is None or previous.get("command") != command:
            raise OutputError(
                f"--out {path}: directory is not empty and holds no earlier `hosim {command}` output; "
                "choose a new directory, or pass --force to write into it anyway"
            )
    try:
        _check_writable(path)
    except OutputError:
        remove_if_empty(created)
        raise
    return previous


def missing_dirs(directory: str | os.PathLike[str]) -> list[Path]:
    """The directories that creating ``directory`` would make: those of it and its parents
    that do not exist yet, deepest first. A command that fails before writing anything passes
    them to ``remove_if_empty`` so that no empty directory is left behind."""
    missing: list[Path] = []
    path = Path(directory).absolute()
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def remove_if_empty(dirs: list[Path]) -> None:
    """Remove ``dirs`` (deepest first) as long as they are empty; never a file or a directory
    that holds anything."""
    for d in dirs:
        try:
            d.rmdir()
        except OSError:
            return


def _check_writable(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
        # Ctrl-C between making the probe and removing it left it behind (bench/fuzz_outdir.py).
        with signals_deferred():
            handle, probe = tempfile.mkstemp(prefix=".hosim-write-check-", dir=path)
            os.close(handle)
            os.unlink(probe)
    except OSError as exc:
        raise OutputError(f"--out {path}: cannot write there: {exc.strerror or exc}") from None


class DirectoryLock:
    """``<directory>/hosim.lock`` holding this process's pid, for as long as the ``with``
    block runs. Refused (``OutputError``) while a live process holds it; a lock left by a
    process that no longer exists is taken over."""

    def __init__(self, directory: str | os.PathLike[str], what: str = "hosim"):
        self.directory = Path(directory)
        self.path = self.directory / LOCK
        self.what = what
        self._held = False

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def acquire(self) -> None:
        # Ctrl-C between creating the file and noting it held would leave a stale lock
        # behind (bench/fuzz_outdir.py found it): signals wait until the lock is held.
        with signals_deferred():
            self._acquire()

    def _acquire(self) -> None:
        for _attempt in range(3):
            try:
                handle = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                owner = self.owner()
                if owner is not None and owner != os.getpid() and _alive(owner):
                    raise OutputError(
                        f"--out {self.directory}: another {self.what} (pid {owner}) is writing there; "
                        "wait for it to finish or choose a new directory"
                    ) from None
                self.path.unlink(missing_ok=True)  # stale: its process is gone
                continue
            with os.fdopen(handle, "w") as lock:
                lock.write(f"{os.getpid()}\n")
            self._held = True
            return
        raise OutputError(f"--out {self.directory}: cannot take the lock {self.path.name}")

    def release(self) -> None:
        try:
            with signals_deferred():
                self._remove()
        finally:
            # A signal that came as the release began, before `signals_deferred` held signals
            # back, ends the block above before the lock is removed: remove it all the same
            # (bench/fuzz_outdir.py, round seven: exit 130 with the run's files complete and
            # `hosim.lock` left beside them).
            self._remove()

    def _remove(self) -> None:
        if self._held and self.owner() == os.getpid():
            self.path.unlink(missing_ok=True)
        self._held = False

    def owner(self) -> int | None:
        """The pid in the lock file, or ``None`` (no lock, or not a pid: treated as stale)."""
        try:
            return int(self.path.read_text(encoding="utf-8").split()[0])
        except (OSError, ValueError, IndexError):
            return None


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held back while the block runs, then raised as ``KeyboardInterrupt``
    (a few steps that must not be split: taking a lock, the last writes to ``--out``). Only the
    main thread can set handlers (and only it gets ``KeyboardInterrupt``); elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    import signal

    caught: list[int] = []
    previous = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda signum, _frame: caught.append(signum))
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if caught:
        raise KeyboardInterrupt("interrupted")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True
