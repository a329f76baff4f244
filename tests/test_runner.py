"""hosim.runner: tasks, the two executors, the result cache and the error of a failed batch."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from conftest import CountingExecutor
from hosim import ScenarioError
from hosim.runner import (
    InProcessExecutor,
    ProcessExecutor,
    ResultCache,
    Runner,
    Task,
    default_cache_dir,
    make_executor,
    make_task,
    run_tasks,
)

SCENARIO = "[dumbbell]\nflows = 1\n"


def without_wall_time(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in s.items() if k != "wall_time_s"} for s in summaries]


def short_tasks(seeds: Sequence[int] = (1, 2, 3), **overrides: Any) -> list[Task]:
    return [make_task("dumbbell", seed, {"duration_s": 1, **overrides}) for seed in seeds]


# --- tasks and cache keys (no simulation) ----------------------------------------------------


def finishes_within(seconds: float, body: Callable[[], None]) -> bool:
    """Runs ``body`` in a daemon thread and tells whether it ended within ``seconds``: a hang
    fails the test instead of blocking the suite."""
    worker = threading.Thread(target=body, daemon=True)
    worker.start()
    worker.join(timeout=seconds)
    return not worker.is_alive()


def test_task_is_frozen_and_hashable():
    task = Task(SCENARIO, 1, (("a.b", "1"),))
    with pytest.raises(AttributeError):
        task.seed = 2  # type: ignore[misc]
    assert task == Task(SCENARIO, 1, (("a.b", "1"),)) and len({task, Task(SCENARIO, 1, (("a.b", "1"),))}) == 1


def test_cache_key_ignores_override_order_and_the_source_label():
    cache = ResultCache("unused", version="v1")
    a = Task(SCENARIO, 1, (("a.b", "1"), ("c.d", '"x"')), source="one.toml")
    b = Task(SCENARIO, 1, (("c.d", '"x"'), ("a.b", "1")), source="other.toml")
    assert cache.key(a) == cache.key(b)


@pytest.mark.parametrize(
    "changed",
    [
        Task(SCENARIO, 2, (("a.b", "1"),)),
        Task(SCENARIO, None, (("a.b", "1"),)),
        Task(SCENARIO, 1, (("a.b", "2"),)),
        Task(SCENARIO, 1, (("a.b", "1"), ("c.d", "1"))),
        Task(SCENARIO, 1, ()),
        Task(SCENARIO + "# edited\n", 1, (("a.b", "1"),)),
    ],
    ids=["seed", "no-seed", "override-value", "extra-override", "no-override", "scenario-text"],
)
def test_cache_key_changes_with_seed_overrides_and_scenario_text(changed):
    cache = ResultCache("unused", version="v1")
    assert cache.key(Task(SCENARIO, 1, (("a.b", "1"),))) != cache.key(changed)


def test_cache_key_changes_with_the_core_version(tmp_path):
    task = Task(SCENARIO, 1)
    old, new = ResultCache(tmp_path, version="core 1"), ResultCache(tmp_path, version="core 2")
    assert old.key(task) != new.key(task)
    old.put(task, '{"seed": 1}')
    assert old.get(task) == '{"seed": 1}' and new.get(task) is None


def test_a_damaged_cache_entry_is_a_miss(tmp_path):
    cache = ResultCache(tmp_path, version="v")
    task = Task(SCENARIO, 1)
    cache.put(task, '{"seed": 1')
    assert cache.get(task) is None
    cache.put(task, '{"seed": 1}')
    assert cache.get(task) == '{"seed": 1}'


def test_cached_summaries_are_returned_without_running(tmp_path):
    cache = ResultCache(tmp_path, version="v")
    tasks = [Task(SCENARIO, seed) for seed in (1, 2)]
    for task in tasks:
        cache.put(task, json.dumps({"seed": task.seed, "from": "cache"}))
    executor = CountingExecutor()
    progress: list[tuple[int, int]] = []
    got = run_tasks(tasks, executor, cache, lambda done, total: progress.append((done, total)))
    assert got == [{"seed": 1, "from": "cache"}, {"seed": 2, "from": "cache"}]
    assert executor.ran == [] and progress[-1] == (2, 2)


def test_cache_location_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("HOSIM_CACHE_DIR", str(tmp_path / "here"))
    assert default_cache_dir() == tmp_path / "here"
    assert ResultCache.from_env().directory == tmp_path / "here"
    monkeypatch.delenv("HOSIM_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "hosim"


def test_cache_can_be_turned_off(monkeypatch, tmp_path):
    assert ResultCache.from_env(tmp_path, enabled=False) is None
    monkeypatch.setenv("HOSIM_NO_CACHE", "1")
    assert ResultCache.from_env(tmp_path) is None
    assert Runner.from_options(jobs=1, cache_dir=tmp_path).cache is None


def test_one_job_runs_in_process_and_more_in_a_pool():
    assert isinstance(make_executor(1), InProcessExecutor)
    assert isinstance(make_executor(2), ProcessExecutor) and make_executor(2).jobs == 2  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="jobs"):
        ProcessExecutor(0)


# --- against the simulator -------------------------------------------------------------------


@pytest.mark.native
def test_process_pool_gives_exactly_the_in_process_results_in_task_order():
    tasks = short_tasks(seeds=(3, 1, 2), **{"dumbbell.loss": 0.01})
    serial = run_tasks(tasks, InProcessExecutor())
    progress: list[tuple[int, int]] = []
    with ProcessExecutor(jobs=2) as executor:
        parallel = run_tasks(tasks, executor, progress=lambda d, t: progress.append((d, t)))
        again = run_tasks(tasks[:1], executor)  # the same workers serve a second batch
    assert [s["seed"] for s in parallel] == [3, 1, 2]
    assert without_wall_time(parallel) == without_wall_time(serial)
    assert sorted(progress) == [(1, 3), (2, 3), (3, 3)]
    assert without_wall_time(again) == without_wall_time(serial[:1])


@pytest.mark.native
def test_second_run_is_served_from_the_cache(tmp_path):
    cache = ResultCache(tmp_path)
    tasks = short_tasks(seeds=(1, 2))
    first_executor, second_executor = CountingExecutor(), CountingExecutor()
    first = run_tasks(tasks, first_executor, cache)
    second = run_tasks(tasks, second_executor, cache)
    assert len(first_executor.ran) == 2 and second_executor.ran == []
    assert second == first  # wall_time_s included: nothing ran again


@pytest.mark.native
def test_changed_seed_override_or_text_misses_the_cache(tmp_path):
    cache = ResultCache(tmp_path)
    run_tasks(short_tasks(seeds=(1,)), CountingExecutor(), cache)
    base = short_tasks(seeds=(1,))[0]
    changed = [
        short_tasks(seeds=(2,))[0],
        short_tasks(seeds=(1,), **{"dumbbell.loss": 0.01})[0],
        Task(base.scenario + "\n# a comment\n", base.seed, base.overrides, base.source),
    ]
    executor = CountingExecutor()
    run_tasks(changed, executor, cache)
    assert executor.ran == changed


@pytest.mark.native
@pytest.mark.parametrize("jobs", [1, 2])
def test_failed_batch_reports_the_lowest_failing_task_whatever_the_executor(jobs, tmp_path):
    tasks = short_tasks(seeds=(1,)) + short_tasks(seeds=(2, 3), **{"dumbbell.bottleneck_bps": -1})
    cache = ResultCache(tmp_path)
    with pytest.raises(ScenarioError, match=r"bottleneck_bps.*\(seed 2\)$"), make_executor(jobs) as executor:
        run_tasks(tasks, executor, cache)
    assert cache.get(tasks[0]) is not None  # the good run finished and was kept


@pytest.mark.native
def test_runner_summary_runs_one_preset():
    summary = Runner().summary("dumbbell", 4, {"duration_s": 1})
    assert summary["seed"] == 4 and summary["flows"]


@pytest.mark.native
def test_interruptible_executor_gives_the_same_results_and_is_killed_when_closed_early():
    from hosim.runner import InProcessExecutor, InterruptibleExecutor, make_task, run_task

    tasks = [make_task("dumbbell", seed, {"duration_s": 1}) for seed in (1, 2, 3)]
    expected = {i: json.loads(v)["flows"] for i, v in InProcessExecutor().map(run_task, tasks)}
    with InterruptibleExecutor(2) as executor:
        got = {i: json.loads(v)["flows"] for i, v in executor.map(run_task, tasks)}
        assert got == expected
        outcomes = executor.map(run_task, tasks * 4)
        next(outcomes)
        outcomes.close()  # a failed run or Ctrl-C: the workers are killed, not waited for
        assert executor._workers is None


def test_interruptible_executor_is_killed_at_any_moment_without_hanging():
    # Workers killed while they send results: with a lock shared among the workers (as
    # multiprocessing.Pool's result queue has), one killed holding it hung the next kill.
    from hosim.runner import InterruptibleExecutor
    from parallel_probe import echo_seed

    tasks = [Task("", seed) for seed in range(400)]  # chunks of 8: 8 MB a message

    def kill_early_many_times() -> None:
        with InterruptibleExecutor(2) as executor:
            for stop_after in range(1, 41):
                outcomes = executor.map(echo_seed, tasks)
                seen = [next(outcomes) for _ in range(stop_after)]
                outcomes.close()
                assert executor._workers is None
                assert len({index for index, _ in seen}) == stop_after
            assert sorted(v[0] for _, v in executor.map(echo_seed, tasks)) == list(range(400))

    assert finishes_within(120, kill_early_many_times), "killing the workers hung"


def test_interruptible_executor_closes_while_a_map_is_left_unfinished():
    # Leaving the block normally with a map not run to its end: the workers' replies under
    # way (1 MB, more than a pipe holds) must not keep them from stopping.
    from hosim.runner import InterruptibleExecutor
    from parallel_probe import echo_seed

    tasks = [Task("", seed) for seed in range(400)]

    def leave_a_map_unfinished() -> None:
        with InterruptibleExecutor(2) as executor:
            outcomes = executor.map(echo_seed, tasks)
            next(outcomes)
        assert executor._workers is None
        outcomes.close()

    assert finishes_within(120, leave_a_map_unfinished), "closing the executor hung"


def test_interruptible_executor_reports_a_failed_run_and_a_dead_worker_instead_of_hanging():
    from hosim.runner import InterruptibleExecutor
    from parallel_probe import exit_abruptly, refuse

    tasks = [Task("", seed) for seed in range(6)]
    with pytest.raises(ValueError, match="refused"), InterruptibleExecutor(2) as executor:
        list(executor.map(refuse, tasks))
    assert executor._workers is None  # killed on the way out
    with pytest.raises(RuntimeError, match="worker process died"), InterruptibleExecutor(2) as executor:
        list(executor.map(exit_abruptly, tasks))


def test_interruptible_executor_runs_jobs_runs_at_once_each_in_its_own_worker(tmp_path):
    from hosim.runner import InterruptibleExecutor
    from parallel_probe import wait_for_peers

    tasks = [Task(str(tmp_path), seed, (("peers", "2"),)) for seed in range(2)]
    with InterruptibleExecutor(2) as executor:
        outcomes = [value for _, value in executor.map(wait_for_peers, tasks)]
    assert [saw for _, saw in outcomes] == [True, True]  # both runs were under way at the same time
    pids = {pid for pid, _ in outcomes}
    assert len(pids) == 2 and os.getpid() not in pids


def test_small_runs_travel_in_chunks_and_long_runs_one_by_one():
    from hosim.runner import MAX_CHUNK, chunk_size

    small = [Task("duration_s = 1\n[dumbbell]\nflows = 2\n", seed) for seed in range(50)]
    long = [Task("duration_s = 400\n[dumbbell]\nflows = 4\n", seed) for seed in range(50)]
    assert chunk_size(small, jobs=2) == 6  # at least 4 chunks per worker
    assert chunk_size(small * 10, jobs=2) == MAX_CHUNK
    assert chunk_size(small[:3], jobs=2) == 1
    assert chunk_size(long, jobs=2) == 1
