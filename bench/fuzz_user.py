"""A fuzzer at the user's level (issue 39): what users give hosim, through the CLI and Python.

Each case is an explicit graph (nodes, links, flows, sometimes a Mahimahi trace file) or a
preset with ``--set`` overrides, with values drawn from pools of ordinary, huge, tiny,
negative, NaN/inf, non-ASCII and multi-line values. A case runs either through the ``hosim``
command (a subprocess per case: exit code, stderr, peak RSS from ``wait4``) or through
``hosim.run_text`` / ``hosim.run`` in a worker process (restarted if it dies); with
``--pcap-share``, a share of the graphs runs with ``--out DIR --pcap all --pcap-format pcap``
and its capture files are read back. Checked per case:

- with ``--pcap-share``: a file per captured link, none cut short, as many records as the
  summary's packets;
- the exit class: ``ok`` (exit 0), ``input`` (exit 2, or ``hosim.ScenarioError``), else a failure;
- an input error is one line and names a key, a line, a file or an option;
- peak memory against a bound computed from the input (``memory_bound_mb``);
- plausibility of the summary: invariants ok, simulated time within ``duration_s``, every flow's
  goodput at most the fastest link's rate, its bytes delivered at most what it sent, its start
  time the one asked for (a wrapped time would not be), completion and handovers within the run,
  every queue's utilization at most 1.

    python bench/fuzz_user.py --count 10000 --seed 39 --timeout 20 > bench/results/fuzz_user.txt

prints a table of cases per class and every failure (exit 1 when any). ``tests/test_fuzz_user.py``
runs a short slice. Other ``--out`` cases (used, read-only and full directories) and signals
are not exercised here: they are the CLI's own work.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PRESETS = ("dumbbell", "fcp", "lte-x2", "hsdpa", "inter-rat", "vertical")
#: Values of any kind for any key: ordinary, huge, tiny, negative, not numbers, not ASCII.
WILD = ("0", "1", "-1", "2", "0.5", "1e-9", "1e-12", "1e9", "1e10", "1e300", "-1e300", "nan", "inf", "-inf",
        "4294967295", "18446744073709551615", "9223372036854775808", "true", "\"\"", "\"ü\"", "\"x\\ny\"",
        "[1, 2]", "{a = 1}", "1\n[x]\ny = 2", "\u00e9t\u00e9", "0x10", "1_000")
#: Keys (the fuzzer of the core mutates the presets' own keys; these are the ones users set).
KEYS = ("duration_s", "seed", "tcp.mss_bytes", "tcp.header_bytes", "tcp.initial_window_segments",
        "tcp.rwnd_bytes", "tcp.min_rto_s", "tcp.max_rto_s", "tcp.initial_rto_s", "tcp.clock_granularity_s",
        "tcp.delayed_ack_timeout_s", "tcp.dupack_threshold", "tcp.cc", "tcp.recovery", "tcp.profile",
        "trace.interval_s", "dumbbell.flows", "dumbbell.start_stagger_s", "dumbbell.start_jitter_s",
        "dumbbell.bottleneck_bps", "dumbbell.access_bps", "dumbbell.bottleneck_delay_s", "dumbbell.queue_packets",
        "dumbbell.loss", "fcp.mobiles", "fcp.handover_interval_rtt", "fcp.start_stagger_s", "fcp.rtt_s",
        "vertical.interval_s", "vertical.app_rate_bps", "inter_rat.sample_s", "inter_rat.handover_at_s",
        "lte_x2.prediction_error_std_s", "hsdpa.period_s", "engine.tie_order", "nodes", "ünïcode.kéy")
RATES = (1.0, 1e3, 1e6, 10e6, 1e9, 1e12, 2e12, 1e300, 0.0, -5.0, 0.5, float("nan"), float("inf"))
DELAYS = (0.0, 1e-9, 1e-6, 0.001, 0.02, 0.5, 1e9, 2e9, -0.1, float("nan"), 5e-10)
NAMES = ("a", "b", "r>1", "r<1", "ü", "日本", "x y", "a/b", "", "..", "%41", "n\u0301")


@dataclass
class Case:
    index: int
    mode: str  # "cli" or "py"
    label: str
    text: str = ""
    source: str = ""
    sets: list[tuple[str, str]] = field(default_factory=list)
    trace: str | None = None
    #: For plausibility: the fastest link (bit/s) and each flow's start, when known.
    max_rate_bps: float = math.inf
    starts: list[float] | None = None


def toml_float(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(float(v))


def toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def graph_case(rng: random.Random, i: int, tmp: Path) -> Case:
    # How often a value comes from the wild pools: a share of the cases are all ordinary.
    wild = rng.choice((0.0, 0.0, 0.0, 0.005, 0.02, 0.1))
    hosts = rng.randint(2, 6)
    routers = rng.randint(0, 25)
    pool = list(NAMES)
    names: list[str] = []
    for k in range(hosts + routers):
        n = rng.choice(pool) + str(k) if rng.random() < 0.5 else f"n{k}"
        names.append(n)
    if rng.random() < wild:
        names[-1] = names[0]  # a duplicate name
    d = rng.choice((1e-9, 0.0, 5e-10, 1e6)) if rng.random() < wild else rng.choice((0.5, 1.0, 2.0, 3.0))
    lines = [f"duration_s = {toml_float(d)}"]
    for k, n in enumerate(names):
        lines += ["[[nodes]]", f"name = {toml_str(n)}", f'kind = "{"host" if k < hosts else "router"}"']
    # A chain through the routers (so most graphs route), plus random extra links.
    order = list(range(hosts, hosts + routers))
    rng.shuffle(order)
    path = [0, *order, 1]
    pairs = list(zip(path, path[1:]))
    extra = [(rng.randrange(len(names)), rng.randrange(len(names))) for _ in range(rng.randint(0, 8))]
    pairs += [(a, b) for a, b in extra if a != b or rng.random() < wild]
    pairs += [(h, rng.choice(path[1:])) for h in range(2, hosts)]
    max_rate = 0.0
    trace_text = None
    link_names: set[str] = set()
    for a, b in pairs:
        rate = rng.choice(RATES) if rng.random() < wild else rng.choice((1e6, 10e6, 100e6, 1e9))
        delay = rng.choice(DELAYS) if rng.random() < wild else rng.choice((0.0, 0.001, 0.01))
        lines += ["[[links]]", f"from = {toml_str(names[a])}", f"to = {toml_str(names[b])}",
                  f"rate_bps = {toml_float(rate)}", f"delay_s = {toml_float(delay)}"]
        if rng.random() < 0.2:
            ln = rng.choice(NAMES) + rng.choice(("", ">", "<", "é"))
            if ln not in link_names:
                link_names.add(ln)
                lines.append(f"name = {toml_str(ln)}")
        if rng.random() < 0.2:
            q = rng.choice((0, 4294967295, 2**40)) if rng.random() < wild else rng.choice((1, 10, 1000))
            lines.append(f"queue_packets = {q}")
        if rng.random() < 0.1:
            p = rng.choice((1.0, -0.1, float("nan"))) if rng.random() < wild else rng.choice((0.0, 0.01, 0.5))
            lines.append(f"loss = {toml_float(p)}")
        if rng.random() < 0.1 and trace_text is None:
            trace_text = mahimahi(rng, wild)
            lines += ["[links.rate_model]", 'model = "trace"', f"trace_file = {toml_str(str(tmp / f'{i}.mahi'))}"]
            max_rate = max(max_rate, 12e6 * max(1, trace_text.count("\n")))
        if math.isfinite(rate):
            max_rate = max(max_rate, rate)
    starts = []
    for _ in range(rng.randint(1, 4)):
        s = rng.choice((1e9, 2e9, -1.0, float("nan"))) if rng.random() < wild else rng.choice((0.0, 0.0, 0.1, 1.0))
        starts.append(s)
        src, dst = rng.sample(range(hosts), 2) if rng.random() >= wild else (0, 0)
        lines += ["[[flows]]", f"src = {toml_str(names[src])}", f"dst = {toml_str(names[dst])}",
                  f"start_s = {toml_float(s)}"]
        app = rng.choice(("bulk", "bulk", "file", "rate"))
        lines.append(f'app = "{app}"')
        if app == "file":
            b = rng.choice((0, 2**63, 2**64 - 1)) if rng.random() < wild else rng.choice((1, 1000, 10**6))
            lines.append(f"bytes = {b}")
        if app == "rate":
            r = rng.choice((1e12, 1e13, 0.0, 1e300)) if rng.random() < wild else rng.choice((1e3, 1e6, 1e8))
            lines.append(f"rate_bps = {toml_float(r)}")
    sets = [(rng.choice(("tcp.mss_bytes", "tcp.initial_window_segments", "tcp.max_rto_s", "trace.interval_s")),
             rng.choice(WILD))] if rng.random() < wild else []
    text = "\n".join(lines) + "\n"
    if trace_text is not None:
        (tmp / f"{i}.mahi").write_text(trace_text, encoding="utf-8")
    return Case(i, "", "graph", text=text, source=f"g{i}.toml", sets=sets, trace=trace_text,
                max_rate_bps=max_rate or math.inf, starts=starts)


def mahimahi(rng: random.Random, wild: float) -> str:
    if rng.random() >= 2 * wild:
        stamps = sorted(rng.randint(0, 2000) for _ in range(rng.randint(1, 500)))
        if rng.random() < 0.3:
            stamps.append(rng.choice((5 * 10**9, 10**12)) if rng.random() >= wild else rng.choice((10**12 + 1, 2**64)))
        return "".join(f"{t}\n" for t in stamps)
    return rng.choice(("", "\n\n", "0\n", "-4\n", "1\nx\n", "5\n3\n", "1.5\n", "ü\n", "1\n\u00a02\n", "1e3\n",
                       "00001\n  7 \n", "\r\n5\r\n"))


#: Ordinary values by the kind of key (its name's suffix).
SANE = {"_s": ("0.001", "0.01", "0.1", "0.5", "1", "5"), "_bps": ("1e5", "1e6", "1e7", "1e9"),
        "_bytes": ("1000", "1460", "65536", "1048576"), "_segments": ("1", "3", "10", "100"),
        "flows": ("1", "2", "8", "50"), "mobiles": ("1", "2", "10"), "_packets": ("1", "10", "100", "1000"),
        "_rtt": ("1", "10", "100"), "loss": ("0", "0.01", "0.1"), "cc": ("reno", "cubic"),
        "recovery": ("reno", "newreno", "sack"), "profile": ("rfc", "ns2", "ns3", "linux"),
        "tie_order": ("event_order", "departure_first"), "seed": ("1", "2", "99")}


def sane_value(rng: random.Random, key: str) -> str:
    for suffix, values in SANE.items():
        if key.endswith(suffix):
            return rng.choice(values)
    return rng.choice(WILD)


def preset_case(rng: random.Random, i: int) -> Case:
    name = rng.choice(PRESETS)
    own = name.replace("-", "_").split("_")[0]
    keys = [k for k in KEYS if not ("." in k and k.split(".")[0] not in ("tcp", "trace", "engine"))
            or k.startswith(own)]
    wild = rng.choice((0.0, 0.0, 0.1, 0.3, 0.6))
    sets = [("duration_s", rng.choice(("1", "2", "0.5")))]
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(KEYS) if rng.random() < wild else rng.choice(keys)
        sets.append((key, rng.choice(WILD) if rng.random() < wild else sane_value(rng, key)))
    return Case(i, "", f"preset:{name}", source=name, sets=sets)


def make_case(seed: int, i: int, tmp: Path) -> Case:
    rng = random.Random(seed * 1_000_003 + i)
    case = graph_case(rng, i, tmp) if rng.random() < 0.5 else preset_case(rng, i)
    case.mode = "cli" if rng.random() < 0.2 else "py"
    return case


def memory_bound_mb(case: Case) -> float:
    """Peak RSS a case may reach: the interpreter and core (~150 MB), plus the input's text
    and trace file (a few hundred bytes of parsed state per byte is ample), plus the routes
    of a small graph. Generated inputs stay small, so anything near a gigabyte is a runaway."""
    size = len(case.text) + len(case.trace or "")
    return 250 + 400 * size / 1e6


# --- running ---------------------------------------------------------------------------------

@dataclass
class Outcome:
    cls: str
    detail: str = ""
    peak_mb: float = 0.0
    summary: dict[str, Any] | None = None


def error_line_ok(msg: str) -> bool:
    """One line that names a key (`k`), a line, a file, or an option."""
    return "\n" not in msg.strip() and bool(msg.strip()) and any(
        m in msg for m in ("key `", "line ", ".toml", ": ", "--set", "option"))


def crash_cause(stderr: str) -> str:
    """The line of a crash's stderr that says what happened (a panic, a failed allocation)."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if "panicked at" in line:
            return " ".join(lines[i:i + 2])
        if "memory allocation" in line or "Traceback" in line or "error:" in line:
            return line
    return stderr[-300:]


