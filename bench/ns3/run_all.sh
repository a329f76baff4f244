#!/bin/sh
# Re-run the whole hosim vs ns-3 comparison (benchmark only; needs `pip install ns3==3.44.post0`).
# About 2-3 minutes on a 2-core machine; families run one at a time, ns-3 in one process.
set -e
cd "$(dirname "$0")/../.."
python bench/ns3/run_ns3.py                  # -> bench/results/ns3/ns3.json
python bench/ns3/run_hosim.py                # -> bench/results/ns3/hosim.json
# cwnd / ssthresh traces (CSV) and plots of the cases explained in bench/README.md
python bench/ns3/run_hosim.py --cases lost-retx-sack one-loss-sack three-losses-newreno ss-overshoot-ackevery --traces
python bench/ns3/run_ns3.py   --cases lost-retx-sack one-loss-sack three-losses-newreno ss-overshoot-ackevery --traces
python bench/ns3/plot_cwnd.py lost-retx-sack --tmax 4.5
python bench/ns3/plot_cwnd.py one-loss-sack --tmax 3
python bench/ns3/plot_cwnd.py ss-overshoot-ackevery
python bench/ns3/compare.py                  # -> bench/results/ns3/compare.md
