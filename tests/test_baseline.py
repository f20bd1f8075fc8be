"""The CI gate: a baseline of accepted verdicts, regressions, known misses, gates and CI reports."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import POLICIES, STOREFRONT_CASES

CORPUS = POLICIES

CASES = STOREFRONT_CASES + (
    "  - id: yaml-xfail\n"
    "    question: How much is customs clearance per parcel?\n"
    "    needle: 9 dollars per parcel\n"
    "    xfail: the corpus prices customs per kilogram\n"
)

BASELINE = "ci/baseline.json"


class Shop:
    """A small project: one document, one gold file, a chunker overlap to turn down."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        pytester.mkdir("docs")
        (pytester.path / "docs" / "policies.md").write_text(CORPUS)
        pytester.mkdir("gold")
        pytester.mkdir("ci")
        self.ini()
        self.overlap(24)

    def ini(self, *lines: str) -> None:
        settings = [
            "chunkrecall_corpus = docs/*.md",
            "chunkrecall_k = 1",
            f"chunkrecall_baseline = {BASELINE}",
        ]
        (self.pytester.path / "pytest.ini").write_text(
            "\n".join(["[pytest]", *settings, *lines]) + "\n"
        )

    def overlap(self, value: int) -> None:
        (self.pytester.path / "gold" / "policies.yaml").write_text(
            f"chunker_args: {{size: 80, overlap: {value}}}\n" + CASES
        )

    @property
    def baseline(self) -> Path:
        return self.pytester.path / BASELINE

    def run(self, *args: str, subprocess: bool = False) -> pytest.RunResult:
        if subprocess:
            return self.pytester.runpytest_subprocess(*args)
        return self.pytester.runpytest(*args)

    def report(self, *args: str) -> tuple[pytest.RunResult, dict]:
        """Run with a JSON report; the result and the parsed report."""
        path = self.pytester.path / "r.json"
        path.unlink(missing_ok=True)
        result = self.run("--chunkrecall-report", str(path), *args)
        assert path.exists(), result.stdout.str()
        return result, json.loads(path.read_text())


@pytest.fixture
def shop(pytester: pytest.Pytester) -> Shop:
    return Shop(pytester)


def accepted(shop: Shop) -> dict:
    result = shop.run("--chunkrecall-update-baseline")
    assert result.ret == pytest.ExitCode.OK
    return json.loads(shop.baseline.read_text())


# ------------------------------------------------------------ writing


def test_update_records_every_case_readably_and_misses_do_not_fail(shop):
    result = shop.run("--chunkrecall-update-baseline")
    result.assert_outcomes(passed=4, xfailed=2)
    assert "chunkrecall: baseline ci/baseline.json written: 6 cases" in result.outlines
    text = shop.baseline.read_text()
    data = json.loads(text)
    assert data["chunkrecall_baseline"] == 1
    cases = data["gold_files"]["gold/policies.yaml"]["cases"]
    # a hit's context to the answer, for the cost gate; a miss has none
    assert cases["refund-window"] == {
        "verdict": "hit",
        "rank": 1,
        "span_split": False,
        "context_to_answer": 80,
    }
    assert cases["customs"] == {"verdict": "split", "rank": None, "span_split": True}
    assert data["gold_files"]["gold/policies.yaml"]["setup"]["chunker_args"] == {
        "overlap": 24,
        "size": 80,
    }
    assert data["totals"] == {"cases": 6, "hits": 4, "hit_rate": 0.666667, "split_spans": 1}
    # one case per line, in a stable order, so that a review diff names the cases
    case_lines = [line.strip() for line in text.splitlines() if '"verdict"' in line]
    assert len(case_lines) == 6
    assert case_lines == sorted(case_lines)
    assert shop.run("--chunkrecall-update-baseline").ret == 0
    assert shop.baseline.read_text() == text


