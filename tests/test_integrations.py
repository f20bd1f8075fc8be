"""pytest-html and pytest-json-report, installed for real: gold cases in the reports they write."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from .conftest import STOREFRONT_CASES, Shop

GOLD = (
    "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\n" + STOREFRONT_CASES
)
PLAIN = "def test_plain():\n    assert True\n"


@pytest.fixture
def project(shop: Shop) -> Shop:
    shop.gold(GOLD)
    shop.write("test_plain.py", PLAIN)
    return shop


def html_data(page: str) -> dict[str, Any]:
    """The test data pytest-html 4 keeps as JSON in the page."""
    blob = re.search(r'data-jsonblob="(.*?)"', page, flags=re.DOTALL)
    assert blob, "no data-jsonblob in the page"
    data: dict[str, Any] = json.loads(html.unescape(blob.group(1)))
    return data


def test_pytest_html_gains_verdict_and_rank_columns(project):
    pytest.importorskip("pytest_html")
    result = project.run("--html", "page.html", "--self-contained-html")
    result.assert_outcomes(passed=2, failed=4)
    page = (project.path / "page.html").read_text(encoding="utf-8")
    header = re.search(r"<thead.*?</thead>", page, flags=re.DOTALL).group(0)
    assert re.search(r">Test</th>.*>Verdict</th>.*>Rank</th>.*>Duration</th>", header, re.DOTALL)
    rows = {
        test_id: run[0]["resultsTableRow"]
        for test_id, run in html_data(page)["tests"].items()
        if not test_id.endswith(("::setup", "::teardown"))
    }
    assert rows["gold/policies.yaml::warranty"][2:4] == [
        '<td class="col-verdict">split</td>',
        '<td class="col-rank"></td>',
    ]
    hit = next(cells for test_id, cells in rows.items() if test_id.startswith("gold/"))
    assert any('<td class="col-verdict">hit</td>' in cells for cells in rows.values()), rows
    assert len(hit) == len(rows["test_plain.py::test_plain"])
    assert rows["test_plain.py::test_plain"][2:4] == [
        '<td class="col-verdict"></td>',
        '<td class="col-rank"></td>',
    ]


def test_a_failing_case_s_extra_section_shows_the_message_and_the_chunks(project):
    pytest.importorskip("pytest_html")
    project.run("--html", "page.html", "--self-contained-html")
    tests = html_data((project.path / "page.html").read_text(encoding="utf-8"))["tests"]
    (call,) = [run for run in tests["gold/policies.yaml::refund-window"] if run["extras"]]
    (extra,) = call["extras"]
    assert extra["format_type"] == "html"
    shown = html.unescape(extra["content"])
    assert "chunkrecall: split: What is the refund window?" in shown
    assert "The refund w|indow is 30 days" in shown
    assert "before the cut: docs/policies.md[0:80] chunk 0:" in shown
    passed = [run for run in tests["test_plain.py::test_plain"] if run["extras"]]
    assert passed == []


def test_ranked_out_extra_names_the_chunk_that_held_the_answer(shop):
    pytest.importorskip("pytest_html")
    shop.gold(
        "corpus: ../docs/policies.md\nchunker_args: {size: 120, overlap: 60}\nk: 1\n"
        "cases:\n  - id: warranty\n    question: restocking fee percent opened returns\n"
        "    needle: 12 months\n"
    )
    shop.run("--html", "page.html", "--self-contained-html")
    tests = html_data((shop.path / "page.html").read_text(encoding="utf-8"))["tests"]
    (call,) = [run for run in tests["gold/policies.yaml::warranty"] if run["extras"]]
    shown = html.unescape(call["extras"][0]["content"])
    assert "chunkrecall: ranked_out" in shown
    assert "the chunk that holds '12 months'" in shown
    assert "12 months" in shown.split("the chunk that holds", 1)[1].split("\n", 2)[1]


def test_pytest_json_report_carries_each_case_s_entry(project):
    pytest.importorskip("pytest_jsonreport")
    result = project.run("--json-report", "--json-report-file", "tests.json")
    result.assert_outcomes(passed=2, failed=4)
    data = json.loads((project.path / "tests.json").read_text(encoding="utf-8"))
    tests = {test["nodeid"]: test for test in data["tests"]}
    entry = tests["gold/policies.yaml::refund-window"]["metadata"]["chunkrecall"]
    assert entry["nodeid"] == "gold/policies.yaml::refund-window"
    assert (entry["gold_file"], entry["id"], entry["verdict"]) == (
        "gold/policies.yaml",
        "refund-window",
        "split",
    )
    assert entry["span_split"] is True and entry["rank"] is None
    hits = [t for t in tests.values() if t.get("metadata", {}).get("chunkrecall", {}).get("rank")]
    assert len(hits) == 1 and hits[0]["metadata"]["chunkrecall"]["verdict"] == "hit"
    assert "metadata" not in tests["test_plain.py::test_plain"]


def test_a_known_miss_shows_its_miss_explained_and_no_traceback(project):
    pytest.importorskip("pytest_html")
    baseline = ("--chunkrecall-baseline", "baseline.json")
    assert project.run("--chunkrecall-update-baseline", *baseline).ret == pytest.ExitCode.OK
    result = project.run(*baseline, "--html", "page.html", "--self-contained-html")
    result.assert_outcomes(passed=2, xfailed=4)
    tests = html_data((project.path / "page.html").read_text(encoding="utf-8"))["tests"]
    (call,) = [run for run in tests["gold/policies.yaml::warranty"] if run["result"] == "XFailed"]
    log = html.unescape(call["log"])
    assert log.startswith("chunkrecall: split"), log
    assert "question: warranty coverage" in log
    assert "Traceback" not in log and "XFailed" not in log and "pytest_chunkrecall" not in log
