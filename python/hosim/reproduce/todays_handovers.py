"""Today's handovers, asked (issue 37, section 5): every handover scheme of the `cellular`
template, side by side in the same networks, under the papers' TCP (ns-2-era Reno, NewReno and
SACK: `tcp.profile = "ns2"` with that loss recovery) and under today's (`linux`).

Networks: `cellular` (the RAN engineer's: 3 cells, 10 UEs at 60 km/h, 25 s), the papers'
experiments written as `cellular` scenarios (`todays_networks`: `pacifico-x2`, Pacifico et
al.'s X2 network with one handover; `cohen-levin` and `cohen-levin-fast`, Cohen & Levin's
network with a handover every 50 or 5 RTTs; `inter-rat`, the 3GPP inter-RAT case) and
`highway` (7 cells, 20 UEs at 60-120 km/h, 60 s). For every (network, TCP, scheme) it runs
`--seeds` seeds (`--network-seeds NET=N` for one network) and reports the mean per-UE goodput,
timeouts and spurious timeouts per handover, and the handover outcome mix (`optimal` /
`halving` / `timeout` / `spurious-timeout`, from each handover's TCP window, pooled over the
seeds), with 95 % intervals (Student t over seeds
for means, Wilson for shares). It then reads the three questions off the numbers:

- Does DAPS remove the need for forwarding through the core? (`daps` against
  `forward-via-core` and `forward`)
- Does CHO do what handover prediction promised? (`cho` against `predicted` and `forward`)
- Does drop ever beat forward with today's TCP? (`drop` against `forward` under `linux`)

    hosim reproduce todays-handovers --network-seeds highway=3 --out docs/reproductions
    hosim reproduce todays-handovers --quick        # 2 seeds, `cellular` only
    hosim reproduce todays-handovers --network cohen-levin --seeds 5

docs/reproductions/todays-handovers.md discusses the committed numbers.
"""
from __future__ import annotations

import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from hosim.cli.options import runner_from_options, runner_options
from hosim.reproduce.common import change_options, out_options, preset_task
from hosim.runner import Runner, Task
from hosim.stats import ci95_half_width
from hosim.stats import wilson95 as wilson

SCHEMES = ("drop", "forward", "forward-via-core", "rearrange", "fast-path-switch", "predicted", "bicast", "daps",
           "cho")
#: TCP variants: label -> overrides. The ns-2 era: profile `ns2` with its loss recovery.
TCPS: dict[str, dict[str, Any]] = {
    "ns2 Reno": {"tcp.profile": "ns2", "tcp.recovery": "reno"},
    "ns2 NewReno": {"tcp.profile": "ns2", "tcp.recovery": "newreno"},
    "ns2 SACK": {"tcp.profile": "ns2", "tcp.recovery": "sack"},
    "linux": {"tcp.profile": "linux"},
}
#: The RAN engineer's network, the papers' experiments as `cellular` scenarios
#: (`todays_networks`), and the highway.
NETWORKS = ("cellular", "pacifico-x2", "cohen-levin", "cohen-levin-fast", "inter-rat", "highway")
OUTCOMES = ("optimal", "halving", "timeout", "spurious-timeout")


def reduce_run(summary: dict[str, Any]) -> dict[str, Any]:
    """Per-UE goodput, TCP events per handover and the outcomes of one run."""
    flows = summary["flows"]
    hos = summary["handovers"]
    n = max(len(hos), 1)
    outcomes = [h["outcome"] for h in hos if h.get("outcome")]
    return {
        "goodput_mbps": statistics.fmean(f["goodput_bps"] for f in flows) / 1e6,
        "timeouts_per_ho": sum(f["timeouts"] for f in flows) / n,
        "spurious_per_ho": sum(f["spurious_timeouts"] for f in flows) / n,
        "retransmits_per_ho": sum(f["retransmits"] for f in flows) / n,
        "dropped_per_ho": sum(h["dropped_packets"] for h in hos) / n,
        "forwarded_per_ho": sum(h["forwarded_packets"] + h["forwarded_copies"] for h in hos) / n,
        "handovers": len(hos),
        "outcomes": {o: outcomes.count(o) for o in OUTCOMES},
        "closed": len(outcomes),
    }