def test_update_keeps_deselected_cases_and_drops_cases_that_are_gone(shop):
    accepted(shop)
    shop.run("--chunkrecall-update-baseline", "-k", "refund")
    cases = json.loads(shop.baseline.read_text())["gold_files"]["gold/policies.yaml"]["cases"]
    assert len(cases) == 6
    gold = shop.pytester.path / "gold" / "policies.yaml"
    gold.write_text(gold.read_text().split("  - id: restocking")[0])
    shop.run("--chunkrecall-update-baseline")
    cases = json.loads(shop.baseline.read_text())["gold_files"]["gold/policies.yaml"]["cases"]
    assert sorted(cases) == ["express", "refund-window", "warranty"]


# ------------------------------------------------------------ comparing


def test_degraded_chunker_fails_exactly_the_lost_cases_as_regressions(shop):
    accepted(shop)
    shop.overlap(0)
    result, report = shop.report()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, failed=3, xfailed=2)
    lost = ["refund-window", "express", "warranty"]
    compared = report["baseline"]
    assert compared["regressions"] == [f"gold/policies.yaml::{case}" for case in lost]
    assert compared["known_misses"] == [
        "gold/policies.yaml::customs",
        "gold/policies.yaml::yaml-xfail",
    ]
    assert (compared["improvements"], compared["new"], compared["removed"]) == ([], [], [])
    assert (compared["baseline_hits"], compared["hits"], compared["drop_points"]) == (4, 1, 50.0)
    assert compared["gate_failures"]
    outcomes = {case["id"]: (case["verdict"], case["outcome"]) for case in report["cases"]}
    assert {case: outcomes[case] for case in lost} == dict.fromkeys(lost, ("split", "failed"))
    assert outcomes["customs"] == ("split", "xfailed")
    # the message of a regression names the baseline rank first
    failure = result.outlines.index(
        "chunkrecall: regression — a hit at rank 1 in the baseline, now split"
    )
    assert result.outlines[failure + 1].startswith("chunkrecall: split — ")


def test_each_case_records_its_change_against_the_baseline_as_a_value(shop):
    """The change is a value on the case's entry, the one the annotations and the failure
    message read, and the comparison's lists agree with it."""
    accepted(shop)
    shop.overlap(0)
    _, report = shop.report()
    changes = {case["id"]: case["baseline"]["change"] for case in report["cases"]}
    assert changes == {
        "refund-window": "regression",
        "express": "regression",
        "warranty": "regression",
        "restocking": "still_hit",
        "customs": "known_miss",
        "yaml-xfail": "known_miss",
    }
    regressed = [
        f"gold/policies.yaml::{c}" for c, change in changes.items() if change == "regression"
    ]
    assert sorted(report["baseline"]["regressions"]) == sorted(regressed)
    assert all(case["baseline"]["document_changed"] is False for case in report["cases"])


def test_known_misses_are_expected_failures_and_a_yaml_xfail_keeps_its_reason(shop):
    accepted(shop)
    result, report = shop.report("-rx")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=4, xfailed=2)
    assert report["baseline"]["known_misses"] == [
        "gold/policies.yaml::customs",
        "gold/policies.yaml::yaml-xfail",
    ]
    assert "gate_failures" not in report["baseline"] or not report["baseline"]["gate_failures"]
    reasons = {
        line.split(" - ")[0]: line.split(" - ", 1)[1]
        for line in result.outlines
        if line.startswith("XFAIL ")
    }
    # pytest 8.3 and older write "reason: " before an imperative xfail's reason
    assert reasons["XFAIL gold/policies.yaml::customs"].endswith("known miss in baseline: split")
    assert reasons["XFAIL gold/policies.yaml::yaml-xfail"].endswith(
        ": the corpus prices customs per kilogram"
    )
    assert "to accept this state" not in result.stdout.str()


