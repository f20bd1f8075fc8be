"""A run split into shards, merged and gated: the report, summary and exit status of one run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_chunkrecall.__main__ import main

from .test_gate import BASELINE, EIGHT_THREE, Scenario

pytestmark = pytest.mark.slow


@pytest.fixture
def scenario(pytester: pytest.Pytester) -> Scenario:
    return Scenario(pytester)


def section(lines: list[str]) -> list[str]:
    """The chunkrecall section of a summary, without the line that names the report's path."""
    start = next(i for i, line in enumerate(lines) if line.strip("= ") == "chunkrecall")
    found = []
    for line in lines[start + 1 :]:
        if line.startswith("=") and "chunkrecall" not in line:
            break
        if not line.startswith("chunkrecall: JSON report written to"):
            found.append(line)
    return found


def shards(scenario: Scenario, *args: str) -> None:
    for half in ("even", "odd"):
        scenario.run("-k", half, "--chunkrecall-report", f"{half}.json", *args)


@pytest.mark.parametrize(
    ("gate", "misses", "status"),
    [
        ("cases", EIGHT_THREE, 1),
        ("significant", EIGHT_THREE, 0),
        ("significant", set(range(30)) | set(range(160, 200)), 1),
    ],
)
def test_merged_shards_gate_as_the_single_run(
    scenario: Scenario,
    capsys: pytest.CaptureFixture[str],
    gate: str,
    misses: set[int],
    status: int,
) -> None:
    scenario.accept_baseline()
    scenario.misses(misses)
    scenario.ini(f"chunkrecall_gate = {gate}")
    single = scenario.run(
        "--chunkrecall-baseline", BASELINE, "--chunkrecall-report", "single.json",
        "--chunkrecall-markdown", "single.md",
    )  # fmt: skip
    assert single.ret == status
    shards(scenario)
    capsys.readouterr()
    assert main(["merge", "even.json", "odd.json", "--out", "merged.json"]) == 0
    assert capsys.readouterr().out == (
        "merge: 2 reports, 200 cases of 1 gold file -> merged.json\n"
    )
    compared = main(
        ["compare", "merged.json", "--baseline", BASELINE, "--gate", gate,
         "--markdown", "compared.md", "--report-out", "compared.json"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert compared == status
    assert scenario.report("compared.json") == scenario.report("single.json")
    path = scenario.pytester.path
    assert (path / "compared.md").read_text() == (path / "single.md").read_text()
    assert section(out.splitlines()) == section(single.outlines)


def test_merging_shards_without_a_baseline_gives_the_single_report(
    scenario: Scenario, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario.misses(set(range(150, 200)))
    single = scenario.run("--chunkrecall-report", "single.json")
    shards(scenario)
    assert main(["merge", "odd.json", "even.json", "--out", "merged.json"]) == 0
    assert scenario.report("merged.json") == scenario.report("single.json")
    assert single.ret == 1


def test_shards_under_xdist_merge_to_the_serial_report(
    scenario: Scenario, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario.accept_baseline()
    scenario.misses(EIGHT_THREE)
    scenario.ini("chunkrecall_gate = significant")
    serial = scenario.run("--chunkrecall-baseline", BASELINE, "--chunkrecall-report", "serial.json")
    parallel = scenario.pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--chunkrecall-baseline", BASELINE,
        "--chunkrecall-report", "parallel.json",
    )  # fmt: skip
    assert serial.ret == parallel.ret == 0
    assert scenario.report("parallel.json") == scenario.report("serial.json")
    assert section(parallel.outlines) == section(serial.outlines)
    for half in ("even", "odd"):
        scenario.pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "-n", "2", "-k", half, "--chunkrecall-report", f"{half}.json"
        )  # fmt: skip
    assert main(["merge", "even.json", "odd.json", "--out", "merged.json"]) == 0
    assert main(
        ["compare", "merged.json", "--baseline", BASELINE, "--gate", "significant",
         "--report-out", "compared.json"]
    ) == 0  # fmt: skip
    assert scenario.report("compared.json") == scenario.report("serial.json")


def error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return captured.err.strip()


def test_merge_refuses_what_is_not_one_run_of_shards(
    scenario: Scenario, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario.misses(set())
    shards(scenario)
    path = scenario.pytester.path
    even = json.loads((path / "even.json").read_text())
    (path / "again.json").write_text(json.dumps(even))
    assert error(capsys, "merge", "even.json", "again.json", "--out", "m.json") == (
        "error: gold/facts.yaml::c000-even is in both even.json and again.json: shards must not "
        "overlap (give every job its own gold files or its own slice)"
    )
    (path / "other.json").write_text('{"cases": []}')
    assert error(capsys, "merge", "even.json", "other.json", "--out", "m.json") == (
        "error: other.json is not a chunkrecall report (it has no 'chunkrecall_report' key); "
        "give files written by --chunkrecall-report"
    )
    (path / "broken.json").write_text('{"chunkrecall_report": 1,')
    assert error(capsys, "merge", "broken.json", "odd.json", "--out", "m.json").startswith(
        "error: broken.json is not valid JSON (line 1"
    )
    (path / "deep.json").write_text("[" * 100_000)
    assert error(capsys, "merge", "deep.json", "odd.json", "--out", "m.json") == (
        "error: deep.json is nested too deeply to be a chunkrecall report; "
        "give a file written by --chunkrecall-report"
    )
    (path / "future.json").write_text(json.dumps({**even, "chunkrecall_report": 2}))
    assert error(capsys, "merge", "future.json", "odd.json", "--out", "m.json") == (
        "error: the reports come from different pytest-chunkrecall versions (future.json has "
        "format 2, odd.json has format 1); run every shard with the same version"
    )
    (path / "m.json").write_text("keep me")
    assert error(capsys, "merge", "even.json", "odd.json", "--out", "m.json") == (
        "error: --out m.json: it exists; give another path, or add --force to replace it"
    )
    assert (path / "m.json").read_text() == "keep me"
    assert error(capsys, "merge", "even.json", "odd.json", "--out", "odd.json", "--force") == (
        "error: --out odd.json is one of the reports to merge; merge never overwrites its inputs"
    )
    assert main(["merge", "even.json", "odd.json", "--out", "m.json", "--force"]) == 0
    assert json.loads((path / "m.json").read_text())["totals"]["cases"] == 200


def test_merge_refuses_one_gold_file_with_two_setups(
    scenario: Scenario, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario.misses(set())
    scenario.run("-k", "even", "--chunkrecall-report", "even.json")
    gold = scenario.pytester.path / "gold" / "facts.yaml"
    gold.write_text(gold.read_text().replace("k: 1\n", "k: 2\n"))
    scenario.run("-k", "odd", "--chunkrecall-report", "odd.json")
    assert error(capsys, "merge", "even.json", "odd.json", "--out", "m.json") == (
        "error: gold/facts.yaml was evaluated with two setups: even.json and odd.json differ in "
        "k: 1 -> 2; run every shard with the same configuration and corpus"
    )
    assert not Path(scenario.pytester.path / "m.json").exists()


def test_compare_names_a_missing_baseline(
    scenario: Scenario, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario.misses(set())
    scenario.run("--chunkrecall-report", "r.json")
    assert error(capsys, "compare", "r.json", "--baseline", "ci/none.json").startswith(
        "error: baseline ci/none.json does not exist"
    )
    assert error(capsys, "compare", "r.json", "--baseline", "r.json").startswith(
        "error: r.json is not a chunkrecall baseline"
    )
    assert error(capsys, "compare", "r.json", "--baseline", "r.json", "--alpha", "0.7") == (
        "error: --alpha must be above 0 and at most 0.5, not 0.7"
    )
