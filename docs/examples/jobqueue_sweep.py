"""Run a `hosim sweep` on a SLURM (or PBS) cluster through dask-jobqueue.

The batch system starts Dask workers as jobs; this script, run on the login node, asks for them
and then runs an ordinary `hosim sweep --cluster ADDRESS` against their scheduler, so the
campaign directory, resume and tables are the same as on one machine.

    pip install 'hosim[cluster]' dask-jobqueue      # on the login node and for the workers
    python docs/examples/jobqueue_sweep.py --jobs 8 -- lte-x2 --seeds 500 --out x2-500

Every worker must import the same hosim build as this script (same environment, e.g. a shared
virtualenv on the cluster's file system): a worker with another build refuses the runs.
For PBS use `PBSCluster` (same arguments, `resource_spec` instead of `job_extra_directives`).
"""

from __future__ import annotations

import argparse
import sys

from dask_jobqueue import SLURMCluster
from distributed import Client

from hosim.cli import main


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4, help="batch jobs, each one single-threaded Dask worker")
    parser.add_argument("--queue", default=None, help="SLURM partition")
    parser.add_argument("--walltime", default="01:00:00")
    parser.add_argument("sweep", nargs=argparse.REMAINDER, help="-- then the arguments of `hosim sweep`")
    args = parser.parse_args(argv)
    sweep_args = args.sweep[1:] if args.sweep[:1] == ["--"] else args.sweep
    # One process with one thread per job: a hosim run is single-threaded and holds the GIL.
    with SLURMCluster(cores=1, processes=1, memory="2GB", queue=args.queue, walltime=args.walltime) as cluster:
        cluster.scale(jobs=args.jobs)
        # hosim sizes its batches for the workers present when the sweep starts: wait for them.
        with Client(cluster) as client:
            client.wait_for_workers(args.jobs)
        return main(["sweep", *sweep_args, "--cluster", cluster.scheduler_address])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