def test_restoring_the_chunker_passes_again_and_improvements_are_listed(shop):
    shop.overlap(0)
    accepted(shop)
    shop.overlap(24)
    result, report = shop.report()
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=4, xfailed=2)
    compared = report["baseline"]
    assert compared["improvements"] == [
        f"gold/policies.yaml::{case}" for case in ("refund-window", "express", "warranty")
    ]
    assert (len(compared["regressions"]), len(compared["known_misses"])) == (0, 2)
    assert report["comparison"]["improvements"] == 3


def test_new_cases_are_listed_and_deselected_cases_are_not_removed(shop):
    accepted(shop)
    gold = shop.pytester.path / "gold" / "policies.yaml"
    gold.write_text(
        gold.read_text()
        + "  - id: fee-again\n    question: restocking fee percent\n    needle: 15 percent\n"
    )
    _, report = shop.report("-k", "fee or refund")
    compared = report["baseline"]
    assert compared["new"] == ["gold/policies.yaml::fee-again"]
    assert compared["removed"] == []  # deselected, not gone
    assert (compared["regressions"], compared["improvements"], compared["known_misses"]) == (
        [],
        [],
        [],
    )
    gold.write_text(gold.read_text().replace("id: warranty", "id: warranty-renamed"))
    _, report = shop.report()
    assert report["baseline"]["removed"] == ["gold/policies.yaml::warranty"]
    assert "gold/policies.yaml::warranty-renamed" in report["baseline"]["new"]


def test_a_baseline_of_other_gold_files_makes_every_case_new_and_says_so(shop):
    accepted(shop)
    data = json.loads(shop.baseline.read_text())
    data["gold_files"] = {"gold/other.yaml": data["gold_files"]["gold/policies.yaml"]}
    shop.baseline.write_text(json.dumps(data))
    result, report = shop.report()
    assert (len(report["baseline"]["new"]), len(report["baseline"]["removed"])) == (6, 6)
    assert (
        "chunkrecall: none of this run's gold files is in baseline ci/baseline.json "
        "(it has 6 cases of gold/other.yaml): is it this project's baseline?"
    ) in result.outlines


# ------------------------------------------------------------ gates


def test_min_hit_rate_gate_fails_the_run_with_a_reason(shop):
    shop.ini("chunkrecall_min_hit_rate = 0.9")
    accepted_run = shop.run("--chunkrecall-update-baseline")
    assert (
        accepted_run.ret == pytest.ExitCode.TESTS_FAILED
    )  # 4/6 is below 90 % whatever the baseline
    result, report = shop.report()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=4, xfailed=2)
    assert report["totals"]["hit_rate"] == pytest.approx(4 / 6)
    assert report["baseline"]["gate_failures"] == [
        "hit-rate 66.7% is below chunkrecall_min_hit_rate 90.0%"
    ]


def test_max_drop_allows_a_drop_up_to_the_limit(shop):
    accepted(shop)
    shop.overlap(0)
    shop.ini("chunkrecall_max_drop = 60")
    result, report = shop.report()
    assert report["baseline"]["drop_points"] == 50.0
    assert not report["baseline"].get("gate_failures")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the regressions themselves still fail
    result.assert_outcomes(passed=1, failed=3, xfailed=2)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "chunkrecall_max_drop",
            "lots",
            "ini option chunkrecall_max_drop must be a number from 0 to 100, not 'lots'",
        ),
        (
            "chunkrecall_min_hit_rate",
            "80",
            "ini option chunkrecall_min_hit_rate must be from 0 to 1, not 80",
        ),
    ],
)
def test_bad_gate_values_are_usage_errors(shop, option, value, message):
    shop.ini(f"{option} = {value}")
    result = shop.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


# ------------------------------------------------------------ bad baselines


