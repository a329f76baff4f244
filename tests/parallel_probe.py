"""Run by test_runner.py on an executor's runners: shows which runs were under way together."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hosim.runner import Task


def wait_for_peers(task: Task) -> tuple[int, bool]:
    """Announce this run in the directory named by ``task.scenario``, then wait (up to 30 s)
    until ``task.overrides[0][1]`` runs have announced themselves. Returns this process's id and
    whether they all did: with fewer runners than that, the first run gives up and says False."""
    directory = Path(task.scenario)
    (directory / str(task.seed)).write_text(str(os.getpid()))
    wanted = int(task.overrides[0][1])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if len(list(directory.iterdir())) >= wanted:
            return os.getpid(), True
        time.sleep(0.01)
    return os.getpid(), False


def echo_seed(task: Task) -> tuple[int, str]:
    """Returns the task's seed at once, with 1 MB beside it: runs so short, and results so long
    to send, that a worker is often sending its result when the executor kills it."""
    return task.seed, "x" * (1 << 20)


def exit_abruptly(task: Task) -> int:
    """The worker process ends without a word (as a crash in native code would end it)."""
    os._exit(3)


def refuse(task: Task) -> int:
    raise ValueError(f"seed {task.seed} refused")
