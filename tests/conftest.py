"""Shared fixtures: running the CLI as a subprocess, and skipping simulator tests when the
native module is not built (the pure-Python tests still run)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

import hosim

#: Overrides that keep every simulated run short.
SHORT = ("--set", "duration_s=2")


def _native_available() -> bool:
    try:
        import hosim._native  # noqa: F401
    except ImportError:
        return False
    return True


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "native: needs the built extension module hosim._native")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _native_available():
        return
    skip = pytest.mark.skip(reason="hosim._native is not built (run `pip install -e .`)")
    for item in items:
        if "native" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _private_result_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets an empty result cache of its own (never the user's ~/.cache/hosim),
    also in the child processes it starts."""
    monkeypatch.setenv("HOSIM_CACHE_DIR", str(tmp_path_factory.mktemp("hosim-cache")))
    monkeypatch.delenv("HOSIM_NO_CACHE", raising=False)


@pytest.fixture
def hosim_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``python -m hosim.cli ARGS`` in a child process; returns the completed process."""

    def run(
        *args: str, cwd: str | os.PathLike[str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ)
        env.pop("HOSIM_DEBUG", None)
        # The child imports the hosim under test, also when cwd moves away from a relative PYTHONPATH.
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(hosim.__file__)))
        env["PYTHONPATH"] = os.pathsep.join([package_root, *filter(None, [env.get("PYTHONPATH")])])
        return subprocess.run(
            [sys.executable, "-m", "hosim.cli", *args],
            capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout,
        )

    return run


@pytest.fixture(scope="session")
def dumbbell_toml() -> str:
    """The TOML text of the dumbbell preset."""
    if not _native_available():
        pytest.skip("hosim._native is not built")
    from hosim.api import presets

    return next(p.toml for p in presets() if p.name == "dumbbell")


class CountingExecutor:
    """An in-process executor (``hosim.runner.Executor``) that records the tasks it ran."""

    def __init__(self) -> None:
        self.ran: list[Any] = []

    def map(self, fn: Callable[[Any], Any], tasks: Sequence[Any], progress: Any = None) -> Iterator[tuple[int, Any]]:
        from hosim.runner import InProcessExecutor

        self.ran.extend(tasks)
        return InProcessExecutor().map(fn, tasks, progress)