def test_missing_baseline_says_how_to_create_it(shop):
    result = shop.run()
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: no baseline at ci/baseline.json yet: create it with pytest --chunkrecall-update-baseline"
        ]
    )
    assert not shop.baseline.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"chunkrecall_baseline": 1, "gold_files": {',
            "*baseline ci/baseline.json is not valid JSON (line 1*",
        ),
        (
            '{"results": []}',
            "*ci/baseline.json is not a chunkrecall baseline (it has no 'chunkrecall_baseline' key)*",
        ),
        (
            '{"chunkrecall_baseline": 7, "gold_files": {}}',
            "*has format 7, and this pytest-chunkrecall reads format 1; upgrade*",
        ),
        (
            '{"chunkrecall_baseline": 1, "gold_files": {"g.yaml": {"cases": {"a": {"verdict": "great"}}}}}',
            "*baseline ci/baseline.json is damaged: g.yaml::a has no known verdict (one of hit, split, ranked_out, absent, *)*",
        ),
    ],
    ids=["corrupt", "foreign", "future", "damaged"],
)
@pytest.mark.parametrize("update", [False, True], ids=["compare", "update"])
def test_a_bad_baseline_is_a_usage_error_and_stays_untouched(shop, content, message, update):
    shop.baseline.write_text(content)
    result = shop.run(*(["--chunkrecall-update-baseline"] if update else []))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stderr.str()
    assert shop.baseline.read_text() == content


def test_update_without_a_path_is_a_usage_error(pytester):
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest("--chunkrecall-update-baseline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --chunkrecall-update-baseline needs to know where to write: add --chunkrecall-baseline PATH*"
        ]
    )


def test_update_into_a_missing_folder_is_a_usage_error(shop):
    result = shop.run("--chunkrecall-update-baseline", "--chunkrecall-baseline", "nowhere/b.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: cannot write baseline nowhere/b.json: the folder * does not exist; create it first"
        ]
    )


def test_update_into_a_read_only_folder_is_a_usage_error(shop, monkeypatch):
    folder = shop.pytester.path / "ci"
    if os.geteuid() == 0:  # root writes anywhere: let the check meet a refusal all the same
        real_access = os.access
        monkeypatch.setattr(
            os,
            "access",
            lambda path, mode: False if Path(path) == folder else real_access(path, mode),
        )
    folder.chmod(0o555)
    try:
        result = shop.run("--chunkrecall-update-baseline")
    finally:
        folder.chmod(0o755)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: cannot write baseline ci/baseline.json: * is read-only*"])
    assert not shop.baseline.exists()


def test_an_interrupted_update_writes_nothing(shop):
    accepted(shop)
    before = shop.baseline.read_text()
    (shop.pytester.path / "gold" / "broken.yaml").write_text("cases: [\n")
    shop.overlap(0)
    result = shop.run("--chunkrecall-update-baseline")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert shop.baseline.read_text() == before


# ------------------------------------------------------------ CI reports


def test_junit_xml_carries_verdict_rank_and_span_split(shop):
    accepted(shop)
    result = shop.run("--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.OK
    tree = ET.parse(shop.pytester.path / "junit.xml")
    properties = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in tree.iter("testcase")
    }
    assert properties["refund-window"] == {
        "verdict": "hit",
        "rank": "1",
        "span_split": "False",
        "context": "80",
        "context_to_answer": "80",
    }
    assert properties["customs"] == {
        "verdict": "split",
        "rank": "",
        "span_split": "True",
        "context": "80",
        "context_to_answer": "",
    }


def test_markdown_summary_names_regressions_and_worst_splits(shop, monkeypatch):
    accepted(shop)
    shop.overlap(0)
    step_summary = shop.pytester.path / "step-summary.md"
    step_summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    shop.run("--chunkrecall-markdown", "out/summary.md")
    text = (shop.pytester.path / "out" / "summary.md").read_text()
    assert text.startswith(
        "## chunkrecall: hit-rate 1/6 (16.7%) [95% CI 3.0-56.4%], split spans 4 — failed"
    )
    assert "| `gold/policies.yaml` | 1/6 (16.7%) [95% CI 3.0-56.4%] | 4 | 7 |" in text
    assert "### Regressions (3)" in text
    assert "- `gold/policies.yaml::refund-window`: hit at rank 1 → **split**" in text
    assert "### Worst split spans" in text
    assert "| `gold/policies.yaml::customs` | 114 chars |" in text
    assert "**Gate failed:** hit-rate fell 50.0 points" in text
    assert "`pytest --chunkrecall-update-baseline`" in text
    assert step_summary.read_text() == "# earlier step\n" + text


