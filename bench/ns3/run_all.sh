#!/bin/sh
# Re-run the whole hosim vs ns-3 comparison (benchmark only; needs `pip install ns3==3.44.post0`).
# About 5 minutes on a 2-core machine (both stacks); families run one at a time, ns-3 in one process.
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
# CUBIC + PRR (ns-3 TcpCubic + TcpPrrRecovery against hosim tcp.cc = "cubic", PRR-SSRB)
python bench/ns3/run_ns3.py --stack cubic-prr         # -> bench/results/ns3/ns3-cubic-prr.json
python bench/ns3/run_hosim.py --stack cubic-prr       # -> bench/results/ns3/hosim-cubic-prr.json
python bench/ns3/run_hosim.py --stack cubic-prr --cases one-loss-sack ss-overshoot delack-off --traces
python bench/ns3/run_ns3.py   --stack cubic-prr --cases one-loss-sack ss-overshoot delack-off --traces
python bench/ns3/plot_cwnd.py one-loss-sack-cubic-prr --tmax 3
python bench/ns3/plot_cwnd.py ss-overshoot-cubic-prr --tmax 6
python bench/ns3/plot_cwnd.py delack-off-cubic-prr --tmax 10
python bench/ns3/compare.py --stack cubic-prr         # -> bench/results/ns3/compare-cubic-prr.md
