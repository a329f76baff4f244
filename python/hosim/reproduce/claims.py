"""The paper's claims a reproduction checks, each with the rule that gives its verdict.

One rule serves both places a verdict appears: the "Claims and verdicts" table of the paper's
document in ``docs/reproductions/`` (computed from the committed numbers; a test keeps the
table equal to what the rules give) and the report.md of every ``hosim reproduce PAPER`` run
(computed from that run's numbers). A claim names the numbers it rests on (``Cell``: the
paper's value and hosim's, read from the data the reproduction writes to ``data/``: a JSON
object, or a list of rows)
and a ``Tolerance``; its verdict is

- **reproduced** when every cell is within the tolerance of the paper's value,
- **not reproduced** when none is,
- **partly** otherwise,

with a one-line reason (how many cells agree) and, when some cell is beyond the tolerance, a
one-line remark naming the largest difference: the "surprising numbers" of a run. A cell whose
number hosim does not have (``None``: for example no transfer left when the handover came) is
left out and counted in the reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["HOLDS", "NOT", "PAPERS", "PARTLY", "REPRODUCED", "Cell", "Claim", "Judgement", "Tolerance", "doc_block",
           "fact", "refresh_doc", "refresh_file", "report_lines"]

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT = "not reproduced"

#: The markers around the generated table in a document.
BEGIN = "<!-- claims: generated from the committed data by hosim.reproduce.claims; do not edit -->"
END = "<!-- claims: end -->"


@dataclass(frozen=True)
class Tolerance:
    """A hosim number agrees with the paper's when they differ by at most ``abs`` (in the
    claim's unit) or by at most ``rel`` of the paper's value, whichever is larger."""

    abs: float = 0.0
    rel: float = 0.0

    def holds(self, paper: float, ours: float) -> bool:
        return abs(ours - paper) <= max(self.abs, self.rel * abs(paper)) + 1e-12

    def text(self, unit: str) -> str:
        parts = ([f"±{self.abs:g}{_unit(unit)}"] if self.abs else []) + ([f"±{self.rel:.0%}"] if self.rel else [])
        return " or ".join(parts) if parts else "exact"


@dataclass(frozen=True)
class Cell:
    """One number the claim rests on: where it is (``label``), the paper's and hosim's."""

    label: str
    paper: float
    ours: float | None


#: The unit of a claim made of ``fact`` cells.
HOLDS = "(1: holds, 0: not)"


def fact(label: str, holds: bool | None) -> Cell:
    """A statement of the paper that is not a number (an ordering, "the most frequent"),
    checked on hosim's numbers: the paper's 1 against hosim's 1 when it holds there, 0 when it
    does not, ``None`` when hosim has no number; compared exactly (``Tolerance()``), with the
    unit ``HOLDS``."""
    return Cell(label, 1.0, None if holds is None else float(holds))


@dataclass(frozen=True)
class Judgement:
    verdict: str
    reason: str
    remark: str | None  # the largest difference beyond the tolerance, if any


@dataclass(frozen=True)
class Claim:
    """A claim of the paper: its words, the unit of the numbers compared, the doc's section
    (an anchor of the paper's document), the cells read from the reproduction's data and the
    tolerance."""

    text: str
    unit: str
    section: str
    cells: Callable[[Any], Sequence[Cell]]
    tolerance: Tolerance

    def judge(self, data: Any) -> Judgement:
        cells = list(self.cells(data))
        known = [c for c in cells if c.ours is not None]
        within = [c for c in known if self.tolerance.holds(c.paper, c.ours)]  # type: ignore[arg-type]
        if known and len(within) == len(known):
            verdict = REPRODUCED
        elif not within:
            verdict = NOT
        else:
            verdict = PARTLY
        reason = f"{len(within)} of {len(known)} cells agree"
        if len(known) < len(cells):
            reason += f"; {len(cells) - len(known)} n/a (no number here)"
        beyond = [c for c in known if c not in within]
        remark = None
        if beyond:
            worst = max(beyond, key=lambda c: _distance(c.paper, c.ours))  # type: ignore[arg-type]
            u = _unit(self.unit)
            if self.unit == HOLDS:
                return Judgement(verdict, reason, f"{worst.label}: does not hold here; {len(beyond)} of "
                                 f"{len(known)} statements do not")
            remark = (f"{worst.label}: {_num(worst.ours)}{u} here, the paper's {_num(worst.paper)}{u} "  # type: ignore[arg-type]
                      f"({_ratio(worst.paper, worst.ours)}); {len(beyond)} of {len(known)} cells beyond "  # type: ignore[arg-type]
                      f"the tolerance ({self.tolerance.text(self.unit)})")
        return Judgement(verdict, reason, remark)


def _unit(unit: str) -> str:
    return f" {unit}" if unit else ""


def _distance(paper: float, ours: float) -> float:
    """How far apart, for picking the most surprising cell: a factor, symmetric."""
    if paper == ours:
        return 0.0
    low, high = sorted((abs(paper), abs(ours)))
    return math.inf if low == 0 else high / low


def _ratio(paper: float, ours: float) -> str:
    if paper == 0 or ours == 0:
        return f"{ours - paper:+g}"
    factor = ours / paper
    return f"{factor:.2g} times it" if factor >= 1 else f"1/{1 / factor:.2g} of it"


def _num(value: float) -> str:
    return f"{value:.3g}"


def _rows(claims: Sequence[Claim], data: Any, link: Callable[[Claim], str]) -> list[str]:
    lines = ["| claim (paper) | verdict | why | tolerance | analysis |", "|---|---|---|---|---|"]
    remarks = []
    for i, claim in enumerate(claims, 1):
        j = claim.judge(data)
        lines.append(f"| {i}. {claim.text} | **{j.verdict}** | {j.reason} | {claim.tolerance.text(claim.unit)} | "
                     f"{link(claim)} |")
        if j.remark:
            remarks.append(f"- Claim {i} differs from the paper: {j.remark}.")
    return lines + ([""] + remarks if remarks else [])


def doc_block(claims: Sequence[Claim], data: Any) -> str:
    """The table a paper's document carries, between ``BEGIN`` and ``END``: links to its own
    sections."""
    return "\n".join([BEGIN, "", *_rows(claims, data, lambda c: f"[§](#{c.section})"), "", END])


def report_lines(claims: Sequence[Claim], data: Any, doc: str) -> list[str]:
    """The "Claims and verdicts" part of report.md: the same rows, linked to the document
    ``doc`` (a file name in ``docs/reproductions/``)."""
    return ["## Claims and verdicts", "",
            f"Computed from this run's numbers by the rules of docs/reproductions/{doc} (verdict: every, "
            "some or none of the cells within the tolerance).", "",
            *_rows(claims, data, lambda c: f"[{doc}#{c.section}](docs/reproductions/{doc}#{c.section})"), ""]


def refresh_doc(text: str, claims: Sequence[Claim], data: Any) -> str:
    """``text`` (a paper's document) with its table between ``BEGIN`` and ``END`` replaced by
    the one the rules give for ``data``: after the committed numbers are regenerated,

        python -c 'from hosim.reproduce import claims; claims.refresh_file("inter-rat")'
    """
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + doc_block(claims, data) + text[end:]


#: Papers whose claims carry verdicts: (module under hosim.reproduce, document, committed data),
#: paths relative to docs/reproductions.
PAPERS = {"inter-rat": ("inter_rat", "inter-rat.md", "data/inter-rat.json"),
          "lte-x2": ("lte_x2", "lte-intra-handover.md", "data/lte-intra-handover.json"),
          "drop-or-forward": ("fcp", "drop-or-forward.md", "data/drop-or-forward-table-100M.json"),
          "vertical": ("vertical", "vertical-handoff.md", "data/vertical-handoff.json"),
          "hsdpa": ("hsdpa", "hsdpa-proxy.md", "figures/hsdpa-results.json")}


def refresh_file(paper: str, docs: str = "docs/reproductions") -> None:
    """Rewrites the claims table of ``paper``'s document from its committed numbers."""
    import importlib
    import json
    from pathlib import Path

    module, doc, data = PAPERS[paper]
    rules = importlib.import_module(f"hosim.reproduce.{module}").CLAIMS
    path = Path(docs) / doc
    numbers = json.loads((Path(docs) / data).read_text(encoding="utf-8"))
    path.write_text(refresh_doc(path.read_text(encoding="utf-8"), rules, numbers), encoding="utf-8")