# ------------------------------------------------------------ xdist


def _normalised_json(path: Path) -> dict:
    return json.loads(path.read_text())


def _summary(result: pytest.RunResult) -> list[str]:
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "= chunkrecall =" in line)
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith("="))
    return lines[start:end]


@pytest.mark.parametrize("workers", ["2", pytest.param("4", marks=pytest.mark.slow)])
def test_xdist_gives_the_same_summary_reports_and_baseline_as_a_serial_run(shop, workers):
    accepted(shop)
    shop.overlap(0)
    outputs = {}
    # the serial run needs no process of its own; xdist's workers do
    for mode, extra in (("serial", ["-p", "no:xdist"]), ("xdist", ["-n", workers])):
        result = shop.run(
            *extra,
            f"--chunkrecall-report={mode}.json",
            f"--chunkrecall-markdown={mode}.md",
            f"--junitxml={mode}.xml",
            subprocess=mode == "xdist",
        )
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.assert_outcomes(passed=1, failed=3, xfailed=2)
        outputs[mode] = result
    assert _summary(outputs["serial"]) == [
        line.replace("xdist.json", "serial.json") for line in _summary(outputs["xdist"])
    ]
    path = shop.pytester.path
    assert _normalised_json(path / "serial.json") == _normalised_json(path / "xdist.json")
    assert (path / "serial.md").read_text() == (path / "xdist.md").read_text()

    def properties(name: str) -> dict:
        tree = ET.parse(path / name)
        return {
            c.get("name"): sorted((p.get("name"), p.get("value")) for p in c.iter("property"))
            for c in tree.iter("testcase")
        }

    assert properties("serial.xml") == properties("xdist.xml")


@pytest.mark.slow
def test_update_under_xdist_writes_the_same_baseline(shop):
    serial = accepted(shop)
    shop.baseline.unlink()
    result = shop.run("--chunkrecall-update-baseline", "-n", "2", subprocess=True)
    assert result.ret == pytest.ExitCode.OK
    assert json.loads(shop.baseline.read_text()) == serial
    assert sorted(p.name for p in (shop.pytester.path / "ci").iterdir()) == ["baseline.json"]


@pytest.mark.slow
def test_a_crashed_worker_does_not_take_the_summary_with_it(shop):
    shop.pytester.makeconftest(
        """
        import os
        from pytest_chunkrecall.retrievers import bm25

        def crashing(chunks):
            search = bm25(chunks)
            def ask(question, k):
                if "warranty" in question:
                    os._exit(3)
                return search(question, k)
            return ask

        def pytest_chunkrecall_retriever(config, gold_path):
            return crashing
        """
    )
    result = shop.run("-n", "2", "--chunkrecall-report=r.json", subprocess=True)
    # the case that crashed its worker has no verdict; every other case is counted
    result.stdout.fnmatch_lines(
        ["*worker 'gw*' crashed while running 'gold/policies.yaml::warranty'*"]
    )
    report = json.loads((shop.pytester.path / "r.json").read_text())
    assert report["totals"]["cases"] == 5
    assert (report["totals"]["hits"], report["totals"]["split_spans"]) == (3, 1)
    assert report["totals"]["verdicts"] == {
        "hit": 3,
        "split": 1,
        "ranked_out": 0,
        "absent": 1,
        "unparsed": 0,
        "reranked_out": 0,
        "leaked": 0,
    }
    assert "gold/policies.yaml::warranty" not in {case["nodeid"] for case in report["cases"]}
    assert report["unevaluated"] == ["gold/policies.yaml::warranty"]
    assert "Traceback" not in "\n".join(_summary(result))


