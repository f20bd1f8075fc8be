"""The two gates against a baseline of 200 cases, and the paired comparison in the report."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

CASES = 200
BASELINE = "ci/baseline.json"

# The retriever returns the line that answers a question unless the question's item is in
# misses.txt: which cases hit is the scenario's to set, run by run.
RETRIEVER = """
from pathlib import Path


def build(chunks, **ignored):
    misses = set(Path("misses.txt").read_text().split())

    def search(question, k):
        item = question.split()[-1].rstrip("?")
        if item in misses:
            return [c for c in chunks if item not in c.text][:k]
        return [c for c in chunks if f"item {item} " in c.text][:k]

    return search


def lines(text):
    return text.splitlines(keepends=True)
"""


class Scenario:
    """200 cases over a generated corpus, one fact per line and one chunk per line."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        pytester.makepyfile(scenario_search=RETRIEVER)
        facts = "".join(
            f"The code of item {n:03d} is Q{n * 7919 % 100000:05d}X.\n" for n in range(CASES)
        )
        pytester.mkdir("docs")
        (pytester.path / "docs" / "facts.md").write_text(facts)
        pytester.mkdir("gold")
        pytester.mkdir("ci")
        cases = "".join(
            f"  - id: c{n:03d}-{'even' if n % 2 == 0 else 'odd'}\n"
            f"    question: What is the code of item {n:03d}?\n"
            f"    needle: Q{n * 7919 % 100000:05d}X\n"
            for n in range(CASES)
        )
        (pytester.path / "gold" / "facts.yaml").write_text(
            "corpus: ../docs/facts.md\nchunker: scenario_search:lines\n"
            "retriever: scenario_search:build\nk: 1\ncases:\n" + cases
        )
        self.ini()

    def ini(self, *lines: str) -> None:
        self.pytester.makeini("\n".join(["[pytest]", "pythonpath = .", *lines]) + "\n")

    def misses(self, items: set[int]) -> None:
        (self.pytester.path / "misses.txt").write_text(" ".join(f"{n:03d}" for n in sorted(items)))

    def run(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest("-p", "no:cacheprovider", *args)

    def accept_baseline(self, hits: int = 160) -> None:
        self.misses(set(range(hits, CASES)))
        result = self.run("--chunkrecall-update-baseline", "--chunkrecall-baseline", BASELINE)
        assert result.ret == 0, result.stdout.str()

    def report(self, name: str) -> dict[str, Any]:
        return json.loads((self.pytester.path / name).read_text())


@pytest.fixture
def scenario(pytester: pytest.Pytester) -> Scenario:
    return Scenario(pytester)


EIGHT_THREE = set(range(8)) | set(range(163, CASES))  # 8 regressions, 3 improvements (160-162)


def gate_line(result: pytest.RunResult) -> str:
    return next(line for line in result.outlines if line.startswith("chunkrecall gate:"))


@pytest.mark.slow
def test_eight_regressions_fail_the_cases_gate(scenario: Scenario) -> None:
    scenario.accept_baseline()
    scenario.misses(EIGHT_THREE)
    result = scenario.run("--chunkrecall-baseline", BASELINE, "--chunkrecall-report", "r.json")
    assert result.ret == 1
    result.assert_outcomes(passed=155, failed=8, xfailed=37)
    line = gate_line(result)
    assert line.startswith(
        "chunkrecall gate: 3 improvements, 8 regressions: no significant change "
        "(McNemar exact, one-sided: worse p = 0.113, better p = 0.967, neither < 0.05); "
    )
    assert line.endswith("the gate fails: gate 'cases' fails on every regression")
    comparison = scenario.report("r.json")["comparison"]
    assert list(comparison) == [
        "cases", "regressions", "improvements", "hit_rate_before", "hit_rate_after",
        "delta_points", "ci95_points", "p_value", "decision", "context",
    ]  # fmt: skip
    assert comparison["p_value"] == 0.113281  # 232/2048, to six digits


@pytest.mark.slow
def test_eight_regressions_pass_the_significant_gate(scenario: Scenario) -> None:
    scenario.accept_baseline()
    scenario.misses(EIGHT_THREE)
    scenario.ini("chunkrecall_gate = significant")
    result = scenario.run("--chunkrecall-baseline", BASELINE, "--chunkrecall-report", "r.json")
    assert result.ret == 0
    result.assert_outcomes(passed=155, xfailed=45)
    line = gate_line(result)
    assert line.startswith(
        "chunkrecall gate: 3 improvements, 8 regressions: no significant change "
        "(McNemar exact, one-sided: worse p = 0.113, better p = 0.967, neither < 0.05); "
        "hit-rate 80.0% -> 77.5% over 200 compared cases (-2.5 pts, 95% CI ["
    )
    assert line.endswith("]); the gate passes")
    report = scenario.report("r.json")
    comparison = report["comparison"]
    assert comparison["cases"] == CASES
    assert (comparison["regressions"], comparison["improvements"]) == (8, 3)
    assert (comparison["hit_rate_before"], comparison["hit_rate_after"]) == (0.8, 0.775)
    assert comparison["delta_points"] == -2.5
    assert comparison["p_value"] == 0.113281
    assert comparison["decision"] == "no_difference"
    low, high = comparison["ci95_points"]
    assert low < -2.5 < high
    regressed = report["cases"][0]
    assert regressed["id"] == "c000-even" and regressed["outcome"] == "xfailed"
    reasons = [r.wasxfail for r in result.reprec.getreports("pytest_runtest_logreport")  # type: ignore[attr-defined]
               if hasattr(r, "wasxfail") and "c000" in r.nodeid]  # fmt: skip
    assert reasons[0].startswith("regression (hit at rank 1 in the baseline, now ranked_out)")
    assert "the total decides" in reasons[0]


@pytest.mark.slow
def test_thirty_regressions_fail_the_significant_gate(scenario: Scenario) -> None:
    scenario.accept_baseline()
    scenario.misses(set(range(30)) | set(range(160, CASES)))
    scenario.ini("chunkrecall_gate = significant")
    result = scenario.run("--chunkrecall-baseline", BASELINE, "--chunkrecall-report", "r.json")
    assert result.ret == 1
    result.assert_outcomes(passed=130, xfailed=70)
    line = gate_line(result)
    assert line.startswith(
        "chunkrecall gate: 0 improvements, 30 regressions: worse "
        "(McNemar exact, one-sided p = 9.3e-10 < 0.05); "
    )
    assert line.endswith("the gate fails")
    (failure,) = scenario.report("r.json")["baseline"]["gate_failures"]
    assert failure == (
        "hit-rate against baseline ci/baseline.json is worse (McNemar exact, one-sided "
        "p = 9.3e-10 < 0.05), a drop of 15.0 pts (chunkrecall_min_effect is 0)"
    )
    comparison = scenario.report("r.json")["comparison"]
    assert comparison["decision"] == "worse"
    assert comparison["p_value"] == float(f"{0.5**30:.6g}")
    assert comparison["delta_points"] == -15.0


@pytest.mark.slow
def test_min_effect_lets_a_small_significant_drop_pass(scenario: Scenario) -> None:
    scenario.accept_baseline()
    scenario.misses(set(range(30)) | set(range(160, CASES)))
    scenario.ini("chunkrecall_gate = significant", "chunkrecall_min_effect = 20")
    result = scenario.run("--chunkrecall-baseline", BASELINE)
    assert result.ret == 0
    line = gate_line(result)
    assert line.startswith("chunkrecall gate: 0 improvements, 30 regressions: worse (McNemar")
    assert line.endswith(
        "the drop of 15.0 pts is under the minimum effect of 20 pts: the gate passes"
    )


@pytest.mark.slow
def test_max_drop_and_min_hit_rate_still_gate_under_significant(scenario: Scenario) -> None:
    scenario.accept_baseline()
    scenario.misses(EIGHT_THREE)
    scenario.ini(
        "chunkrecall_gate = significant",
        "chunkrecall_max_drop = 2",
        "chunkrecall_min_hit_rate = 0.78",
    )
    result = scenario.run("--chunkrecall-baseline", BASELINE, "--chunkrecall-report", "r.json")
    assert result.ret == 1
    assert scenario.report("r.json")["baseline"]["gate_failures"] == [
        "hit-rate 77.5% is below chunkrecall_min_hit_rate 78.0%",
        "hit-rate fell 2.5 points against the baseline on the 200 cases both have"
        " (chunkrecall_max_drop is 2)",
    ]


@pytest.mark.slow
def test_the_summary_and_markdown_show_intervals(scenario: Scenario) -> None:
    scenario.accept_baseline()
    scenario.misses(EIGHT_THREE)
    result = scenario.run(
        "--chunkrecall-baseline",
        BASELINE,
        "--chunkrecall-markdown",
        "m.md",
        "--chunkrecall-report",
        "r.json",
    )
    # 155/200 by the Wilson score formula, worked out here: 0.7123 .. 0.8274
    z, share, n = 1.959964, 155 / 200, 200
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    report = scenario.report("r.json")
    for totals in (report["totals"], report["gold_files"][0]["totals"]):
        assert (totals["hits"], totals["cases"]) == (155, 200)
        assert totals["hit_rate_ci95"] == [
            pytest.approx(centre - half, abs=1e-5),
            pytest.approx(centre + half, abs=1e-5),
        ]
    assert "[95% CI 71.2-82.7%]" in result.stdout.str()
    text = (scenario.pytester.path / "m.md").read_text()
    assert text.startswith(
        "## chunkrecall: hit-rate 155/200 (77.5%) [95% CI 71.2-82.7%], split spans 0 — failed"
    )
    # the gate's sentence is the terminal's, word for word
    assert f"**{gate_line(result)}**" in text.splitlines()
    assert "chunkrecall gate: 3 improvements, 8 regressions: no significant change" in text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("chunkrecall_gate = strict", "ini option chunkrecall_gate must be one of cases, significant, not 'strict'"),
        ("chunkrecall_alpha = 0", "ini option chunkrecall_alpha must be above 0 and at most 0.5, not 0"),
        ("chunkrecall_alpha = 0.7", "ini option chunkrecall_alpha must be above 0 and at most 0.5, not 0.7"),
        ("chunkrecall_alpha = often", "ini option chunkrecall_alpha must be a number above 0 and at most 0.5, not 'often'"),
        ("chunkrecall_min_effect = -1", "ini option chunkrecall_min_effect must be from 0 to 100, not -1"),
    ],
)  # fmt: skip
def test_bad_gate_options_are_usage_errors_before_any_test(
    scenario: Scenario, line: str, message: str
) -> None:
    scenario.misses(set())
    scenario.ini(line)
    result = scenario.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "passed" not in result.stdout.str()


