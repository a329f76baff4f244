#!/usr/bin/env python3
"""Why the fast path switch times out (docs/reproductions/lte-intra-handover.md, "Why fast
times out"): per seed, which of the reference flow's segments the full ``router->tenb`` queue
dropped around the handover, forwarded or direct, and the outcome.

Runs ``hosim run lte-x2`` with packet captures of ``srv_ue_ref->sgw`` (what the sender sent)
and ``router->tenb`` (what left the queue; forwarded packets come from the source eNB's
address), for seeds 1..N and the given ``--set`` changes. A segment sent between the decision
and 150 ms after the S-GW switch whose first copy never left ``router->tenb`` was dropped
there (no other queue drops in this setup: the summary's queue table). Needs dpkt.

Usage:
  python bench/ns2/papers/lte_x2_fast_trace.py [--seeds 50] [--set lte_x2.path_switch=fast ...]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import dpkt


def packets(path: Path) -> list[tuple[float, str, int, bool]]:
    """(time, source address of the inner packet's tunnel or '', TCP seq, has payload)."""
    out = []
    with path.open("rb") as f:
        for ts, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ip.IP(buf)
            outer = ""
            if isinstance(ip.data, dpkt.udp.UDP):
                payload = bytes(ip.data.data)
                if len(payload) <= 8:
                    continue  # an end marker
                outer = socket.inet_ntoa(ip.src)
                ip = dpkt.ip.IP(payload[8:])
            if isinstance(ip.data, dpkt.tcp.TCP) and socket.inet_ntoa(ip.src) == REF_SRC[0]:
                out.append((ts, outer, ip.data.seq, len(ip.data.data) > 0))
    return out


REF_SRC = [""]


def one(seed: int, sets: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="lte-fast-") as d:
        cmd = ["hosim", "run", "lte-x2", "--seed", str(seed), "--out", d, "--no-traces", "--force",
               "--pcap", "srv_ue_ref->sgw,router->tenb,senb->router", "--pcap-format", "pcap"]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, capture_output=True)
        s = json.loads((Path(d) / "summary.json").read_text())
        ho = s["handovers"][0]
        with (Path(d) / "srv_ue_ref-%3Esgw.pcap").open("rb") as f:
            first = next(iter(dpkt.pcap.Reader(f)))[1]
        REF_SRC[0] = socket.inet_ntoa(dpkt.ip.IP(first).src)
        sent = [p for p in packets(Path(d) / "srv_ue_ref-%3Esgw.pcap") if p[3]]
        passed = packets(Path(d) / "router-%3Etenb.pcap")
        fw_src = {p[1] for p in packets(Path(d) / "senb-%3Erouter.pcap")}
    seq0 = sent[0][2]
    t0, t1 = ho["start_s"], ho["sgw_switch_s"] + 0.15
    txs: dict[int, list[float]] = {}
    for ts, _, seq, _ in sent:
        txs.setdefault(seq, []).append(ts)
    passes: dict[int, list[float]] = {}
    for ts, _, seq, _ in passed:
        passes.setdefault(seq, []).append(ts)
    first_tx = {seq: v[0] for seq, v in txs.items()}

    def dropped_first(seq: int) -> bool:
        """No copy left the queue before the segment was sent again."""
        again = txs[seq][1] if len(txs[seq]) > 1 else float("inf")
        return not any(t < again for t in passes.get(seq, []))

    fw_seen = {seq for _, o, seq, _ in passed if o in fw_src}
    lost = sorted(seq for seq, ts in first_tx.items() if t0 <= ts <= t1 and dropped_first(seq))
    # Outstanding at attach: first sent before the UE attached (all of them forwarded, the
    # window closes once they are acknowledged); later segments went the old path (and were
    # forwarded) before the S-GW switch, the direct path after it.
    n = lambda q: (q - seq0) // 1460  # noqa: E731
    att, sw = ho["attach_s"], ho["sgw_switch_s"]
    return {
        "seed": seed, "outcome": ho["outcome"],
        "lost_outstanding_at_attach": [n(q) for q in lost if first_tx[q] < att],
        "lost_later_forwarded": [n(q) for q in lost if att <= first_tx[q] < sw],
        "lost_later_direct": [n(q) for q in lost if first_tx[q] >= max(att, sw)],
        "forwarded_passed": len(fw_seen), "reordering_timed_out": ho["reordering_timed_out"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--set", action="append", default=[], dest="sets")
    a = ap.parse_args()
    rows = [one(s, a.sets) for s in range(1, a.seeds + 1)]
    for r in rows:
        print(json.dumps(r))
    table: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        k = len(r["lost_outstanding_at_attach"])
        later = len(r["lost_later_forwarded"]) + len(r["lost_later_direct"])
        key = (str(min(k, 2)) + ("+" if k >= 2 else ""), "later lost" if later else "none later")
        table.setdefault(key, []).append(r["outcome"])
    print("| lost of the segments outstanding at attach | later segments | runs | timeout | halving | optimal |",
          file=sys.stderr)
    print("|---|---|---|---|---|---|", file=sys.stderr)
    for (k_att, later), v in sorted(table.items()):
        print(f"| {k_att} | {later} | {len(v)} | {v.count('timeout')} | {v.count('halving')} | {v.count('optimal')} |",
              file=sys.stderr)
    mean = lambda k: sum(len(r[k]) for r in rows) / len(rows)  # noqa: E731
    print(f"mean lost per run: outstanding at attach {mean('lost_outstanding_at_attach'):.2f}, later forwarded "
          f"{mean('lost_later_forwarded'):.2f}, later direct {mean('lost_later_direct'):.2f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