def test_the_plugin_works_where_xdist_is_not_installed(shop, monkeypatch):
    # Without plugin autoloading only what is named is loaded, as if xdist were not installed.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    shop.pytester.makeconftest(
        """
        import sys

        def pytest_sessionfinish(session):
            print("xdist imported:", "xdist" in sys.modules)
        """
    )
    accepted_run = shop.run(
        "-p", "pytest_chunkrecall.plugin", "--chunkrecall-update-baseline", subprocess=True
    )
    accepted_run.assert_outcomes(passed=4, xfailed=2)
    result = shop.run(
        "-p", "pytest_chunkrecall.plugin", "-s", "--chunkrecall-report", "r.json", subprocess=True
    )
    result.assert_outcomes(passed=4, xfailed=2)
    assert any(line.endswith("xdist imported: False") for line in result.outlines)
    report = json.loads((shop.pytester.path / "r.json").read_text())
    assert (report["totals"]["hits"], report["totals"]["cases"]) == (4, 6)
    assert report["baseline"]["known_misses"] == [
        "gold/policies.yaml::customs",
        "gold/policies.yaml::yaml-xfail",
    ]


def test_the_markdown_summary_says_failed_when_a_case_fails_without_a_baseline(shop):
    shop.run("--chunkrecall-markdown", "m.md")  # no baseline yet: customs fails plainly
    text = (shop.pytester.path / "m.md").read_text()
    assert text.startswith(
        "## chunkrecall: hit-rate 4/6 (66.7%) [95% CI 30.0-90.3%], split spans 1 — failed"
    )


def test_selecting_only_new_cases_raises_no_alarm_about_the_baseline(shop):
    accepted(shop)
    gold = shop.pytester.path / "gold" / "policies.yaml"
    gold.write_text(
        gold.read_text()
        + "  - id: fee-again\n    question: restocking fee percent\n    needle: 15 percent\n"
    )
    result, report = shop.report("-k", "fee-again")
    assert "is it this project's baseline" not in result.stdout.str()
    assert report["baseline"]["new"] == ["gold/policies.yaml::fee-again"]


@pytest.mark.parametrize(
    "extra",
    [("-p", "no:xdist"), pytest.param(("-n", "2"), marks=pytest.mark.slow)],
    ids=["serial", "xdist"],
)
def test_a_failure_is_one_line_in_the_short_summary_even_on_ci(shop, monkeypatch, extra):
    """On CI pytest does not trim the short summary; the explanation stays in FAILURES."""
    monkeypatch.setenv("CI", "true")
    shop.overlap(0)
    result = shop.run(*extra, "-rf", "--junitxml=junit.xml", subprocess="-n" in extra)
    headline = (
        "chunkrecall: split — the span is in the corpus,"
        " but no single chunk holds it whole: chunking lost it before ranking"
    )
    output = result.stdout.lines
    start = next(i for i, line in enumerate(output) if "short test summary" in line)
    summary = output[start + 1 :]
    failed = [line for line in summary if line.startswith("FAILED")]
    assert len(failed) == 4
    assert f"FAILED gold/policies.yaml::refund-window - {headline}" in failed
    assert summary[len(failed)].startswith("=")  # nothing between the one-line entries
    asked = result.outlines.index("  question: What is the refund window?")
    assert result.outlines[asked - 1 : asked + 2] == [
        headline,
        "  question: What is the refund window?",
        "  needle:   '30 days'",
    ]
    tree = ET.parse(shop.pytester.path / "junit.xml")
    messages = {
        c.get("name"): f.get("message") for c in tree.iter("testcase") for f in c.iter("failure")
    }
    assert messages["refund-window"] == headline
