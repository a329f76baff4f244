"""report.md's verdicts (issue 38): each paper claim gets a verdict from the numbers by the rule
the paper's document shows, a one-line reason, a link to the document's section, and a remark
when its numbers differ from the paper's beyond the tolerance."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hosim.reproduce import claims, fcp, hsdpa, inter_rat, lte_x2, vertical
from hosim.reproduce.claims import NOT, PARTLY, REPRODUCED, Cell, Claim, Tolerance

DOCS = Path(__file__).resolve().parents[1] / "docs" / "reproductions"

#: Every reproduction that declares its claims: (module's CLAIMS, document, committed data).
PAPERS = [(inter_rat.CLAIMS, "inter-rat.md", "data/inter-rat.json"),
          (lte_x2.CLAIMS, "lte-intra-handover.md", "data/lte-intra-handover.json"),
          (fcp.CLAIMS, "drop-or-forward.md", "data/drop-or-forward-table-100M.json"),
          (vertical.CLAIMS, "vertical-handoff.md", "data/vertical-handoff.json"),
          (hsdpa.CLAIMS, "hsdpa-proxy.md", "figures/hsdpa-results.json")]


def test_every_paper_with_claims_is_listed_for_refreshing():
    assert sorted(doc for _, doc, _ in claims.PAPERS.values()) == sorted(doc for _, doc, _ in PAPERS)


TIMES = Tolerance(rel=0.3)


def _claim(cells: list[Cell], tolerance: Tolerance = TIMES) -> Claim:
    return Claim("the paper says so", "s", "somewhere", lambda data: cells, tolerance)


def test_every_cell_within_the_tolerance_is_reproduced_without_a_remark():
    j = _claim([Cell("a", 1.0, 1.2), Cell("b", 2.0, 1.5)]).judge({})
    assert (j.verdict, j.reason, j.remark) == (REPRODUCED, "2 of 2 cells agree", None)


def test_some_cells_beyond_the_tolerance_are_partly_and_the_largest_difference_is_remarked():
    j = _claim([Cell("a", 1.0, 1.2), Cell("b", 9.3, 0.15), Cell("c", 2.0, 5.0)]).judge({})
    assert j.verdict == PARTLY and j.reason == "1 of 3 cells agree"
    assert j.remark == "b: 0.15 s here, the paper's 9.3 s (1/62 of it); 2 of 3 cells beyond the tolerance (±30%)"


def test_no_cell_within_the_tolerance_is_not_reproduced_and_cells_without_a_number_are_left_out():
    j = _claim([Cell("a", 0.0, 1.0), Cell("b", 26.0, None)], Tolerance()).judge({})
    assert j.verdict == NOT and j.reason == "0 of 1 cells agree; 1 n/a (no number here)"
    assert j.remark is not None and j.remark.startswith("a: 1 s here, the paper's 0 s (+1)")


def test_an_absolute_or_a_relative_difference_is_enough_to_agree():
    counts = Tolerance(abs=1, rel=0.2)
    assert counts.holds(0, 1) and counts.holds(41, 33) and not counts.holds(41, 32) and not counts.holds(2, 0)


@pytest.mark.parametrize(("rules", "doc", "data"), PAPERS)
def test_the_documents_verdicts_are_what_the_rules_give_on_the_committed_numbers(rules, doc, data):
    text = (DOCS / doc).read_text(encoding="utf-8")
    committed = json.loads((DOCS / data).read_text(encoding="utf-8"))
    assert claims.doc_block(rules, committed) in text, (
        f"{doc}: its claims table is not what the rules give on {data}; refresh it with "
        "hosim.reproduce.claims.refresh_file (its docstring)")
    assert claims.refresh_doc(text, rules, committed) == text


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a document's headings."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.*)$", markdown, flags=re.M)}


@pytest.mark.parametrize(("rules", "doc", "data"), PAPERS)
def test_report_verdicts_link_to_sections_the_document_has(rules, doc, data):
    committed = json.loads((DOCS / data).read_text(encoding="utf-8"))
    lines = claims.report_lines(rules, committed, doc)
    rows = [line for line in lines if re.match(r"\| \d+\. ", line)]
    assert len(rows) == len(rules)
    anchors = _anchors((DOCS / doc).read_text(encoding="utf-8"))
    for row in rows:
        verdict, reason, link = (row.split(" | ")[i] for i in (1, 2, 4))
        assert verdict in (f"**{REPRODUCED}**", f"**{PARTLY}**", f"**{NOT}**") and "cells agree" in reason
        target = re.search(rf"\(docs/reproductions/{re.escape(doc)}#([\w-]+)\)", link)
        assert target and target.group(1) in anchors, link


def test_the_report_puts_the_claims_after_what_was_run(tmp_path):
    from hosim.reproduce.common import write_report

    committed = json.loads((DOCS / "data/inter-rat.json").read_text(encoding="utf-8"))
    path = write_report(tmp_path, "T", "intro", [("S", "| t |", [])], seeds="1",
                        claims=claims.report_lines(inter_rat.CLAIMS, committed, "inter-rat.md"))
    report = path.read_text()
    assert report.index("**What was run.**") < report.index("## Claims and verdicts") < report.index("## S")
    # The stall (App. B) is the doc's one large gap: the report says so, with the numbers.
    assert "| 6. Bicasting with S1 = 155 Mb/s converges only after a stall" in report
    assert "- Claim 6 differs from the paper: 1->100, 10 ms, S1 155M, bicasting: 0.105 s here, the paper's 9.81 s" \
        in report


@pytest.mark.parametrize(("rules", "doc", "data"), PAPERS)
def test_the_report_and_the_document_give_the_same_verdicts(rules, doc, data):
    committed = json.loads((DOCS / data).read_text(encoding="utf-8"))
    text = (DOCS / doc).read_text(encoding="utf-8")

    def verdicts(lines):
        return [row.split(" | ")[:4] for row in lines if re.match(r"\| \d+\. ", row)]

    report = verdicts(claims.report_lines(rules, committed, doc))
    assert report and report == verdicts(text.splitlines())


@pytest.mark.parametrize(("rules", "doc", "data"), PAPERS)
def test_a_verdict_changed_by_hand_in_the_document_is_caught(rules, doc, data):
    committed = json.loads((DOCS / data).read_text(encoding="utf-8"))
    text = (DOCS / doc).read_text(encoding="utf-8")
    verdict = re.search(r"\| \*\*(reproduced|partly|not reproduced)\*\* \|", text)
    assert verdict is not None
    other = "partly" if verdict.group(1) != "partly" else "reproduced"
    edited = text[:verdict.start()] + f"| **{other}** |" + text[verdict.end():]
    assert claims.doc_block(rules, committed) not in edited
    assert claims.refresh_doc(edited, rules, committed) == text


def test_hsdpa_fig3_timeout_claims_count_only_the_timeouts_of_the_low_phases():
    # The paper's mechanism is a timeout after a drop to 38.4 kb/s; the slow-start timeout at
    # 3.2 s (first 384 kb/s phase) is another one and must not make claims 2 and 3 hold.
    fig3 = {"sender_spurious_timeouts": 1, "sender_timeout_times_s": [3.15]}
    rules = {c.text: c for c in hsdpa.CLAIMS}
    occurs = rules["Fig. 3: the drops to 38.4 kb/s cause spurious timeouts"].judge({"fig3": fig3})
    count = rules["Fig. 3: two spurious timeouts (t = 50 and 90 s)"].judge({"fig3": fig3})
    assert (occurs.verdict, count.verdict) == (NOT, NOT)
    fig3 = {"sender_spurious_timeouts": 3, "sender_timeout_times_s": [3.15, 52.0, 91.0]}
    assert rules["Fig. 3: two spurious timeouts (t = 50 and 90 s)"].judge({"fig3": fig3}).verdict == REPRODUCED
    assert hsdpa.low_phase_timeouts([3.2, 76.0, 98.9, 111.5, 120.0]) == [76.0, 98.9, 111.5]
