"""A user-level fuzzer of `hosim run --out`: output directories and signals.

Each case runs `hosim run` (the installed console script, or ``python -m hosim.cli``) into one
kind of directory, with or without packet capture and traces, and sends SIGINT or SIGTERM at a
random moment (or none). It checks:

- the exit class: 0, 2 or 130 (never 1, never death by a signal, never a hang);
- stderr: at most one error line (``hosim: error: ...``; warnings aside), no traceback;
- the directory afterwards: either byte for byte as before (hidden files included: no staging
  directory, ``.partial`` file or lock left behind), or the complete output of this run (a
  manifest naming exactly the files beside it, each readable: summary.json parses, every
  Parquet file's footer reads, every capture starts with its magic number);
- and that the state fits the exit code: 0 → complete, 2 → as before, 130 → as before or, for
  a signal that came once the files were in place, complete.

Signals that land before any code of hosim runs are counted apart, as classes of their own:
"python start-up" (Python died of it or reported it before hosim's entry ran; the directory
must be as before) and "signal lost in python start-up" (CPython took it inside its import
system's module-lock callback, reported it as "Exception ignored" and went on; the run's exit
and directory are then checked as for any case, with that report taken out of stderr).

Kinds of directory: ``fresh`` (does not exist), ``used`` (an earlier run of the same
scenario), ``foreign`` (holds another program's file: refused without ``--force``),
``readonly`` (an earlier run on a file system remounted read-only) and ``full`` (an earlier
run on a 1 MB tmpfs that the new run fills). ``readonly`` and ``full`` need root (mount); as
another user they are left out, and the table says so.

    sudo python bench/fuzz_outdir.py --count 300 --seed 1

Prints a table of cases per (directory, signal, exit code) and every failure; exits 1 if any
case failed. docs/reliability.md, "Output directories and signals", has a run's table.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

KINDS = ("fresh", "used", "foreign", "readonly", "full")
SIGNALS = ("none", "SIGINT", "SIGTERM")
PCAP_MAGIC = (b"\x0a\x0d\x0d\x0a", b"\xd4\xc3\xb2\xa1")


def hosim_command(given: str | None = None) -> list[str]:
    if given:
        return [given]
    script = shutil.which("hosim", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "hosim.cli"]


def snapshot(directory: Path) -> dict[str, str] | None:
    """Every entry under ``directory`` with a hash of its bytes (``None``: no directory)."""
    if not directory.is_dir():
        return None
    state = {}
    for path in sorted(directory.rglob("*")):
        rel = str(path.relative_to(directory))
        state[rel] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return state


def complete_output(directory: Path, foreign: set[str]) -> str | None:
    """``None`` if ``directory`` holds one complete `hosim run` output (plus ``foreign``
    files), else what is wrong."""
    try:
        manifest = json.loads((directory / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        return f"no readable manifest: {exc}"
    files = set(manifest.get("files", []))
    present = {p.name for p in directory.iterdir()}
    extra = present - files - {"manifest.json"} - foreign
    missing = files - present
    if extra or missing:
        return f"files beside the manifest: extra {sorted(extra)}, missing {sorted(missing)}"
    try:
        json.loads((directory / "summary.json").read_text())
    except (OSError, ValueError) as exc:
        return f"summary.json: {exc}"
    import pyarrow.parquet as pq

    for name in files:
        path = directory / name
        try:
            if name.endswith(".parquet"):
                pq.read_metadata(path)
            elif name.endswith((".pcap", ".pcapng")) and path.read_bytes()[:4] not in PCAP_MAGIC:
                return f"{name}: not a capture"
        except Exception as exc:  # noqa: BLE001 - any unreadable file is the finding
            return f"{name}: unreadable: {exc}"
    return None


@contextlib.contextmanager
def tmpfs(path: Path, options: str) -> Iterator[Path]:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "hosim-fuzz", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


class Case:
    def __init__(self, rng: random.Random, kinds: list[str]):
        self.kind = rng.choice(kinds)
        self.signal = rng.choice(SIGNALS)
        self.delay = rng.uniform(0.0, 2.5)
        # Interrupted runs may be long (the signal bounds them); the others are kept short.
        self.duration = rng.choice([0.1, 5.0, 60.0, 600.0] if self.signal != "none" else [0.1, 1.0, 5.0])
        self.pcap = rng.random() < 0.5 or self.kind == "full"
        self.no_traces = rng.random() < 0.3
        self.force = self.kind == "foreign" and rng.random() < 0.5

    def args(self, out: Path) -> list[str]:
        args = ["run", "dumbbell", "--set", f"duration_s={self.duration}", "--json", "--out", str(out)]
        if self.pcap:
            args += ["--pcap", "all"]
        if self.no_traces:
            args.append("--no-traces")
        if self.force:
            args.append("--force")
        return args

    def __str__(self) -> str:
        extra = " --pcap all" * self.pcap + " --no-traces" * self.no_traces + " --force" * self.force
        when = f" at {self.delay:.2f} s" if self.signal != "none" else ""
        return f"{self.kind}: duration_s={self.duration}{extra}, {self.signal}{when}"


def earlier_run(hosim: list[str], out: Path, template: Path) -> None:
    """Puts an earlier run's output at ``out``: a copy of ``template``, made once by `hosim run`
    (the same bytes a run of its own would write: runs are deterministic; copying saves a
    process start per case, half of a case's time)."""
    if not template.is_dir():
        done = subprocess.run([*hosim, "run", "dumbbell", "--set", "duration_s=0.1", "--json", "--out",
                               str(template)], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise SystemExit(f"setting up {template}: {done.stderr.strip()}")
    shutil.copytree(template, out)


def run_case(case: Case, hosim: list[str], work: Path, full_fs: Path | None, timeout: float) -> tuple[str, str | None]:
    """Runs ``case``; returns its exit class (``outcome``) and what failed (``None``: nothing)."""
    foreign: set[str] = set()
    remount: Path | None = None
    if case.kind == "fresh":
        out = work / "fresh" / "out"
    elif case.kind == "used":
        out = work / "used"
        earlier_run(hosim, out, work / "template")
    elif case.kind == "foreign":
        out = work / "foreign"
        out.mkdir()
        (out / "notes.txt").write_text("not hosim's\n")
        foreign = {"notes.txt"}
    elif case.kind == "readonly":
        remount = work / "ro"
        out = remount / "run"
    else:
        assert full_fs is not None
        out = full_fs / "run"
        earlier_run(hosim, out, work / "template")
    with contextlib.ExitStack() as stack:
        if remount is not None:
            stack.enter_context(tmpfs(remount, "size=4m"))
            earlier_run(hosim, out, work / "template")
            subprocess.run(["mount", "-o", "remount,ro", str(remount)], check=True)
        before = snapshot(out)
        proc = subprocess.Popen([*hosim, *case.args(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        if case.signal != "none":
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(case.delay)
            if proc.poll() is None:
                proc.send_signal(getattr(signal, case.signal))
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return "hang", f"no exit within {timeout} s"
        code = proc.returncode
        after = snapshot(out)
        problem = check(code, err, before, after, out, foreign)
    if case.kind in ("full",):
        shutil.rmtree(out, ignore_errors=True)
    for name in ("fresh", "used", "foreign"):
        shutil.rmtree(work / name, ignore_errors=True)
    if problem is not None and err.strip():
        # The whole stderr of a failing case (the problem line keeps only its end).
        print(f"--- stderr of the case ({case}):\n{err.rstrip()}\n---", file=sys.stderr, flush=True)
    return outcome(code, err), problem


#: Outcomes outside hosim's reach: the signal arrived while Python itself was starting, before
#: any code of hosim ran (``site``, the environment's ``.pth`` files, the console script's
#: lines before ``main`` while the import system still looks for ``_hosim_entry``), or while
#: it was exiting, after hosim's last line ran.
STARTUP = "python start-up"
KILLED = "signal's default action"
#: A SIGINT that CPython took inside its import system's module-lock callback while it loaded
#: the console script's modules, before `_hosim_entry`'s first statement (so before hosim's
#: unraisable hook exists): Python prints "Exception ignored in: <function
#: _get_module_lock.<locals>.cb ...>" with frozen frames only, and goes on as if the signal had
#: not come. The run's own exit and directory are then checked as for any case.
LOST = "signal lost in python start-up"


#: How CPython reports a KeyboardInterrupt it then ignores, before hosim runs: inside the import
#: system's module-lock callback, or while it asks whether the console script is a zip archive
#: (Modules/main.c, `pymain_get_importer`: it prints the error and runs the script all the same).
_LOST_STARTS = ("Exception ignored in: <function _get_module_lock",
                "Failed checking if argv[0] is an import path entry")


def lost_in_start_up(err: str) -> str | None:
    """``err`` without CPython's report of a KeyboardInterrupt it ignored in the import system
    before hosim ran, or ``None`` if ``err`` holds no such report.

    The report is the block from its first line (``_LOST_STARTS``) to its "KeyboardInterrupt" line; every
    frame in it must be the frozen import system's (a frame of hosim's code would mean hosim's
    own hook missed it: that stays a failure)."""
    lines = err.splitlines(keepends=True)
    for start, line in enumerate(lines):
        if not line.startswith(_LOST_STARTS):
            continue
        for end in range(start + 1, len(lines)):
            if lines[end].startswith("KeyboardInterrupt"):
                frames = [f for f in lines[start + 1:end] if f.strip().startswith("File ")]
                if frames and all('File "<frozen ' in f for f in frames):
                    return "".join(lines[:start] + lines[end + 1:])
                return None
        return None
    return None


def before_hosim(err: str) -> bool:
    """A KeyboardInterrupt that Python reports before any line of hosim has run."""
    if "Fatal Python error" in err or err.strip() == "KeyboardInterrupt":
        return True  # during Python's initialisation (``site``, the standard streams)
    frames = [line.strip() for line in err.splitlines() if line.strip().startswith("File ")]
    # Only the console script itself and the frozen import system: `_hosim_entry` not yet run.
    return (err.strip().endswith("KeyboardInterrupt") and bool(frames)
            and all("<frozen " in f or not ("hosim/" in f or "_hosim_entry/" in f) for f in frames))


def outcome(code: int, err: str) -> str:
    """The exit class of a case: its code, ``STARTUP``, ``LOST`` or ``KILLED``."""
    if lost_in_start_up(err) is not None:
        return LOST
    if code in (-signal.SIGINT, -signal.SIGTERM) and not err.strip():
        return KILLED  # before Python installed its handlers, or after it restored them at exit
    if code in (1, -signal.SIGINT) and before_hosim(err):
        return STARTUP
    return str(code)


def check(code: int, err: str, before: dict[str, str] | None, after: dict[str, str] | None, out: Path,
          foreign: set[str]) -> str | None:
    kind = outcome(code, err)
    if kind == LOST:
        rest = lost_in_start_up(err)
        assert rest is not None
        if outcome(code, rest) == LOST:
            return "two signals lost in Python's start-up"
        return check(code, rest, before, after, out, foreign)
    if kind == STARTUP:
        return None if after == before else f"exit {code} during start-up and the directory changed"
    if kind == KILLED:
        if after == before or (after is not None and complete_output(out, foreign) is None):
            return None
        return f"exit {code} (killed by the signal) and the directory neither as before nor complete"
    if code not in (0, 2, 130):
        return f"exit {code}: {err.strip()[-300:]}"
    if "Traceback" in err:
        return f"a traceback: {err.strip()[-300:]}"
    errors = [line for line in err.splitlines() if line.strip() and not line.startswith("hosim: warning:")]
    if len(errors) > (0 if code == 0 else 1):
        return f"{len(errors)} error lines: {errors}"
    if code == 0:
        if after is None:
            return "exit 0 and no directory"
        return complete_output(out, foreign)
    if code == 130 and after is not None and after != before and complete_output(out, foreign) is None:
        return None  # Ctrl-C once the run's files were in place (printing the tables): complete
    if after != before:
        changed = sorted(set(after or {}) ^ set(before or {}) | {k for k in (after or {}) if
                                                                 (before or {}).get(k) not in (None, (after or {})[k])})
        return f"exit {code} and the directory changed: {changed[:6]}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--hosim", default=None,
                        help="the hosim command to run (default: the console script beside this Python)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="start no case after this many seconds (the table covers the cases run)")
    options = parser.parse_args()
    # Killed (SIGTERM): unmount the file systems and remove the work directory all the same.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    kinds = list(KINDS) if root else ["fresh", "used", "foreign"]
    hosim = hosim_command(options.hosim)
    rng = random.Random(options.seed)
    table: collections.Counter[tuple[str, str, str]] = collections.Counter()
    failures = []
    started = time.monotonic()
    interrupted = False
    with tempfile.TemporaryDirectory(prefix="hosim-fuzz-outdir-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        with contextlib.ExitStack() as stack:
            full_fs = stack.enter_context(tmpfs(work / "full", "size=1m")) if root else None
            try:
                for index in range(options.count):
                    if options.time_limit is not None and time.monotonic() - started > options.time_limit:
                        break
                    case = Case(rng, kinds)
                    code, problem = run_case(case, hosim, work, full_fs, options.timeout)
                    table[(case.kind, case.signal, code)] += 1
                    if problem is not None:
                        failures.append(f"case {index} ({case}): {problem}")
                        print(failures[-1], file=sys.stderr, flush=True)
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the table of the cases that finished
                interrupted = True
    took = time.monotonic() - started
    ran = sum(table.values())
    print(f"{ran} cases (seed {options.seed}{'' if ran == options.count else f', of {options.count} asked'})"
          f" in {took:.0f} s; directories: {', '.join(kinds)}"
          + ("" if root else " (readonly and full need root)"))
    print("| directory | signal | exit | cases |")
    print("|---|---|---|---|")
    for (kind, sig, code), n in sorted(table.items()):
        print(f"| {kind} | {sig} | {code} | {n} |")
    print(f"failures: {len(failures)}")
    for failure in failures:
        print(f"- {failure}")
    if interrupted:
        print("interrupted: the table covers the cases that finished")
        return 130
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
