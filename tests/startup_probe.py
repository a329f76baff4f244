"""Run in a worker process by test_startup.py: which heavy modules a sweep worker has loaded."""

from __future__ import annotations

import sys

HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "rich")


def heavy_modules() -> list[str]:
    return [name for name in HEAVY if name in sys.modules]


def run_then_list_heavy(task: object) -> list[str]:
    from hosim.runner import run_task

    run_task(task)  # type: ignore[arg-type]
    return heavy_modules()
