"""What the answer cost: each case's context, the totals' context figures and the summary's
context line, in every output."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from .conftest import POLICIES, Shop, assert_no_internals

INI = """
chunkrecall_corpus = docs/policies.md
chunkrecall_chunker_args = {size: 80, overlap: 0}
chunkrecall_retriever = rag:keywords
chunkrecall_retriever_args = {rankings: {"When does the window start?": [0, 1, 2], "Customs?": [0, 1, 2]}}
chunkrecall_k = 3
"""

# "delivery date" lies in chunk 1 [80:160]: a hit at rank 2. "9 dollars" lies in the last
# chunk, which the pinned ranking never returns: ranked_out.
GOLD = """
cases:
  - id: start
    question: When does the window start?
    needle: delivery date
  - id: customs
    question: Customs?
    needle: 9 dollars
"""

WORDS = '''
def words(text):
    """A token counter: whitespace-separated words."""
    return len(text.split())
'''


@pytest.fixture
def priced(shop: Shop) -> Shop:
    shop.ini(INI)
    shop.gold(GOLD)
    return shop


def test_each_case_records_its_context_and_the_context_to_its_answer(priced: Shop) -> None:
    result, report = priced.report()
    cases = {case["id"]: case for case in report["cases"]}
    # three 80-character chunks came back for each; the hit read two of them
    assert (cases["start"]["context"], cases["start"]["context_to_answer"]) == (240, 160)
    assert (cases["customs"]["context"], cases["customs"]["context_to_answer"]) == (240, None)
    figures = {"unit": "chars", "mean": 240.0, "to_answer_mean": 160.0, "hits_per_1k": 2.083333}
    assert report["totals"]["context"] == figures
    (gold,) = report["gold_files"]
    assert gold["totals"]["context"] == figures
    result.stdout.fnmatch_lines(
        [
            "ranks: *",
            "context: 240 chars a case, 160 to the answer; 2.08 hits per 1k chars",
            "gold/policies.yaml: *",
        ]
    )


def test_a_token_counter_measures_the_context_in_its_units(priced: Shop) -> None:
    priced.write("tokens.py", WORDS)
    priced.ini(INI + "chunkrecall_length = tokens:words\n")
    result, report = priced.report()
    chunks = [POLICIES[start : start + 80] for start in range(0, len(POLICIES), 80)]
    sizes = [len(chunk.split()) for chunk in chunks[:3]]
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["start"]["context"] == sum(sizes)
    assert cases["start"]["context_to_answer"] == sum(sizes[:2])
    context = report["totals"]["context"]
    assert context["unit"] == "units of tokens:words"
    assert context["hits_per_1k"] == round(1000 / (2 * sum(sizes)), 6)
    result.stdout.fnmatch_lines(
        [
            f"context: {sum(sizes)} units of tokens:words a case, {sum(sizes[:2])} to the answer; "
            f"{1000 / (2 * sum(sizes)):.2f} hits per 1k units of tokens:words"
        ]
    )


def test_junit_properties_carry_each_cases_context(priced: Shop) -> None:
    priced.run("--junitxml", "junit.xml")
    tree = ET.parse(priced.path / "junit.xml")
    properties = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in tree.iter("testcase")
    }
    assert properties["start"]["context"] == "240"
    assert properties["start"]["context_to_answer"] == "160"
    assert properties["customs"]["context"] == "240"
    assert properties["customs"]["context_to_answer"] == ""


def test_the_markdown_and_the_page_print_the_same_context_line(priced: Shop) -> None:
    priced.run("--chunkrecall-markdown", "summary.md", "--chunkrecall-html", "lab.html")
    line = "context: 240 chars a case, 160 to the answer; 2.08 hits per 1k chars"
    assert line in (priced.path / "summary.md").read_text(encoding="utf-8").splitlines()
    assert json.dumps(line) in (priced.path / "lab.html").read_text(encoding="utf-8")


def test_merged_shards_and_compare_give_the_whole_runs_context(priced: Shop) -> None:
    _, whole = priced.report()
    priced.run("--chunkrecall-report", "a.json", "-k", "start")
    priced.run("--chunkrecall-report", "b.json", "-k", "customs")
    command = [sys.executable, "-m", "pytest_chunkrecall"]
    merged = subprocess.run(
        [*command, "merge", "a.json", "b.json", "--out", "m.json"],
        cwd=priced.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert merged.returncode == 0, merged.stderr
    report = json.loads((priced.path / "m.json").read_text(encoding="utf-8"))
    assert report["totals"]["context"] == whole["totals"]["context"]
    priced.run("--chunkrecall-baseline", "base.json", "--chunkrecall-update-baseline")
    compared = subprocess.run(
        [*command, "compare", "m.json", "--baseline", "base.json"],
        cwd=priced.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "context: 240 chars a case, 160 to the answer; 2.08 hits per 1k chars" in (
        compared.stdout.splitlines()
    ), compared.stdout + compared.stderr


@pytest.mark.parametrize(
    ("counter", "says"),
    [
        ("broken", "*tokens:broken raised RuntimeError: no tokenizer for 'storefront'*"),
        ("fraction", "*tokens:fraction returned 20.0; it must return a whole number*"),
    ],
)
def test_a_token_counter_that_fails_on_a_chunk_fails_the_cases_and_the_run_goes_on(
    priced: Shop, counter: str, says: str
) -> None:
    # each counter works on the probe text the plugin checks it with, and fails on chunk 0
    priced.write(
        "tokens.py",
        "def broken(text):\n"
        "    if 'storefront' in text:\n"
        "        raise RuntimeError(\"no tokenizer for 'storefront'\")\n"
        "    return len(text.split())\n\n\n"
        "def fraction(text):\n"
        "    return len(text) / 4 if 'storefront' in text else len(text.split())\n",
    )
    priced.ini(INI + f"chunkrecall_length = tokens:{counter}\n")
    result = priced.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([says, "*= chunkrecall =*", "chunkrecall: *"])
    assert_no_internals(result)


# chunk 0 [0:80], chunk 1 [80:160] holds "delivery date": a budget of 100 chars reads chunk 0
# alone (80 + 80 > 100); a budget of 50 reads it all the same (the first chunk always counts)
BUDGETED = """
budget: 100
cases:
  - id: start
    question: When does the window start?
    needle: delivery date
  - id: roomy
    question: When does the window start?
    needle: delivery date
    budget: 160
  - id: first
    question: When does the window start?
    needle: storefront
    budget: 50
