"""Every output of a run says the same: the terminal, the Markdown and the HTML page print one
summary, so their span statistics and counts cannot disagree."""

from __future__ import annotations

import json
import re
from typing import Any

from .conftest import Shop

# Spans of every kind: kept whole, split, absent from the corpus, a skipped and an xfail case.
MIXED = """\
corpus: ../docs/*.md
chunker_args: {size: 80, overlap: 10}
k: 2
cases:
  - id: refund-window
    question: What is the refund window?
    needle: 30 days
    span: The refund window is 30 days from the delivery date confirmed by carrier
  - id: express
    question: How long does express shipping take?
    needle: 2 business days
  - id: warranty
    question: warranty coverage
    needle: 12 months
    span: Warranty coverage runs 12 months
  - id: customs
    question: How much is customs clearance?
    needle: 9 dollars
    span: {from: Customs clearance, to: 9 dollars}
    xfail: anchor and value sit farther apart than one chunk
  - id: gift-wrap
    question: How much is gift wrapping?
    needle: 4 dollars
    span: Gift wrapping costs 4 dollars for every parcel that leaves the warehouse today
  - id: loyalty
    question: How many loyalty points does a purchase earn?
    needle: 2 points
    span: Every purchase earns 2 points per dollar spent in any of the stores we run
  - id: leather
    question: How do I clean leather?
    needle: saddle soap
    skip: not today
"""


def embedded(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="lab-data">(.*?)</script>', page, re.S)
    assert found, page[:500]
    value: dict[str, Any] = json.loads(found.group(1))
    return value


def test_the_page_and_the_terminal_say_the_same_span_statistics(shop: Shop):
    shop.gold(MIXED)
    result = shop.run("--chunkrecall-html", "lab.html")
    spans = re.search(r"spans p50 (\d+), p90 (\d+), max (\d+) chars", result.stdout.str())
    assert spans, result.stdout.str()
    (lab,) = embedded((shop.path / "lab.html").read_text(encoding="utf-8"))["lab"]
    # the absent cases have no span in the loaded text; the skipped one was never evaluated
    assert len(lab["lengths"]) == 4
    assert (lab["length_p50"], lab["length_p90"], max(lab["lengths"])) == tuple(
        int(number) for number in spans.groups()
    )


def test_the_terminal_and_the_markdown_offer_the_accept_command_alike(shop: Shop):
    shop.gold(MIXED.replace("k: 2", "k: 3"))
    shop.run("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline")
    # a document changes, and no case with it: the baseline no longer says what was run
    shop.write("docs/care.md", (shop.path / "docs" / "care.md").read_text() + "Dry it flat.\n")
    result = shop.run("--chunkrecall-baseline", "b.json", "--chunkrecall-markdown", "run.md")
    terminal = result.stdout.str()
    assert "documents changed: docs/care.md" in terminal
    accept = "pytest --chunkrecall-update-baseline --chunkrecall-baseline b.json"
    assert f"chunkrecall: to accept this state as the new baseline, run: {accept}" in terminal
    markdown = (shop.path / "run.md").read_text(encoding="utf-8")
    assert f"To accept this state as the new baseline: `{accept}`" in markdown


def test_an_updating_run_offers_no_accept_command_anywhere(shop: Shop):
    shop.gold(MIXED)
    shop.run("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline")
    new_case = (
        "  - id: restocking\n    question: What is the restocking fee?\n    needle: 15 percent\n"
    )
    shop.gold(MIXED.replace("k: 2", "k: 1") + new_case)  # a setup change, and a new case
    result = shop.run(
        "--chunkrecall-baseline",
        "b.json",
        "--chunkrecall-update-baseline",
        "--chunkrecall-markdown",
        "run.md",
    )
    assert "chunkrecall baseline b.json (before this update): 0 regressions, 0 improvements, " in (
        result.stdout.str()
    )
    assert "  new gold/policies.yaml::restocking" in result.stdout.str()
    assert "to accept this state" not in result.stdout.str()
    assert "To accept this state" not in (shop.path / "run.md").read_text(encoding="utf-8")


def test_the_page_and_the_terminal_say_the_same_funnel_and_counts(shop: Shop):
    shop.gold(MIXED)
    result = shop.run("--chunkrecall-html", "lab.html")
    funnel = next(line for line in result.outlines if line.startswith("funnel: "))
    overview = embedded((shop.path / "lab.html").read_text(encoding="utf-8"))["overview"]
    steps = " → ".join(f"{cases} {label}" for cases, label, _ in overview["funnel"]["steps"])
    assert funnel == f"funnel: {steps} (lost: {overview['funnel']['lost']})"
    headline = next(line for line in result.outlines if line.startswith("chunkrecall: hit-rate"))
    totals = overview["totals"]
    assert f"hit-rate {totals['hits']}/{totals['cases']} " in headline
    assert f"split spans {totals['split_spans']}" in headline
