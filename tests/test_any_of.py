"""``any_of``: the answer may come back from any one of several places."""

from __future__ import annotations

import json
import sys

import pytest

from .conftest import assert_no_internals, dedent

DOCS = {
    "docs/terms": "Terms of sale: the refund window is 30 days from delivery.\n",
    "docs/faq": "Frequently asked: you may return an item within thirty days.\n",
    "docs/hours": "Support hours: the billing team answers from 9 to 5 on weekdays.\n",
}

HEAD = """
    corpus: ../docs/*.md
    chunker_args: {size: 200, overlap: 0}
    k: 1
    cases:
"""


@pytest.fixture
def shop(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".md", **DOCS)
    pytester.makeini("[pytest]\n")
    return pytester


def run(pytester: pytest.Pytester, cases: str) -> tuple[pytest.RunResult, dict]:
    text = dedent(HEAD) + "".join(f"  {line}\n" for line in dedent(cases).splitlines())
    pytester.makefile(".yaml", **{"gold/refunds": text})
    path = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--chunkrecall-report", str(path))
    report = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return result, report


def test_a_case_is_a_hit_when_any_alternative_is(shop):
    result, report = run(
        shop,
        """
        - id: faq-answers
          question: Can I return an item within thirty days?
          any_of:
            - needle: 30 days
              doc: ../docs/terms.md
            - needle: thirty days
              doc: ../docs/faq.md
        """,
    )
    result.assert_outcomes(passed=1)
    (case,) = report["cases"]
    assert (case["verdict"], case["rank"]) == ("hit", 1)
    assert case["alternative"] == 1
    assert case["alternatives"] == ["ranked_out", "hit"]
    assert case["needles"] == ["thirty days"]


def test_a_miss_takes_the_best_verdict_among_the_alternatives_and_shows_each(shop):
    result, report = run(
        shop,
        """
        - id: billing
          question: When does the billing team answer?
          any_of:
            - needle: forty days
            - needles: [refund window, 30 days]
            - span: {from: refund window, to: delivery}
              needle: 30 days
        """,
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: ranked_out — *",
            "  needle:   'refund window'",
            "  needle:   '30 days'",
            "  any_of:   0: absent, 1: ranked_out, 2: ranked_out "
            "(the needle above is alternative 1's)",
        ]
    )
    (case,) = report["cases"]
    assert (case["verdict"], case["alternative"]) == ("ranked_out", 1)
    assert case["alternatives"] == ["absent", "ranked_out", "ranked_out"]


def test_a_case_without_any_of_has_no_alternative_keys(shop):
    _, report = run(
        shop,
        """
        - id: terms
          question: What is the refund window?
          needle: 30 days
        """,
    )
    (case,) = report["cases"]
    assert not {"alternative", "alternatives"} & set(case)


@pytest.mark.parametrize(
    ("cases", "line", "message"),
    [
        (
            """
            - question: refund window
              any_of: []
            """,
            6,
            "'any_of' must be a non-empty list of alternatives*",
        ),
        (
            """
            - question: refund window
              needle: 30 days
              any_of:
                - needle: thirty days
            """,
            6,
            "give either 'any_of:' or 'needle:', not both*",
        ),
        (
            """
            - question: refund window
              span: refund window is 30 days
              any_of:
                - needle: thirty days
            """,
            6,
            "give either 'any_of:' or 'span:', not both*",
        ),
        (
            """
            - question: refund window
              any_of:
                - needles: [30 days]
                - span: thirty days
            """,
            8,
            "alternative 2 of 'any_of' has no 'needle:'*",
        ),
        (
            """
            - question: refund window
              any_of:
                - needle: 30 days
                  nedle: thirty
            """,
            8,
            "unknown key 'nedle' in alternative 1 of 'any_of'; did you mean 'needle'?*",
        ),
        (
            """
            - question: refund window
              any_of: thirty days
            """,
            6,
            "'any_of' must be a non-empty list of alternatives*",
        ),
    ],
)
def test_bad_any_of_is_a_collection_error_naming_the_line(shop, cases, line, message):
    result, _ = run(shop, cases)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"chunkrecall: gold/refunds.yaml:{line}: {message}"])
    assert_no_internals(result)


def test_an_alternative_needle_outside_its_span_is_named(shop):
    result, _ = run(
        shop,
        """
        - question: refund window
          any_of:
            - needle: 30 days
              span: Terms of sale
        """,
    )
    result.stdout.fnmatch_lines(
        ["chunkrecall: gold/refunds.yaml:5: needle '30 days' is not inside the span*"]
    )


def test_validate_checks_each_alternative_and_must_not_against_the_corpus(shop):
    text = dedent(HEAD) + "".join(
        f"  {line}\n"
        for line in dedent(
            """
            - id: refund
              question: What is the refund window?
              must_not: ninety days
              any_of:
                - needle: 30 days
                - needle: forty days
                  doc: ../docs/faq.md
            """
        ).splitlines()
    )
    shop.makefile(".yaml", **{"gold/refunds": text})
    result = shop.run(sys.executable, "-m", "pytest_chunkrecall", "validate", "gold/refunds.yaml")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "gold/refunds.yaml:5: case 'refund': must_not text 'ninety days' occurs in no "
            "document, so the check that it never comes back cannot fail",
            "gold/refunds.yaml:10: alternative 1 of case 'refund': needle 'forty days' *",
        ],
        consecutive=False,
    )
    assert "alternative 0" not in result.stdout.str()
