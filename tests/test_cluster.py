"""hosim.cluster: batches of runs on a Dask cluster (`--cluster`), a worker killed mid-sweep,
and the one-line errors when Dask is missing or --jobs is given too."""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

import hosim
from hosim.cli import main
from hosim.cluster import MIN_BATCH_COST, plan_batches
from hosim.runner import Task, estimated_cost

#: Bounded waits of the cluster test, in seconds.
START_TIMEOUT_S = 30
SWEEP_TIMEOUT_S = 60


# --- batches (no cluster) ------------------------------------------------------------------------


def test_batches_hold_every_run_once_longest_first():
    costs = [10.0, 5000.0, 300.0, 300.0, 2500.0, 1.0] * 5
    batches = plan_batches(costs, workers=2)
    assert sorted(i for batch in batches for i in batch) == list(range(len(costs)))
    totals = [sum(costs[i] for i in batch) for batch in batches]
    assert totals == sorted(totals, reverse=True)
    assert all(costs[b[0]] == max(costs[i] for i in b) for b in batches)
    assert all(total >= MIN_BATCH_COST for total in totals[:-1])


def test_short_runs_are_batched_and_long_runs_run_alone():
    assert len(plan_batches([10.0] * 100, workers=4)) == 1  # 1000 flow-seconds in all: one batch
    assert len(plan_batches([1e5] * 12, workers=8)) == 12
    assert plan_batches([], workers=2) == []


def test_cost_is_duration_times_flows_with_overrides():
    text = "duration_s = 20.0\n[dumbbell]\nflows = 4\n"
    assert estimated_cost(Task(text)) == 80.0
    assert estimated_cost(Task(text, 1, (("duration_s", "5"), ("dumbbell.flows", "8")))) == 40.0
    assert estimated_cost(Task("duration_s = 5\n[lte_x2]\ntarget_ues = 5\n")) == 30.0
    assert estimated_cost(Task("[[flows]]\nname = 'a'\n[[flows]]\nname = 'b'\n")) == 20.0  # default 10 s


# --- one-line errors -----------------------------------------------------------------------------


def test_missing_dask_is_one_line_naming_the_extra(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code = main(["sweep", "dumbbell", "--seeds", "1", "--set", "duration_s=0.1", "--cluster", "local:1",
                 "--quiet", "--out", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "hosim[cluster]" in err


def test_jobs_and_cluster_together_are_refused(capsys, tmp_path):
    code = main(["sweep", "dumbbell", "--seeds", "1", "--jobs", "2", "--cluster", "local:1", "--out",
                 str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == 2 and "--jobs and --cluster" in err


def test_a_malformed_cluster_is_one_line(capsys, tmp_path):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install 'hosim[cluster]')")
    code = main(["sweep", "dumbbell", "--seeds", "1", "--set", "duration_s=0.1", "--cluster", "local:x",
                 "--quiet", "--out", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == 2 and "local:N" in err and len(err.splitlines()) == 1, err


# --- a real scheduler and two workers --------------------------------------------------------------


@pytest.fixture
def dask_cluster(tmp_path):
    """A ``dask scheduler`` and two ``dask worker`` processes (one thread each, no nanny, so a
    killed worker stays dead) on 127.0.0.1; yields ``(address, {name: worker process})`` and
    always stops them."""
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install 'hosim[cluster]')")
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(hosim.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_root, *filter(None, [env.get("PYTHONPATH")])])
    scheduler_file = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)], **quiet)]
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        workers = {}
        for name in ("w0", "w1"):
            workers[name] = subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--host", "127.0.0.1", "--name", name, "--death-timeout", "30"], **quiet)
            procs.append(workers[name])
        from distributed import Client

        with Client(address, timeout=START_TIMEOUT_S) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT_S)
        yield address, workers
    finally:
        for proc in procs:  # nothing of theirs is worth a graceful shutdown
            if proc.poll() is None:
                proc.kill()
        for proc in procs:
            proc.wait(timeout=10)


