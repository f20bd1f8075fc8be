"""What a run against a baseline says of itself: why it fails, which cases fail, the gate's
sentence, and the command that accepts its state."""

from __future__ import annotations

import json
import re
import shlex
import sys
from typing import Any

import pytest

from pytest_chunkrecall.baseline.reasons import absent_reason

from .conftest import QUIET, STOREFRONT_CASES, Shop

WINDOWS = "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\n"
OVERLAPPING = WINDOWS.replace("overlap: 0", "overlap: 28")
ARGS = (*QUIET, "-p", "no:cacheprovider", "-p", "no:randomly")

# two needles the corpus does not hold: gold-data errors, whatever the baseline says
WRONG = """\
  - id: it-WRONG
    question: How long is the refund window?
    needle: 45 days
  - id: hr-WRONG
    question: How much is the restocking fee?
    needle: 25 percent
"""


def run(shop: Shop, *args: str) -> pytest.RunResult:
    return shop.pytester.runpytest(*ARGS, *args)


def accepted(shop: Shop, gold: str) -> None:
    """ci/baseline.json holds the verdicts of ``gold``; the gold file is left as it."""
    shop.gold(gold)
    (shop.path / "ci").mkdir(exist_ok=True)
    result = run(
        shop, "--chunkrecall-baseline", "ci/baseline.json", "--chunkrecall-update-baseline"
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()


def line_starting(result: pytest.RunResult, prefix: str) -> str:
    return next(line for line in result.outlines if line.startswith(prefix))


def compare(shop: Shop, *args: str) -> pytest.RunResult:
    return shop.pytester.run(
        sys.executable, "-m", "pytest_chunkrecall", "compare", "run.json",
        "--baseline", "ci/baseline.json", *args,
    )  # fmt: skip


# --- 1. absent cases under a baseline --------------------------------------------------------


def test_absent_cases_say_why_a_run_with_a_passing_gate_fails(shop: Shop) -> None:
    accepted(shop, OVERLAPPING + STOREFRONT_CASES)
    shop.gold(OVERLAPPING + STOREFRONT_CASES + WRONG)
    result = run(
        shop, "--chunkrecall-baseline", "ci/baseline.json", "--chunkrecall-report", "run.json",
        "--chunkrecall-markdown", "run.md",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert line_starting(result, "chunkrecall gate:").endswith("the gate passes: no regressions")
    reason = "chunkrecall: exit 1: 2 absent cases (gold-data errors): it-WRONG, hr-WRONG"
    assert reason in result.outlines
    markdown = (shop.path / "run.md").read_text(encoding="utf-8")
    assert r"**exit 1: 2 absent cases \(gold-data errors\): it-WRONG, hr-WRONG**" in markdown
    # compare says the same, under either gate, and fails the same way
    for gate in ("cases", "significant"):
        shown = compare(shop, "--gate", gate, "--markdown", f"{gate}.md")
        assert shown.ret == 1, shown.stdout.str()
        assert reason in shown.outlines
        text = (shop.path / f"{gate}.md").read_text(encoding="utf-8")
        assert r"**exit 1: 2 absent cases \(gold-data errors\): it-WRONG, hr-WRONG**" in text


def test_without_absent_cases_no_such_line(shop: Shop) -> None:
    accepted(shop, OVERLAPPING + STOREFRONT_CASES)
    result = run(shop, "--chunkrecall-baseline", "ci/baseline.json")
    assert result.ret == pytest.ExitCode.OK
    assert not [line for line in result.outlines if "absent case" in line]


def test_the_absent_line_names_a_bounded_number() -> None:
    assert absent_reason(0, []) is None
    assert absent_reason(1, ["a"]) == "exit 1: 1 absent case (gold-data errors): a"
    names = [f"c{n}" for n in range(12)]
    assert absent_reason(1200, names) == (
        "exit 1: 1,200 absent cases (gold-data errors): "
        "c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 1,190 more"
    )


# --- 2. the Markdown lists the failing cases -------------------------------------------------


def test_the_markdown_lists_the_worst_failing_cases_then_counts_the_rest(shop: Shop) -> None:
    accepted(shop, OVERLAPPING + STOREFRONT_CASES)
    many = "".join(
        f"  - id: wrong-{n:02d}\n    question: fee {n}\n    needle: '{n} | `euros`'\n"
        for n in range(55)
    )
    shop.gold(WINDOWS + STOREFRONT_CASES + many)
    result = run(
        shop,
        "--chunkrecall-baseline",
        "ci/baseline.json",
        "--chunkrecall-markdown",
        "m.md",
        "--tb=no",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = (shop.path / "m.md").read_text(encoding="utf-8")
    table = text.split("### Failing cases (57)\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert table[:2] == ["| case | verdict | needle | reason |", "|---|---|---|---|"]
    rows = table[2:]
    assert len(rows) == 50
    # regressions first, then absent cases, each in line order
    assert rows[0] == (
        "| `gold/policies.yaml::refund-window` | split | 30 days | "
        "regression — a hit at rank 1 in the baseline, now split |"
    )
    assert rows[1].startswith(
        "| `gold/policies.yaml::express` | split | 2 business days | regression"
    )
    assert rows[2] == (
        "| `gold/policies.yaml::wrong-00` | absent | 0 \\| \\`euros\\` | absent — it is not in "
        "the corpus at all: a gold-data error \\(fix the needle or span, or the corpus\\) |"
    )
    assert rows[-1].startswith("| `gold/policies.yaml::wrong-47` | absent |")
    # every row has its four cells: the pipe in a needle is escaped
    assert all(len(re.split(r"(?<!\\)\|", row)) == 6 for row in rows)
    assert "… and 7 more failing cases." in text


def test_the_markdown_of_a_passing_run_lists_no_failing_cases(shop: Shop) -> None:
    accepted(shop, OVERLAPPING + STOREFRONT_CASES)
    result = run(
        shop, "--chunkrecall-baseline", "ci/baseline.json", "--chunkrecall-markdown", "m.md"
    )
    assert result.ret == pytest.ExitCode.OK
    assert "Failing cases" not in (shop.path / "m.md").read_text(encoding="utf-8")


# --- 3. the accept command reproduces the run ------------------------------------------------


def baseline_verdicts(shop: Shop) -> dict[str, Any]:
    data = json.loads((shop.path / "ci" / "baseline.json").read_text(encoding="utf-8"))
    cases = data["gold_files"]["gold/policies.yaml"]["cases"]
    return {case: entry["verdict"] for case, entry in cases.items()}


def test_the_printed_accept_command_keeps_the_selection_and_accepts_only_it(shop: Shop) -> None:
    shop.ini("markers =\n    slow: a slow case\n")
    cases = STOREFRONT_CASES.replace("needle: 12 months", "needle: 12 months\n    marks: [slow]")
    accepted(shop, OVERLAPPING + cases)
    before = baseline_verdicts(shop)
    assert before == {
        "refund-window": "hit", "express": "hit", "warranty": "ranked_out",
        "restocking": "hit", "customs": "split",
    }  # fmt: skip
    # without overlap, refund-window, express and warranty change verdict
    shop.gold(WINDOWS + cases)
    selection = (
        "-k",
        "not express",
        "-m",
        "not slow",
        "-o",
        "chunkrecall_match=exact",
        "gold/policies.yaml",
    )
    result = run(shop, "--chunkrecall-baseline", "ci/baseline.json", *selection)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    prefix = "chunkrecall: to accept this state as the new baseline, run: "
    command = line_starting(result, prefix).removeprefix(prefix)
    assert command == (
        "pytest --chunkrecall-update-baseline --chunkrecall-baseline ci/baseline.json "
        "-o chunkrecall_match=exact -k 'not express' -m 'not slow' gold/policies.yaml"
    )
    words = shlex.split(command)
    assert words[0] == "pytest"
    accepting = run(shop, *words[1:])
    assert accepting.ret == pytest.ExitCode.OK, accepting.stdout.str()
    # the selected cases took their new verdicts; the deselected ones kept theirs
    assert baseline_verdicts(shop) == {**before, "refund-window": "split"}
    again = run(shop, "--chunkrecall-baseline", "ci/baseline.json", *selection)
    assert again.ret == pytest.ExitCode.OK, again.stdout.str()
    assert "0 regressions" in line_starting(again, "chunkrecall gate:")
    assert "changed since baseline" not in again.stdout.str()


# --- 4. the gate's sentence, the same everywhere ---------------------------------------------


def test_the_gate_sentence_is_the_same_in_terminal_markdown_and_html(shop: Shop) -> None:
    accepted(shop, WINDOWS + STOREFRONT_CASES)
    shop.gold(OVERLAPPING + STOREFRONT_CASES)
    result = run(
        shop, "--chunkrecall-baseline", "ci/baseline.json", "--chunkrecall-markdown", "m.md",
        "--chunkrecall-html", "lab.html",
    )  # fmt: skip
    sentence = line_starting(result, "chunkrecall gate:")
    assert sentence.startswith(
        "chunkrecall gate: 2 improvements, 0 regressions: too few changed cases to tell "
        "(McNemar exact: with 2 changed cases the one-sided p is at least 0.250, not < 0.05); "
        "hit-rate 20.0% -> 60.0% over 5 compared cases (+40.0 pts"
    )
    assert sentence in (shop.path / "m.md").read_text(encoding="utf-8").splitlines()
    page = (shop.path / "lab.html").read_text(encoding="utf-8")
    model = re.search(r'<script type="application/json" id="lab-data">(.*?)</script>', page)
    assert model is not None
    assert json.loads(model.group(1))["overview"]["gate"] == sentence