def pcap_records(path: Path) -> int:
    """Records of a classic pcap file; raises ValueError if it is cut short. Reads only the
    headers: a whole file in memory would raise this process's peak RSS, which Linux then
    counts in the peak of every child it forks (the child's mm starts as a copy of ours)."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24 or head[:4] not in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4"):
            raise ValueError("no pcap header")
        order = "little" if head[:4] == b"\xd4\xc3\xb2\xa1" else "big"
        at, n = 24, 0
        while at < size:
            rec = f.read(16)
            if len(rec) < 16:
                raise ValueError(f"cut short at byte {at}")
            at += 16 + int.from_bytes(rec[8:12], order)
            f.seek(at)
            n += 1
    if at != size:
        raise ValueError(f"cut short: record ends at byte {at} of {size}")
    return n


def capture_problem(outdir: Path, summary: dict[str, Any]) -> str | None:
    """What is wrong with a run's classic pcap files: a file per captured link, each whole,
    holding as many records as the summary says the link started to transmit."""
    links = summary.get("capture", {}).get("links", [])
    files = [link["file"] for link in links]
    if len(set(files)) != len(files):
        return f"two links share a file: {sorted(files)}"
    for link in links:
        try:
            n = pcap_records(outdir / link["file"])
        except (OSError, ValueError) as e:
            return f"{link['file']}: {e}"
        if n != link["packets"]:
            return f"{link['file']}: {n} records, the summary says {link['packets']}"
    return None


def run_cli(case: Case, tmp: Path, hosim: str, timeout: float) -> Outcome:
    if case.text:
        path = tmp / case.source
        path.write_text(case.text, encoding="utf-8")
        scen = str(path)
    else:
        scen = case.source
    outdir = tmp / "run-out"
    shutil.rmtree(outdir, ignore_errors=True)
    if case.mode == "pcap":
        argv = [hosim, "run", scen, "--out", str(outdir), "--no-traces", "--pcap", "all", "--pcap-format", "pcap"]
    else:
        argv = [hosim, "run", scen, "--json"]
    for k, v in case.sets:
        argv += ["--set", f"{k}={v}"]
    t0 = time.monotonic()
    with open(tmp / "out", "wb") as out, open(tmp / "err", "wb") as err:
        p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > timeout:
                p.kill()
                _, status, usage = os.wait4(p.pid, 0)
                return Outcome("timeout", f"killed after {timeout} s", usage.ru_maxrss / 1024)
            time.sleep(0.01)
    peak = usage.ru_maxrss / 1024
    stderr = (tmp / "err").read_text(encoding="utf-8", errors="replace")
    if os.WIFSIGNALED(status):
        return Outcome("fail", f"signal {os.WTERMSIG(status)}: {crash_cause(stderr)}", peak)
    code = os.WEXITSTATUS(status)
    if code == 0:
        summary_file = outdir / "summary.json" if case.mode == "pcap" else tmp / "out"
        try:
            summary = json.loads(summary_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            return Outcome("fail", f"exit 0 without a JSON summary: {e}", peak)
        if case.mode == "pcap":
            wrong = capture_problem(outdir, summary)
            if wrong:
                return Outcome("fail", f"capture: {wrong}", peak)
        return Outcome("ok", "", peak, summary)
    if code == 2:
        lines = [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("hosim: warning")]
        if len(lines) == 1 and error_line_ok(lines[0]):
            return Outcome("input", lines[0], peak)
        return Outcome("fail", f"exit 2 but not one line naming a key: {stderr[:400]!r}", peak)
    return Outcome("fail", f"exit {code}: {crash_cause(stderr)!r}", peak)


WORKER = r"""
import json, resource, sys
import hosim
from hosim.api import parse_toml_value, run_text
from hosim.errors import ScenarioError
limit = int(sys.argv[1]) * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
for line in sys.stdin:
    c = json.loads(line)
    try:
        if c["text"]:
            r = run_text(c["text"], c["source"], 1, [tuple(p) for p in c["sets"]], traces=False)
        else:
            # Python values, as a user of hosim.run gives them (nan, big ints, lists, strings).
            values = {k: parse_toml_value(v) for k, v in c["sets"]}
            r = hosim.run(c["source"], seed=1, overrides=values, traces=False)
        out = {"cls": "ok", "summary": r.summary}
    except ScenarioError as e:
        out = {"cls": "input", "detail": str(e)}
    except Exception as e:
        out = {"cls": "fail", "detail": f"{type(e).__name__}: {e}"}
    out["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(out), flush=True)
"""


class Worker:
    """A Python process running cases through hosim.run_text, restarted when it dies."""

    def __init__(self, python: str, limit_mb: int, err_path: Path):
        self.python, self.limit_mb, self.err_path = python, limit_mb, err_path
        self.p: subprocess.Popen[str] | None = None

    def start(self) -> subprocess.Popen[str]:
        if self.p is None or self.p.poll() is not None:
            # stderr to a file: a pipe nobody reads could fill and stall the worker.
            with open(self.err_path, "w", encoding="utf-8") as err:
                self.p = subprocess.Popen([self.python, "-c", WORKER, str(self.limit_mb)], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=err, text=True, encoding="utf-8")
        return self.p

    def run(self, case: Case, timeout: float) -> Outcome:
        p = self.start()
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(json.dumps({"text": case.text, "source": case.source, "sets": case.sets}) + "\n")
        p.stdin.flush()
        sel = selectors.DefaultSelector()
        sel.register(p.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            self.stop()
            return Outcome("timeout", f"no answer in {timeout} s")
        line = p.stdout.readline()
        if not line:
            p.wait()
            err = self.err_path.read_text(encoding="utf-8", errors="replace")
            self.stop()
            return Outcome("fail", f"worker died (exit {p.returncode}): {crash_cause(err)!r}")
        r = json.loads(line)
        return Outcome(r["cls"], r.get("detail", ""), r["maxrss_kb"] / 1024, r.get("summary"))

    def stop(self) -> None:
        if self.p is not None:
            self.p.kill()
            self.p.wait()
            self.p = None


def case_duration(case: Case) -> float | None:
    """The case's duration_s, when it gives one (the last --set wins over the text)."""
    duration = None
    if case.text:
        for line in case.text.splitlines():
            if line.startswith("duration_s = "):
                duration = float(line.split("= ")[1])
    for k, v in case.sets:
        if k == "duration_s":
            from hosim.api import parse_toml_value

            value = parse_toml_value(v)  # as the core reads it: 0x10 is 16, 1_000 is 1000
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                duration = float(value)
    return duration


#: A run this long (simulated seconds) may take longer than the time limit: a timeout is *slow*.
LONG_RUN_S = 100.0


def implausible(case: Case, s: dict[str, Any]) -> str | None:
    """The first implausible number of a summary, or None."""
    duration = case_duration(case)
    end = s["sim_time_s"]
    inv = s.get("invariants") or {}
    if not inv.get("ok") or inv.get("violations"):
        return f"invariants: {inv}"
    if inv["packets_created"] != inv["packets_consumed"] + inv["packets_dropped"] + inv["packets_in_flight"]:
        return f"packets not conserved: {inv}"
    if duration is not None and math.isfinite(duration) and end > duration * (1 + 1e-9) + 1e-9:
        return f"sim_time_s {end} > duration_s {duration}"
    for i, f in enumerate(s["flows"]):
        if f["goodput_bps"] > case.max_rate_bps * 1.0001:
            return f"flow {f['name']}: goodput {f['goodput_bps']} > the fastest link {case.max_rate_bps}"
        if f["bytes_delivered"] > f["segments_sent"] * f["mss_bytes"]:
            return f"flow {f['name']}: delivered {f['bytes_delivered']} > sent {f['segments_sent']} segments"
        if case.starts is not None and i < len(case.starts) and abs(f["start_s"] - case.starts[i]) > 1e-6:
            return f"flow {f['name']}: starts at {f['start_s']}, asked for {case.starts[i]}"
        t = f.get("completion_time_s")
        if t is not None and not (0 <= t <= end + 1e-9):
            return f"flow {f['name']}: completion {t} outside [0, {end}]"
    for q in s.get("queues", []):
        if q.get("utilization", 0) > 1.0001:
            return f"queue {q['name']}: utilization {q['utilization']}"
    for h in s.get("handovers", []):
        if not (0 <= h["start_s"] <= end + 1e-9) or (h.get("end_s") is not None and h["end_s"] > end + 1e-9):
            return f"handover at {h['start_s']}..{h.get('end_s')} outside the run"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--limit-mb", type=int, default=2048, help="address-space limit of the worker")
    ap.add_argument("--hosim", default=shutil.which("hosim") or "hosim")
    ap.add_argument("--pcap-share", type=float, default=0.0,
                    help="share of the graphs run by `hosim run --out DIR --pcap all --pcap-format pcap`, "
                    "whose files are checked (a separate mode: 0 by default)")
    ap.add_argument("--verbose", action="store_true", help="print every case's outcome on stderr")
    args = ap.parse_args()
    counts: Counter[tuple[str, str]] = Counter()
    peaks: dict[tuple[str, str], float] = defaultdict(float)
    failures: list[str] = []
    slow: list[str] = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hosim-fuzz-user-") as d:
        tmp = Path(d)
        worker = Worker(sys.executable, args.limit_mb, tmp / "worker.err")
        for i in range(args.start, args.start + args.count):
            case = make_case(args.seed, i, tmp)
            if case.text and random.Random(args.seed * 31 + i).random() < args.pcap_share:
                case.mode = "pcap"
            if case.mode == "py":
                o = worker.run(case, args.timeout)
            else:
                o = run_cli(case, tmp, args.hosim, args.timeout)
            if o.cls == "ok" and o.summary is not None:
                why = implausible(case, o.summary)
                if why:
                    o = Outcome("fail", f"implausible: {why}", o.peak_mb)
            if o.cls == "input" and not error_line_ok(o.detail):
                o = Outcome("fail", f"input error not one line naming a key: {o.detail!r}", o.peak_mb)
            if o.cls == "timeout":
                d = case_duration(case)
                if d is not None and d >= LONG_RUN_S:
                    o = Outcome("slow", f"duration_s = {d:g}: {o.detail}", o.peak_mb)
                else:
                    o = Outcome("fail", f"a run of duration_s = {d} not done: {o.detail}", o.peak_mb)
            if o.cls in ("ok", "input") and o.peak_mb > memory_bound_mb(case):
                o = Outcome("fail", f"peak {o.peak_mb:.0f} MB > bound {memory_bound_mb(case):.0f} MB", o.peak_mb)
            counts[(case.mode, o.cls)] += 1
            peaks[(case.mode, o.cls)] = max(peaks[(case.mode, o.cls)], o.peak_mb)
            what = f"case {i} [{case.mode} {case.label} sets={case.sets}]"
            if args.verbose:
                print(f"{o.cls} {o.peak_mb:.0f} MB {what}: {o.detail[:160]}", file=sys.stderr, flush=True)
            if o.cls == "fail":
                failures.append(f"{what}: {o.detail}")
                print(f"FAIL {what}: {o.detail}", file=sys.stderr, flush=True)
            elif o.cls == "slow":
                slow.append(f"{what}: {o.detail}")
        worker.stop()
    print(f"{args.count} cases (seed {args.seed}, from {args.start}) in {time.monotonic() - t0:.0f} s")
    print("| mode | class | cases | largest peak RSS (MB) |\n|---|---|---|---|")
    for (mode, cls), n in sorted(counts.items()):
        print(f"| {mode} | {cls} | {n} | {peaks[(mode, cls)]:.0f} |")
    for s in slow:
        print(f"slow: {s}")
    for f in failures:
        print(f"failure: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