"""


def test_a_holder_inside_k_but_past_the_budget_is_ranked_out(priced: Shop) -> None:
    priced.gold(BUDGETED)
    result, report = priced.report()
    cases = {case["id"]: case for case in report["cases"]}
    start = cases["start"]
    assert (start["verdict"], start["budget"], start["past_budget_rank"]) == ("ranked_out", 100, 2)
    assert (start["context"], start["context_to_answer"]) == (80, None)
    assert start["retrieved_ids"] == ["docs/policies.md#0"]
    roomy = cases["roomy"]
    assert (roomy["verdict"], roomy["rank"], roomy["context"], roomy["budget"]) == (
        "hit",
        2,
        160,
        160,
    )
    first = cases["first"]
    assert (first["verdict"], first["rank"], first["context"]) == ("hit", 1, 80)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: ranked_out *",
            "*the chunk that holds it ranks 2nd, inside the top 3 but past the budget of 100 chars",
            "  top 3 (normalized match, 1 chunk within the budget of 100 chars):",
        ]
    )


def test_the_ini_budget_applies_where_the_gold_file_sets_none(priced: Shop) -> None:
    priced.ini(INI + "chunkrecall_budget = 100\n")
    result, report = priced.report()
    cases = {case["id"]: case for case in report["cases"]}
    assert (cases["start"]["verdict"], cases["start"]["past_budget_rank"]) == ("ranked_out", 2)
    result.stdout.fnmatch_lines(["*past the budget of 100 chars"])


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "lots"])
def test_a_budget_that_is_no_positive_whole_number_is_a_usage_error(
    priced: Shop, value: str
) -> None:
    priced.ini(INI + f"chunkrecall_budget = {value}\n")
    result = priced.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*chunkrecall_budget*must be a whole number from 1*"])
    assert_no_internals(result)


@pytest.mark.parametrize(("where", "line"), [("file", 1), ("case", 5)])
def test_a_bad_budget_in_a_gold_file_is_a_collection_error_naming_its_line(
    priced: Shop, where: str, line: int
) -> None:
    if where == "file":
        priced.gold("budget: 0\n" + GOLD.lstrip("\n"))
    else:
        priced.gold(
            GOLD.replace(
                "    needle: delivery date\n", "    needle: delivery date\n    budget: 2.5\n"
            )
        )
    result = priced.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [f"*gold/policies.yaml:{line}*budget*must be a whole number from 1*"]
    )
    assert_no_internals(result)


# Six cases whose answer lies in chunk 1 [80:160], asked one question whose ranking is pinned:
# chunk 1 first (80 chars to the answer) or second (160 chars). Same recall either way.
NEEDLES_IN_CHUNK_1 = [
    "delivery date",
    "30 days",
    "confirmed by",
    "by carrier",
    "Express",
    "from the",
]
SAME_RECALL = "cases:\n" + "".join(
    f"  - id: fact-{number}\n    question: When?\n    needle: {needle}\n"
    for number, needle in enumerate(NEEDLES_IN_CHUNK_1, start=1)
)


def _pinned(ranking: list[int], extra: str = "") -> str:
    return (
        "chunkrecall_corpus = docs/policies.md\n"
        "chunkrecall_chunker_args = {size: 80, overlap: 0}\n"
        "chunkrecall_retriever = rag:keywords\n"
        f'chunkrecall_retriever_args = {{rankings: {{"When?": {ranking}}}}}\n'
        "chunkrecall_k = 3\n" + extra
    )


def test_same_recall_with_more_context_is_a_regression_in_cost_that_fails_the_gate(
    shop: Shop,
) -> None:
    shop.gold(SAME_RECALL)
    shop.ini(_pinned([1, 0, 2]))
    shop.run("--chunkrecall-baseline", "base.json", "--chunkrecall-update-baseline")
    shop.ini(_pinned([0, 1, 2], "chunkrecall_max_context_growth = 30\n"))
    result, report = shop.report("--chunkrecall-baseline", "base.json")
    assert report["comparison"]["regressions"] == 0
    assert report["comparison"]["context"] == {
        "cases": 6,
        "before": 80.0,
        "after": 160.0,
        "change_percent": 100.0,
        "p_value": 0.03125,
    }
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall context to the answer: 100.0% more (80 -> 160 chars) over 6 cases hit "
            "in both runs (sign test p=0.03125): a regression in cost",
            "chunkrecall: FAILED: context to the answer grew 100.0% against the baseline "
            "(80 -> 160 chars) on the 6 cases hit in both runs (sign test p=0.03125; "
            "chunkrecall_max_context_growth is 30%)",
        ]
    )
    # compare gates a report as the run does
    compared = subprocess.run(
        [
            *(sys.executable, "-m", "pytest_chunkrecall", "compare", "chunkrecall.json"),
            *("--baseline", "base.json", "--max-context-growth", "30"),
        ],
        cwd=shop.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert compared.returncode == 1, compared.stdout + compared.stderr
    assert "chunkrecall: FAILED: context to the answer grew 100.0%" in compared.stdout


def test_same_recall_with_less_context_is_an_improvement_in_cost(shop: Shop) -> None:
    shop.gold(SAME_RECALL)
    shop.ini(_pinned([0, 1, 2]))
    shop.run("--chunkrecall-baseline", "base.json", "--chunkrecall-update-baseline")
    shop.ini(_pinned([1, 0, 2], "chunkrecall_max_context_growth = 30\n"))
    result, report = shop.report("--chunkrecall-baseline", "base.json")
    assert report["comparison"]["context"]["change_percent"] == -50.0
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "chunkrecall context to the answer: 50.0% less (160 -> 80 chars) over 6 cases hit "
            "in both runs (sign test p=0.03125): an improvement in cost",
        ]
    )
    assert "FAILED" not in result.stdout.str()


def test_growth_past_the_limit_without_evidence_passes(shop: Shop) -> None:
    # two cases: even both growing gives a sign test p of 0.5
    shop.gold("cases:\n" + "".join(SAME_RECALL.splitlines(keepends=True)[1:7]))
    shop.ini(_pinned([1, 0, 2]))
    shop.run("--chunkrecall-baseline", "base.json", "--chunkrecall-update-baseline")
    shop.ini(_pinned([0, 1, 2], "chunkrecall_max_context_growth = 30\n"))
    result = shop.run("--chunkrecall-baseline", "base.json")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*100.0% more*(sign test p=0.5): no significant change in cost"])


STOREFRONT = """
cases:
  - id: refund
    question: What is the refund window?
    needle: 30 days
  - id: express
    question: How long does express shipping take?
    needle: 2 business days
  - id: warranty
    question: How long is the warranty coverage?
    needle: 12 months
  - id: restocking
    question: What is the restocking fee?
    needle: 15 percent
  - id: customs
    question: How much is customs clearance per kilogram?
    needle: 9 dollars
