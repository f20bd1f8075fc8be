"""The repository's composite GitHub Action, its shell steps run here as a runner runs them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from .conftest import QUIET_ADDOPTS, Shop

ACTION = yaml.safe_load((Path(__file__).parents[1] / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

GOLD = """\
    corpus: ../docs/policies.md
    chunker_args: {size: 400, overlap: 0}
    k: 1
    cases:
      - id: refund-window
        question: What is the refund window?
        needle: 30 days
        span: The refund window is 30 days
      - id: warranty
        question: How long does the warranty coverage run?
        needle: 12 months
        span: Warranty coverage runs 12 months
"""


@dataclass
class Ran:
    """What a job sees after the action: its exit status, log, outputs and step summary."""

    status: int
    log: str
    outputs: dict[str, str]
    summary: str


def _inputs(given: dict[str, str]) -> dict[str, str]:
    unknown = set(given) - set(ACTION["inputs"])
    assert not unknown, f"action.yml has no input {unknown}"
    return {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()} | given


def _evaluate(text: str, inputs: dict[str, str], steps: dict[str, dict[str, str]]) -> str:
    """The value of a ``${{ … }}`` template, for the only contexts the action may use."""

    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression.startswith("inputs."):
            return inputs[expression.removeprefix("inputs.")]
        found = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        assert found, f"action.yml uses {expression!r}, which this test cannot evaluate"
        return steps.get(found.group(1), {}).get(found.group(2), "")

    return EXPRESSION.sub(value, text)


def _read_outputs(path: Path) -> dict[str, str]:
    """A step's outputs as the runner reads them: ``name=value`` lines, and ``name<<DELIMITER``
    followed by the value's lines up to the delimiter's own line."""
    if not path.is_file():
        return {}
    outputs: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").split("\n"))
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for part in lines:
                if part == delimiter:
                    break
                value.append(part)
            else:
                raise AssertionError(f"{path}: {name} has no closing delimiter {delimiter!r}")
            outputs[name] = "\n".join(value)
        elif line:
            name, value_text = line.split("=", 1)
            outputs[name] = value_text
    return outputs


def run_action(
    project: Path, tmp: Path, *, summary: Path, unwritable: Path | None = None, **given: str
) -> Ran:
    """Run the action's steps in ``project`` with bash as a runner does; outputs per step.

    ``unwritable``: a path given as every step's ``GITHUB_OUTPUT`` that cannot be written.
    """
    inputs = _inputs({"python": sys.executable, **given})
    steps: dict[str, dict[str, str]] = {}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_"))}
    env |= {"GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(tmp), "CI": "true"}
    env["PYTEST_ADDOPTS"] = QUIET_ADDOPTS
    log, status, failed = [], 0, False
    assert ACTION["runs"]["using"] == "composite"
    for number, step in enumerate(ACTION["runs"]["steps"]):
        if failed and step.get("if") != "always()":
            continue
        assert step["shell"] == "bash"
        step_output = tmp / f"output-{number}"
        step_env = env | {k: _evaluate(v, inputs, steps) for k, v in step.get("env", {}).items()}
        step_env["GITHUB_OUTPUT"] = str(unwritable or step_output)
        script = tmp / f"step-{number}.sh"
        script.write_text(_evaluate(step["run"], inputs, steps), encoding="utf-8")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=project,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        log.append(done.stdout + done.stderr)
        steps[step.get("id", str(number))] = _read_outputs(step_output)
        status, failed = done.returncode, failed or done.returncode != 0
    outputs = {
        name: _evaluate(spec["value"], inputs, steps) for name, spec in ACTION["outputs"].items()
    }
    text = summary.read_text(encoding="utf-8") if summary.is_file() else ""
    return Ran(status, "\n".join(log), outputs, text)


@pytest.fixture
def project(shop: Shop) -> Shop:
    shop.gold(GOLD)
    return shop


def test_the_action_sets_its_outputs_and_the_step_summary(project, tmp_path):
    summary = tmp_path / "summary.md"
    accepted = run_action(
        project.path,
        tmp_path,
        summary=summary,
        baseline="baseline.json",
        **{"update-baseline": "true"},
    )
    assert accepted.status == 0, accepted.log
    assert (project.path / "baseline.json").is_file()
    assert accepted.outputs["hit-rate"] == "1.0"
    assert accepted.outputs["decision"] == ""  # written, not compared

    # a smaller window cuts the warranty's span: one regression against the baseline
    gold = project.path / "gold" / "policies.yaml"
    gold.write_text(gold.read_text().replace("size: 400", "size: 60"), encoding="utf-8")
    summary.unlink()
    ran = run_action(
        project.path,
        tmp_path,
        summary=summary,
        baseline="baseline.json",
        html="lab.html",
        report="out/report.json",
        **{"pytest-args": "gold -p no:cacheprovider"},
    )
    assert ran.status == 1, ran.log
    assert ran.outputs["decision"] in ("worse", "not_enough_evidence")
    assert int(ran.outputs["regressions"]) >= 1
    assert ran.outputs["improvements"] == "0"
    assert ran.outputs["report"] == "out/report.json"
    assert 0 <= float(ran.outputs["hit-rate"]) < 1
    assert (project.path / "out" / "report.json").is_file()
    assert (project.path / "lab.html").is_file()
    assert ran.summary.startswith("#") and "regression" in ran.summary.lower()


def test_a_gate_input_decides_as_the_ini_option_would(project, tmp_path):
    summary = tmp_path / "summary.md"
    first = run_action(
        project.path, tmp_path, summary=summary, baseline="b.json", **{"update-baseline": "true"}
    )
    assert first.status == 0, first.log
    gold = project.path / "gold" / "policies.yaml"
    gold.write_text(gold.read_text().replace("size: 400", "size: 60"), encoding="utf-8")
    # one regression out of two is not evidence of a worse retriever: the run passes
    ran = run_action(project.path, tmp_path, summary=summary, baseline="b.json", gate="significant")
    assert ran.status == 0, ran.log
    assert ran.outputs["decision"] == "not_enough_evidence"


def test_unwritable_output_files_are_warnings_and_leave_the_status(project, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    ran = run_action(project.path, tmp_path, summary=folder, unwritable=folder)
    assert ran.status == 0, ran.log
    assert "::warning title=chunkrecall::cannot write GITHUB_OUTPUT" in ran.log
    assert "cannot append to GITHUB_STEP_SUMMARY" in ran.log
    assert "Traceback" not in ran.log
    gold = project.path / "gold" / "policies.yaml"
    gold.write_text(gold.read_text().replace("size: 400", "size: 60"), encoding="utf-8")
    failing = run_action(project.path, tmp_path, summary=folder, unwritable=folder)
    assert failing.status == 1, failing.log


STALE = {
    "chunkrecall_report": 1,
    "totals": {"cases": 9, "hits": 9, "hit_rate": 1.0},
    "comparison": {"decision": "better", "regressions": 0, "improvements": 9},
}


def test_a_report_from_before_the_run_gives_no_outputs(project, tmp_path):
    # named *.report: the suite checks each *.json report a test leaves against the schema
    stale = project.path / "committed.report"
    stale.write_text(json.dumps(STALE), encoding="utf-8")
    before = stale.read_bytes()
    # a usage error: the run writes no report, and the committed one must not speak for it
    ran = run_action(
        project.path,
        tmp_path,
        summary=tmp_path / "s.md",
        report="committed.report",
        **{"pytest-args": "--chunkrecall-k 0"},
    )
    assert ran.status == 4, ran.log
    assert ran.outputs["hit-rate"] == "" and ran.outputs["decision"] == "", ran.outputs
    assert "this run wrote no report (see its log), so the action sets no outputs" in ran.log
    assert stale.read_bytes() == before


def test_a_report_without_totals_is_a_warning_not_a_traceback(project, tmp_path):
    # a plugin of the project rewrites the report as the run ends
    project.pytester.makeconftest(
        """
        import pathlib

        def pytest_unconfigure(config):
            pathlib.Path("r.report").write_text('{"chunkrecall_report": 1}')
        """
    )
    ran = run_action(project.path, tmp_path, summary=tmp_path / "s.md", report="r.report")
    assert ran.status == 0, ran.log
    assert "r.report is no chunkrecall report (it has no totals)" in ran.log
    assert "Traceback" not in ran.log and ran.outputs["hit-rate"] == ""


def test_a_line_break_in_the_report_input_adds_no_output(project, tmp_path):
    ran = run_action(
        project.path, tmp_path, summary=tmp_path / "s.md", report="r.json\ndecision=better"
    )
    # whether the run takes such a path or refuses it, no baseline means no decision
    assert ran.outputs["decision"] == "", (ran.outputs, ran.log)
    assert ran.outputs["report"] in ("", "r.json\ndecision=better"), ran.outputs


def test_an_emptied_report_input_still_gives_the_outputs(project, tmp_path):
    ran = run_action(project.path, tmp_path, summary=tmp_path / "s.md", report="")
    assert ran.status == 0, ran.log
    assert ran.outputs["hit-rate"] == "1.0"
    assert ran.outputs["report"] == str(tmp_path / "chunkrecall-report.json")
    assert not (project.path / "chunkrecall-report.json").exists()