def _kill_a_busy_worker(address: str, workers: dict[str, subprocess.Popen[bytes]], runs: Path,
                        done: threading.Event, killed: list[str]) -> None:
    """Once a first run is back in ``runs/``, SIGKILL a worker that has a batch under way."""
    from distributed import Client

    with Client(address, timeout=START_TIMEOUT_S) as client:
        deadline = time.monotonic() + SWEEP_TIMEOUT_S
        while time.monotonic() < deadline and not done.is_set():
            if any(runs.glob("*.json")):
                names = {addr: info["name"] for addr, info in client.scheduler_info()["workers"].items()}
                busy = [names[addr] for addr, keys in client.processing().items() if keys and addr in names]
                if busy:
                    workers[busy[0]].send_signal(signal.SIGKILL)
                    killed.append(busy[0])
                    return
            time.sleep(0.02)


def _without_wall_time(csv_text: str) -> str:
    import csv
    import io

    rows = list(csv.reader(io.StringIO(csv_text)))
    keep = [i for i, name in enumerate(rows[0]) if name != "wall_time_s"]
    return "\n".join(",".join(row[i] for i in keep) for row in rows)


@pytest.mark.native
def test_sweep_on_a_cluster_survives_a_killed_worker_and_keeps_each_run_once(dask_cluster, tmp_path, monkeypatch):
    import hosim.campaign

    address, workers = dask_cluster
    # 12 runs of about 0.1 s, in batches of 2 (see hosim.cluster): a worker is killed with a
    # batch under way, and the other one runs what is left, that batch included.
    sweep = ["sweep", "dumbbell", "--grid", "dumbbell.loss=0.01,0.02", "--seeds", "6", "--set", "duration_s=200",
             "--no-cache", "--quiet"]
    local_out, cluster_out = tmp_path / "local", tmp_path / "cluster"
    assert main([*sweep, "--jobs", "1", "--out", str(local_out)]) == 0

    writes: Counter[str] = Counter()
    write = hosim.campaign.atomic_write_text

    def counting_write(path, text):
        writes[Path(path).name] += 1
        return write(path, text)

    monkeypatch.setattr(hosim.campaign, "atomic_write_text", counting_write)
    done, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_a_busy_worker,
                              args=(address, workers, cluster_out / "runs", done, killed), daemon=True)
    killer.start()
    # A sweep that hangs (a batch never re-run) must not hang the suite: dump the stacks and exit.
    faulthandler.dump_traceback_later(4 * SWEEP_TIMEOUT_S, exit=True)
    try:
        assert main([*sweep, "--cluster", address, "--out", str(cluster_out)]) == 0
    finally:
        faulthandler.cancel_dump_traceback_later()
        done.set()
        killer.join(timeout=10)

    assert killed, "the sweep ended before a worker could be killed"
    assert workers[killed[0]].wait(timeout=10) == -signal.SIGKILL
    local_runs = sorted(p.name for p in (local_out / "runs").glob("*.json"))
    assert len(local_runs) == 12
    assert sorted(p.name for p in (cluster_out / "runs").glob("*.json")) == local_runs
    assert {name: writes[name] for name in local_runs} == dict.fromkeys(local_runs, 1)  # each run written once
    for name in local_runs:
        ours, theirs = (json.loads((d / "runs" / name).read_text()) for d in (cluster_out, local_out))
        ours.pop("wall_time_s")
        theirs.pop("wall_time_s")
        assert ours == theirs, name
    for table in ("flows", "queues", "handovers", "runs"):
        ours, theirs = ((d / f"{table}.csv").read_text() for d in (cluster_out, local_out))
        assert _without_wall_time(ours) == _without_wall_time(theirs), table

    # The same cluster through the runner, as `hosim reproduce PAPER --cluster` uses it.
    from hosim.cli.options import runner_from_options
    from hosim.runner import Runner, make_task

    tasks = [make_task("lte-x2", seed, {"duration_s": 3}) for seed in (1, 2, 3)]
    with runner_from_options(None, None, no_cache=True, cluster=address) as runner:
        remote = runner.summaries(tasks)
    local = Runner(cache=None).summaries(tasks)
    assert [{k: v for k, v in s.items() if k != "wall_time_s"} for s in remote] == \
        [{k: v for k, v in s.items() if k != "wall_time_s"} for s in local]