def aggregate(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means with their 95 % half-widths over the seeds; outcome shares with Wilson intervals."""
    out: dict[str, Any] = {"seeds": len(runs), "handovers": sum(r["handovers"] for r in runs)}
    for key in ("goodput_mbps", "timeouts_per_ho", "spurious_per_ho", "retransmits_per_ho", "dropped_per_ho",
                "forwarded_per_ho"):
        values = [r[key] for r in runs]
        out[key] = statistics.fmean(values)
        out[f"{key}_ci"] = ci95_half_width(values) if len(values) > 1 else None
    closed = sum(r["closed"] for r in runs)
    for o in OUTCOMES:
        k = sum(r["outcomes"][o] for r in runs)
        lo, hi = wilson(k, closed) if closed else (0.0, 0.0)
        out[f"share_{o}"] = k / closed if closed else None
        out[f"share_{o}_ci"] = [lo, hi]
    return out


def network_task(net: str, seed: int, overrides: dict[str, Any]) -> Task:
    """A run of network `net`: a preset, or one of `todays_networks.NETWORK_TEXTS`."""
    from hosim.reproduce.common import with_profile
    from hosim.reproduce.todays_networks import NETWORK_TEXTS
    from hosim.scenario import override_pairs

    text = NETWORK_TEXTS.get(net)
    if text is None:
        return preset_task(net, seed, overrides)
    return Task(text, seed, tuple(override_pairs(with_profile(dict(overrides)))), net)


def simulate(runner: Runner, networks: Sequence[str], seeds: int | Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """Every (network, TCP, scheme) over its network's seeds (`seeds`, or `seeds[network]`);
    keyed "network|tcp|scheme"."""
    per_net = {net: seeds if isinstance(seeds, int) else seeds[net] for net in networks}
    specs = [(net, tcp, scheme) for net in networks for tcp in TCPS for scheme in SCHEMES]
    tasks = [network_task(net, seed, {**TCPS[tcp], "cellular.scheme": scheme})
             for net, tcp, scheme in specs for seed in range(1, per_net[net] + 1)]
    summaries = iter(runner.summaries(tasks))
    points = {}
    for net, tcp, scheme in specs:
        runs = [reduce_run(next(summaries)) for _ in range(per_net[net])]
        points[f"{net}|{tcp}|{scheme}"] = aggregate(runs)
    return points


def _pm(mean: float | None, half: float | None, digits: int = 2) -> str:
    if mean is None:
        return "–"
    return f"{mean:.{digits}f}" if half is None else f"{mean:.{digits}f} ± {half:.{digits}f}"


def _share(p: dict[str, Any], o: str) -> str:
    s = p[f"share_{o}"]
    if s is None:
        return "–"
    lo, hi = p[f"share_{o}_ci"]
    return f"{100 * s:.0f} % ({100 * lo:.0f}-{100 * hi:.0f})"


def table(points: dict[str, dict[str, Any]], net: str, tcp: str) -> str:
    lines = ["| scheme | goodput per UE (Mb/s) | timeouts / HO | spurious / HO | dropped / HO | forwarded / HO "
             "| optimal | halving | timeout | spurious timeout |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for scheme in SCHEMES:
        p = points.get(f"{net}|{tcp}|{scheme}")
        if p is None:
            continue
        lines.append(f"| {scheme} | {_pm(p['goodput_mbps'], p['goodput_mbps_ci'])} "
                     f"| {_pm(p['timeouts_per_ho'], p['timeouts_per_ho_ci'], 3)} "
                     f"| {_pm(p['spurious_per_ho'], p['spurious_per_ho_ci'], 3)} "
                     f"| {_pm(p['dropped_per_ho'], p['dropped_per_ho_ci'], 0)} "
                     f"| {_pm(p['forwarded_per_ho'], p['forwarded_per_ho_ci'], 0)} "
                     + " ".join(f"| {_share(p, o)}" for o in OUTCOMES) + " |")
    return "\n".join(lines)


def _diff(points: dict[str, dict[str, Any]], a: str, b: str) -> tuple[float, float]:
    """Goodput of `a` minus `b` and the half-width of the difference (intervals combined as
    independent: the square root of the sum of squares)."""
    pa, pb = points[a], points[b]
    ha, hb = pa["goodput_mbps_ci"] or 0.0, pb["goodput_mbps_ci"] or 0.0
    return pa["goodput_mbps"] - pb["goodput_mbps"], (ha ** 2 + hb ** 2) ** 0.5


def questions(points: dict[str, dict[str, Any]], networks: Sequence[str]) -> list[dict[str, Any]]:
    """Goodput differences for the three questions, per network and TCP, with a verdict each:
    "higher", "lower" or "no difference" (the interval of the difference holds 0)."""
    rows = []
    pairs = [("DAPS vs forwarding through the core", "daps", "forward-via-core"),
             ("DAPS vs X2 forwarding", "daps", "forward"),
             ("CHO vs predicted path switch", "cho", "predicted"),
             ("CHO vs X2 forwarding", "cho", "forward"),
             ("drop vs forward", "drop", "forward")]
    for net in networks:
        for tcp in TCPS:
            for question, a, b in pairs:
                d, h = _diff(points, f"{net}|{tcp}|{a}", f"{net}|{tcp}|{b}")
                verdict = "no difference" if abs(d) <= h else ("higher" if d > 0 else "lower")
                rows.append({"network": net, "tcp": tcp, "question": question, "diff_mbps": d, "ci": h,
                             "verdict": verdict})
    return rows


def questions_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| network | TCP | comparison | goodput difference per UE (Mb/s) | verdict |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['network']} | {r['tcp']} | {r['question']} | {r['diff_mbps']:+.2f} ± {r['ci']:.2f} "
                     f"| {r['verdict']} |")
    return "\n".join(lines)


@click.command("todays-handovers", short_help="Every handover scheme in one network, old and new TCP.")
@out_options("todays-handovers")
@click.option("--seeds", type=click.IntRange(2, 100), default=20, show_default=True, help="Seeds per point.")
@click.option("--network-seeds", "net_seeds", multiple=True, metavar="NETWORK=N",
              help="Seeds per point for one network instead of --seeds (repeatable), e.g. highway=5.")
@click.option("--quick", is_flag=True, help="2 seeds, the `cellular` network only.")
@click.option("--network", "only", multiple=True, type=click.Choice(NETWORKS),
              help="Run only this network (repeatable); default all.")
@change_options
@runner_options(default_jobs=2)
def cli(out: Path | None, force: bool, seeds: int, net_seeds: tuple[str, ...], quick: bool, only: tuple[str, ...],
        jobs: int, cluster: str | None, cache_dir: Path | None, no_cache: bool) -> None:
    """Every handover scheme of the `cellular` template (drop, forward, forward-via-core,
    rearrange, fast-path-switch, predicted, bicast, DAPS, CHO) on the RAN engineer's network,
    the papers' experiments written as `cellular` scenarios (Pacifico et al.'s X2 network,
    Cohen & Levin's at two handover rates, the 3GPP inter-RAT case) and the highway, under
    ns-2-era Reno / NewReno / SACK and `linux`, with 95 % intervals; and the three questions of
    issue 37."""
    from hosim.cli.invocation import command_line
    from hosim.reproduce.common import finish, prepare, write_json, write_report

    out = prepare("todays-handovers", out, force)
    networks = ("cellular",) if quick else (tuple(only) or NETWORKS)
    seeds = 2 if quick else seeds
    per_net = {net: seeds for net in networks}
    for item in net_seeds:
        net, _, n = item.partition("=")
        if net not in per_net or not n.isdigit() or not 2 <= int(n) <= 100:
            raise click.BadParameter(f"{item!r}: give NETWORK=N with a network of this run and 2 <= N <= 100",
                                     param_hint="--network-seeds")
        per_net[net] = int(n)
    with runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
        points = simulate(runner, networks, per_net)
    rows = questions(points, networks)
    path = write_json(out / "data" / "todays-handovers.json",
                      {"seeds": per_net, "networks": list(networks), "points": points, "questions": rows},
                      indent=1, sort_keys=True)
    click.echo(f"wrote {path}")
    sections: list[tuple[str, str, list[Path]]] = [("The three questions", questions_table(rows), [])]
    for net in networks:
        for tcp in TCPS:
            sections.append((f"{net}, {tcp}", table(points, net, tcp), []))
    for heading, text, _ in sections:
        click.echo(f"\n## {heading}\n\n{text}")
    seed_text = ", ".join(f"{net} 1-{n}" for net, n in per_net.items())
    write_report(out, "Today's handovers: every scheme in one network",
                 "Goodput is the mean over UEs of each run, then over seeds (± the 95 % interval); "
                 "outcome shares pool the handovers of all seeds (Wilson 95 % interval). The analysis "
                 "is in docs/reproductions/todays-handovers.md.", sections, seeds=seed_text)
    finish("todays-handovers", out, max(per_net.values()), command_line())


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m hosim.reproduce.todays_handovers [OPTIONS]`: `hosim reproduce todays-handovers`."""
    from hosim.cli import main as hosim_main

    return hosim_main(["reproduce", "todays-handovers", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
