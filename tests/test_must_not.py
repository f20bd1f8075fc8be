"""What must never come back: ``must_not`` and ``must_not_doc`` make a case ``leaked``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import assert_no_internals, dedent

ACME = "Tenant Acme: the refund window is 30 days for Acme customers.\n"
GLOBEX = "Tenant Globex: the refund window is 14 days for Globex customers.\n"

HEAD = """
    corpus: ../docs/*.md
    chunker_args: {size: 200, overlap: 0}
    k: 2
    cases:
"""


class Tenants:
    """Two tenants' documents, one chunk each: a question about one brings back both."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        pytester.makefile(".md", **{"docs/acme": ACME, "docs/globex": GLOBEX})
        pytester.makeini("[pytest]\n")

    def gold(self, cases: str, head: str = HEAD) -> None:
        text = dedent(head) + "\n".join("  " + line for line in dedent(cases).splitlines())
        self.pytester.makefile(".yaml", **{"gold/tenants": text})

    def report(self, *args: str) -> tuple[pytest.RunResult, dict]:
        path = self.pytester.path / "report.json"
        result = self.pytester.runpytest(
            "-p", "no:cacheprovider", "--chunkrecall-report", str(path), *args
        )
        return result, json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def tenants(pytester: pytest.Pytester) -> Tenants:
    return Tenants(pytester)


def test_a_leak_wins_over_a_hit_and_names_the_chunk_its_rank_and_what_it_holds(tenants):
    tenants.gold(
        """
        - id: acme
          question: What is the refund window for Acme?
          needle: 30 days
          must_not_doc: ../docs/globex.md
        """
    )
    result, report = tenants.report()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: leaked — a top-2 chunk holds what must not come back*",
            "  must not come from: docs/globex.md",
            "  leaked at rank 2: docs/globex.md#1 comes from must_not_doc docs/globex.md: "
            "'Tenant Globex: the refund window is 14 days*",
            "verdicts: hit 0, split 0, ranked_out 0, absent 0, leaked 1",
            "funnel: 1 case * 0 in the top 2 (lost: 1 leaked)",
        ]
    )
    (case,) = report["cases"]
    assert case["verdict"] == "leaked"
    assert case["rank"] is None
    assert case["must_not_docs"] == ["docs/globex.md"]
    assert case["leaks"] == [
        {
            "rank": 2,
            "chunk": "docs/globex.md#1",
            "doc": "docs/globex.md",
            "text": None,
            "preview": GLOBEX.strip(),
        }
    ]
    assert report["totals"]["verdicts"]["leaked"] == 1
    assert report["totals"]["hits"] == 0
    assert report["totals"]["funnel"]["top_k"] == 0


def test_a_negative_only_case_passes_when_nothing_leaks_and_fails_when_one_does(tenants):
    tenants.gold(
        """
        - id: no-initech
          question: What is the refund window for Acme?
          must_not: Initech
        - id: no-globex-window
          question: What is the refund window for Acme?
          must_not: [Initech, 14 DAYS]
        """
    )
    result, report = tenants.report()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "  must not: 'Initech'",
            "  must not: '14 DAYS'",
            "  leaked at rank 2: docs/globex.md#1 holds must_not '14 DAYS': *",
        ]
    )
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["no-initech"]["verdict"] == "hit"
    assert cases["no-initech"]["leaks"] == []
    assert cases["no-globex-window"]["verdict"] == "leaked"
    assert [leak["text"] for leak in cases["no-globex-window"]["leaks"]] == ["14 DAYS"]


def test_a_case_without_must_not_keeps_its_report_entry_as_it_was(tenants):
    tenants.gold(
        """
        - id: acme
          question: What is the refund window for Acme?
          needle: 30 days
        """
    )
    result, report = tenants.report()
    result.assert_outcomes(passed=1)
    (case,) = report["cases"]
    assert not {"must_not", "must_not_docs", "leaks"} & set(case)


def test_a_number_in_must_not_matches_whole(tenants):
    tenants.gold(
        """
        - id: no-four-days
          question: What is the refund window for Globex?
          must_not: 4 days
        """
    )
    result, _ = tenants.report()
    result.assert_outcomes(passed=1)


def test_a_new_leak_is_a_regression_against_the_baseline_whatever_it_was_before(tenants):
    tenants.gold(
        """
        - id: acme
          question: What is the refund window for Acme?
          needle: 30 days
          must_not_doc: ../docs/globex.md
        - id: acme-deep
          question: What is the refund window for Acme?
          needle: Globex customers
          must_not: Initech
        """,
        head=HEAD.replace("k: 2", "k: 1"),
    )
    tenants.pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--chunkrecall-baseline",
        "b.json",
        "--chunkrecall-update-baseline",
    ).assert_outcomes(passed=1, xfailed=1)
    tenants.gold(
        """
        - id: acme
          question: What is the refund window for Acme?
          needle: 30 days
          must_not_doc: ../docs/globex.md
        - id: acme-deep
          question: What is the refund window for Acme?
          needle: Globex customers
          must_not: Tenant Acme
        """,
        head=HEAD.replace("k: 1", "k: 2"),
    )
    result, report = tenants.report("--chunkrecall-baseline", "b.json")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: regression — a hit at rank 1 in the baseline, now leaked",
            "chunkrecall: regression — ranked_out in the baseline, now leaked",
        ],
        consecutive=False,
    )
    assert [case["baseline"]["change"] for case in report["cases"]] == ["regression"] * 2
    # the paired statistics are over hits: a miss that now leaks is a miss in both runs
    assert report["comparison"]["regressions"] == 1


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ('must_not: ""', "'must_not' is empty; give its text or remove it"),
        ("must_not: []", "'must_not' must be a non-empty list of text"),
        ("must_not: [Initech, '']", "item 2 of 'must_not' is empty*"),
        ("must_not: 30 DAYS", "must_not '30 DAYS' overlaps the needle '30 days'*"),
        (
            "must_not: the refund window is 30 days",
            "must_not 'the refund window is 30 days' overlaps the needle '30 days'*",
        ),
        (
            "must_not_doc: ../docs/initech.md",
            "doc '../docs/initech.md' matches no corpus document*",
        ),
    ],
)
def test_bad_must_not_is_a_collection_error_naming_the_line(tenants, key, message):
    tenants.gold(
        f"""
        - id: fine
          question: What is the refund window for Acme?
          needle: 30 days
        - id: acme
          question: What is the refund window for Acme?
          needle: 30 days
          {key}
        """
    )
    result = tenants.pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    # the reader names the key's line; a check against the corpus or the needle, the case's
    line = 8 if "overlaps" in message or "matches no" in message else 11
    result.stdout.fnmatch_lines([f"chunkrecall: gold/tenants.yaml:{line}: {message}"])
    assert_no_internals(result)


def test_every_output_counts_a_leak(tenants):
    """JUnit, the merged report, compare's Markdown and the TREC export see the leak."""
    tenants.gold(
        """
        - id: acme
          question: What is the refund window for Acme?
          needle: 30 days
          must_not_doc: ../docs/globex.md
        - id: fine
          question: Acme refund window
          needle: 30 days
        """
    )
    path = tenants.pytester.path
    result, _ = tenants.report(
        "--junitxml",
        "junit.xml",
        "--chunkrecall-baseline",
        "b.json",
        "--chunkrecall-update-baseline",
    )
    result.assert_outcomes(passed=1, xfailed=1)
    assert '<property name="verdict" value="leaked" />' in (path / "junit.xml").read_text()

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest_chunkrecall", *args],
            cwd=path,
            capture_output=True,
            text=True,
            check=False,
        )

    merged = command("merge", "report.json", "--out", "merged.json")
    assert merged.returncode == 0, merged.stderr
    totals = json.loads((path / "merged.json").read_text())["totals"]
    assert totals["verdicts"]["leaked"] == 1
    compared = command("compare", "merged.json", "--baseline", "b.json", "--markdown", "m.md")
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "(lost: 1 leaked)" in (path / "m.md").read_text()
    assert "leaked 1 (1 of the 1 miss expected)" in compared.stdout
    exported = command("export", "trec", "report.json", "--out", "trec")
    assert exported.returncode == 0, exported.stderr
    assert (path / "trec" / "qrels.txt").read_text().splitlines() == [
        "gold/tenants.yaml::acme 0 no-holding-chunk 1",
        "gold/tenants.yaml::acme 0 docs/globex.md#1 -1",
        "gold/tenants.yaml::fine 0 docs/acme.md#0 1",
    ]


EXAMPLE = Path(__file__).resolve().parents[1] / "example_project"


def test_the_example_s_negative_and_filtered_cases(pytester: pytest.Pytester) -> None:
    """The example project's isolation/gold: a gift-card question the rewards article must
    not answer, one it does answer (an expected leak), and one asked with a filter that
    shopkb.search honours, without which the rewards' expiry ranks first."""
    shutil.copytree(
        EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    report = pytester.path / "isolation.json"
    result = pytester.runpytest("isolation", "-rx", "--chunkrecall-report", str(report))
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "verdicts: hit 2, split 0, ranked_out 0, absent 0, leaked 1 (1 of the 1 miss expected)",
            "XFAIL isolation/gold/leaks.yaml::gift-card-expiry-not-rewards - leaked: *",
        ]
    )
    cases = {case["id"]: case for case in json.loads(report.read_text())["cases"]}
    assert {name: (case["verdict"], case["outcome"]) for name, case in cases.items()} == {
        "gift-card-fees-not-rewards": ("hit", "passed"),
        "gift-card-expiry-not-rewards": ("leaked", "xfailed"),
        "gift-card-expiry-on-its-page": ("hit", "passed"),
    }
    assert [
        (leak["doc"], leak["rank"]) for leak in cases["gift-card-expiry-not-rewards"]["leaks"]
    ] == [("docs/loyalty.md", 2)]
    assert cases["gift-card-expiry-on-its-page"]["filter"] == {"doc": "docs/gift_cards.md"}