@pytest.mark.slow
def test_a_compare_run_names_what_changed_and_how_to_accept_it(scenario: Scenario) -> None:
    path = scenario.pytester.path
    facts = path / "docs" / "facts.md"
    lines = facts.read_text().splitlines(keepends=True)
    facts.write_text("".join(lines[:100]))
    (path / "docs" / "more.md").write_text("".join(lines[100:]))
    gold = path / "gold" / "facts.yaml"
    gold.write_text(gold.read_text().replace("../docs/facts.md", "../docs/*.md"))
    scenario.accept_baseline()
    scenario.misses({0, 100} | set(range(160, CASES)))
    changed = facts.read_text().replace("item 000 is Q00000X.", "item 000 is Q00000X, checked.")
    facts.write_text(changed)
    (path / "docs" / "extra.md").write_text("Nothing about items here.\n")
    args = ("-o", "chunkrecall_match=exact", "--chunkrecall-k", "2")
    result = scenario.run(
        "--chunkrecall-baseline", BASELINE, "--chunkrecall-report", "r.json", *args
    )
    assert result.ret == 1
    # a regression whose document changed says so in its message
    assert (
        "chunkrecall: regression — a hit at rank 1 in the baseline, now ranked_out "
        "(document changed since the baseline)"
    ) in result.outlines
    # the command to accept this state repeats the options that made it (run below)
    assert (
        "chunkrecall: to accept this state as the new baseline, run: pytest "
        "--chunkrecall-update-baseline --chunkrecall-baseline ci/baseline.json "
        "-o chunkrecall_match=exact --chunkrecall-k 2"
    ) in result.outlines
    drift = scenario.report("r.json")["baseline"]["drift"]
    assert drift == {
        "setup": {"gold/facts.yaml": ["k: 1 -> 2", 'match: "normalized" -> "exact"']},
        "documents_changed": ["docs/facts.md"],
        "documents_added": ["docs/extra.md"],
        "documents_removed": [],
        "documents_read_differently": [],
    }
    assert scenario.report("r.json")["baseline"]["documents_changed_regressions"] == [
        "gold/facts.yaml::c000-even"
    ]
    # The printed command accepts exactly this state: afterwards nothing has changed.
    accepted = scenario.run(
        "--chunkrecall-update-baseline", "--chunkrecall-baseline", BASELINE, *args
    )
    assert accepted.ret == 0
    again = scenario.run(
        "--chunkrecall-baseline", BASELINE, "--chunkrecall-report", "r.json", *args
    )
    assert again.ret == 0
    compared = scenario.report("r.json")["baseline"]
    assert (compared["regressions"], compared["improvements"]) == ([], [])
    assert not any(compared.get("drift", {}).values())
    assert "changed since baseline" not in again.stdout.str()
