"""Build and install hosim's native core with profile-guided optimization (PGO).

    rustup component add llvm-tools     # once: llvm-profdata for the toolchain's own LLVM
    python3 tools/pgo_install.py

Optional. The plain ``pip install .`` stays the default. This tool re-installs the package from
this checkout, with no dependencies, in three steps (an editable install becomes a regular one).
Each step is a plain ``pip install`` with ``RUSTFLAGS`` set:

1. An instrumented build (``-Cprofile-generate``), into ``target/pgo-generate``.
2. A training run: every preset at its shipped settings, seed 1, without traces. It runs in a
   fresh process, which writes the profile when it exits. The training set is the presets as
   users get them, not the benchmarks of ``bench/``. It runs without traces because run time
   adds up in sweeps and campaigns, and those run without traces.
3. An optimized build (``-Cprofile-use``), into ``target/pgo-use``, installed over the first.

PGO changes only what the compiler inlines and how it lays out branches, never the arithmetic.
So the results stay the same. The tool checks this: after step 3 it runs one preset again and
compares the summary with the instrumented build's, apart from ``wall_time_s``. It exits 1 if
they differ. The measured gain is in bench/README.md (section "Profile-guided optimization").

Exit codes: 0 installed; 2 invalid input (an llvm-profdata that is not there); 1 a failed step.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent.parent

# The check: the first preset's summary without traces, apart from its wall time. Run after
# the optimized build, and at the end of the training run for the summary it must equal.
CHECK = """
import json, hosim
p = hosim.presets()[0]
print(json.dumps(dict(hosim.run(p.name, seed=1, traces=False).summary, wall_time_s=None), sort_keys=True))
"""

# One process trains on every preset once (hosim.presets(): the shipped scenarios at their
# defaults), without traces as sweeps run them: the others, then the first through the check,
# which prints its summary.
TRAIN = """
import hosim
for p in hosim.presets()[1:]:
    hosim.run(p.name, seed=1, traces=False)
""" + CHECK


# After a failure past the first build, the package installed is not the default one.
RESTORE = "to go back to the default build: python3 -m pip install --no-deps --force-reinstall ."


def fail(msg: str, code: int) -> int:
    print(f"pgo_install: {msg}", file=sys.stderr)
    return code


def default_profdata() -> Path:
    """llvm-profdata of the active Rust toolchain (``rustup component add llvm-tools``)."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout
    host = next(
        line.split(":", 1)[1].strip()
        for line in subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines()
        if line.startswith("host:")
    )
    return Path(sysroot.strip()) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"


def step(title: str, cmd: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    print(f"pgo_install: {title}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-15:]
        raise RuntimeError(f"{title} failed (exit {proc.returncode}):\n" + "\n".join(tail))
    print(f"pgo_install:   done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return proc


def install(python: str, rustflags: str, target_dir: Path, title: str) -> None:
    env = dict(os.environ)
    env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + " " + rustflags).strip()
    env["CARGO_TARGET_DIR"] = str(target_dir)
    step(title, [python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", "."], env)


class Parser(argparse.ArgumentParser):
    """Bad options get one line on stderr and exit 2 (argparse's own also prints the usage)."""

    def error(self, message: str) -> NoReturn:
        print(f"pgo_install: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def main() -> int:
    ap = Parser(description=__doc__.splitlines()[0],
                epilog="See the module docstring (python3 -m pydoc tools/pgo_install.py).")
    ap.add_argument("--llvm-profdata", type=Path, default=None,
                    help="llvm-profdata to merge the profiles with; it must come from the LLVM of the "
                         "rustc that builds (default: the active toolchain's, from rustup's llvm-tools)")
    ap.add_argument("--python", default=sys.executable,
                    help="Python whose environment gets the package (default: this one)")
    ap.add_argument("--keep-profile", type=Path, default=None, metavar="FILE",
                    help="also keep the merged profile (.profdata) here")
    args = ap.parse_args()

    try:
        profdata = args.llvm_profdata or default_profdata()
    except (OSError, subprocess.CalledProcessError, StopIteration):
        return fail("cannot ask rustc for its sysroot: install a Rust toolchain (rustup), or name llvm-profdata "
                    "with --llvm-profdata", 2)
    if not profdata.is_file():
        return fail(f"llvm-profdata not found at {profdata}: install it with `rustup component add llvm-tools` "
                    "or name it with --llvm-profdata", 2)
    target = ROOT / "target"
    with tempfile.TemporaryDirectory(prefix="hosim-pgo-") as tmp:
        raw = Path(tmp) / "raw"
        merged = Path(tmp) / "hosim.profdata"
        try:
            install(args.python, f"-Cprofile-generate={raw}", target / "pgo-generate",
                    "1/3 instrumented build (pip install, about a minute)")
            # Build scripts and proc macros of the build above wrote profiles too; only the
            # training run's count.
            shutil.rmtree(raw, ignore_errors=True)
            env = dict(os.environ, LLVM_PROFILE_FILE=str(raw / "hosim-%p-%m.profraw"))
            trained = step("2/3 training run: every preset, without traces", [args.python, "-c", TRAIN], env)
            profiles = sorted(raw.glob("*.profraw"))
            if not profiles:
                return fail(f"the training run wrote no profile into {raw}; {RESTORE}", 1)
            step("merging the profiles", [str(profdata), "merge", "-o", str(merged), *map(str, profiles)])
            install(args.python, f"-Cprofile-use={merged}", target / "pgo-use",
                    "3/3 optimized build (pip install, about a minute)")
            check = step("checking that the optimized build gives the same summary", [args.python, "-c", CHECK])
        except RuntimeError as e:
            return fail(f"{e}\n{RESTORE}", 1)
        want = json.loads(trained.stdout.strip().splitlines()[-1])
        got = json.loads(check.stdout.strip().splitlines()[-1])
        if got != want:
            return fail(f"the optimized build's summary differs from the instrumented build's; {RESTORE}", 1)
        if args.keep_profile is not None:
            shutil.copyfile(merged, args.keep_profile)
    # Each run names a new profile, so neither build directory can be reused: free the space.
    for d in ("pgo-generate", "pgo-use"):
        shutil.rmtree(target / d, ignore_errors=True)
    print("pgo_install: installed hosim with profile-guided optimization; summaries unchanged", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