"""


def _sweep_rows(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["label"]: row for row in report["sweep"]["rows"]}


@pytest.mark.parametrize("budget", [None, 200])
def test_the_sweep_ranks_cost_and_names_the_least_context_among_the_best(
    shop: Shop, budget: int | None
) -> None:
    shop.ini(
        "chunkrecall_corpus = docs/policies.md\nchunkrecall_k = 3\n"
        "chunkrecall_chunker_args = {size: 800, overlap: 50}\n"
    )
    shop.gold(STOREFRONT)
    spec = "size=100,200,400" + (f"; budget={budget}" if budget else "")
    result, report = shop.report("--chunkrecall-sweep", spec, "--chunkrecall-html", "lab.html")
    rows = _sweep_rows(report)
    suffix = f" budget={budget}" if budget else ""
    small, large = rows[f"size=100{suffix}"], rows[f"size=400{suffix}"]
    # every setting finds all five facts; larger chunks make the LLM read more for them
    assert small["hits"] == large["hits"] == 5
    assert small["context_to_answer_mean"] < large["context_to_answer_mean"]
    if budget:
        # the first chunk always counts: a 400-char chunk is read whole, past the budget,
        # and the second one no longer
        assert small["context_mean"] <= budget
        assert large["context_mean"] <= 400
    else:
        assert large["context_mean"] > 400  # the second chunk is read too
    cheapest = report["sweep"]["cheapest"]
    tied = [rows[label] for label in cheapest["tied"]]
    assert cheapest["label"] == min(tied, key=lambda row: row["context_to_answer_mean"])["label"]
    assert cheapest["label"] == f"size=100{suffix}"
    result.stdout.fnmatch_lines(
        [
            "chunkrecall sweep *:",
            "  setting * p (Holm)  to answer",
            f"  size=100{suffix} * 5/5 (100.0%) * {small['context_to_answer_mean']:,.0f}",
            f"  least context: size=100{suffix} ({small['context_to_answer_mean']:,.0f} chars to "
            "the answer); *",
        ]
    )
    # the page says the sweep's choice as the terminal does
    said = next(line for line in result.outlines if line.startswith("  least context: "))
    assert json.dumps(said.strip()) in (shop.path / "lab.html").read_text(encoding="utf-8")
