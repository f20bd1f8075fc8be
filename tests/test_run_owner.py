"""The run's owner as a user meets it: text that is not valid Unicode, reports let go, many failures."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import QUIET, Shop, assert_no_internals

GOLD = """
corpus: ../docs/*.md
cases:
  - id: refund
    question: What is the refund window?
    needle: 30 days
  - id: missing
    question: How much is the fee?
    needle: 9 dollars
"""


def run(shop: Shop, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = shop.path / "r.json"
    report.unlink(missing_ok=True)
    options = ("--chunkrecall-report", "r.json", "--chunkrecall-html", "page.html")
    result = shop.pytester.runpytest_subprocess(*QUIET, "-p", "no:randomly", *options, *args)
    return result, json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "workers",
    [pytest.param((), id="serial"), pytest.param(("-n", "2"), id="xdist", marks=pytest.mark.slow)],
)
def test_a_document_named_with_undecodable_bytes_is_reported_escaped(shop: Shop, workers) -> None:
    if workers:
        pytest.importorskip("xdist")
    (shop.path / "docs" / "policies.md").unlink()
    (shop.path / "docs").joinpath(b"caf\xff\xfe.md".decode("utf-8", "surrogateescape")).write_bytes(
        b"The refund window is 30 days from delivery.\n"
    )
    shop.gold(GOLD)
    result, report = run(shop, *workers)
    assert result.ret == 1
    result.assert_outcomes(passed=1, failed=1)
    assert "INTERNALERROR" not in result.stdout.str()
    assert_no_internals(result)
    cases = {case["id"]: case for case in report["cases"]}
    name = "docs/caf\udcff\udcfe.md"
    assert cases["refund"]["holding_ids"] == [f"{name}#0"]
    assert cases["missing"]["verdict"] == "absent"
    assert name in report["gold_files"][0]["fingerprints"]
    result.stdout.fnmatch_lines([r"*docs/caf\udcff\udcfe.md*"])  # the failure shows it escaped
    page = (shop.path / "page.html").read_text(encoding="utf-8")
    assert r"caf\udcff\udcfe.md" in page


KEPT = """
def pytest_terminal_summary(terminalreporter):
    reports = [r for kept in terminalreporter.stats.values() for r in kept]
    carried = sum(hasattr(r, "chunkrecall") for r in reports)
    terminalreporter.write_line(f"entries still on reports: {carried} of {len(reports)}")
"""


@pytest.mark.parametrize(
    "workers",
    [pytest.param((), id="serial"), pytest.param(("-n", "2"), id="xdist", marks=pytest.mark.slow)],
)
def test_the_reports_pytest_keeps_no_longer_carry_the_entries(shop: Shop, workers) -> None:
    if workers:
        pytest.importorskip("xdist")
    shop.write("conftest.py", KEPT)
    shop.gold(GOLD)
    result, report = run(shop, *workers)
    result.stdout.fnmatch_lines(["entries still on reports: 0 of *"])
    assert "entries still on reports: 0 of 0" not in result.stdout.str()
    assert [case["id"] for case in report["cases"]] == ["refund", "missing"]


@pytest.mark.slow
def test_a_suite_of_many_failures_is_told_how_to_list_them_fast(shop: Shop) -> None:
    cases = "".join(
        f"  - id: c{n}\n    question: fee {n}?\n    needle: absent words {n}\n" for n in range(301)
    )
    shop.gold("corpus: ../docs/*.md\ncases:\n" + cases)
    result = shop.run("-p", "no:randomly", "--tb=short", "-q")
    assert result.ret == 1
    said = [line for line in result.outlines if "--tb=line" in line]
    assert said == [
        "chunkrecall: 301 gold cases failed, and pytest takes time that grows with the square "
        "of their number to list failures: --tb=line, or --tb=no with --chunkrecall-report or "
        "--chunkrecall-html, avoids that listing"
    ]
    quiet = shop.run("-p", "no:randomly", "--tb=line", "-q")
    assert not [line for line in quiet.outlines if "--tb=line" in line]


SPOOLED = """
import sys

def pytest_terminal_summary(terminalreporter):
    owner = terminalreporter.config.pluginmanager.get_plugin("chunkrecall-owner")
    page = "pytest_chunkrecall.render.html" in sys.modules
    terminalreporter.write_line(f"entries spooled: {len(owner.spool)}; page renderer loaded: {page}")
"""


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ((), "entries spooled: 0; page renderer loaded: False"),
        (("--chunkrecall-report", "r.json"), "entries spooled: 2; page renderer loaded: False"),
        (("--chunkrecall-html", "page.html"), "entries spooled: 2; page renderer loaded: True"),
    ],
    ids=["no-output", "report", "page"],
)
def test_only_an_output_that_lists_the_cases_has_them_written(shop: Shop, options, said) -> None:
    shop.write("conftest.py", SPOOLED)
    shop.gold(GOLD)
    result = shop.pytester.runpytest_subprocess(*QUIET, "-p", "no:randomly", *options)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([said, "*hit-rate 2/2 (100.0%)*"])
