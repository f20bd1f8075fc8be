"""The CI workflows the manual shows, run here step by step as written."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import QUIET_ADDOPTS, Shop
from .test_action import GOLD, run_action

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_GATE = (ROOT / "docs" / "ci-gate.md").read_text(encoding="utf-8")
AT_SCALE = (ROOT / "docs" / "ci-at-scale.md").read_text(encoding="utf-8")
GITHUB_OWN = ("actions/checkout@", "actions/setup-python@", "actions/cache/", "actions/upload-artifact@", "actions/download-artifact@")  # fmt: skip
THIS_ACTION = "pytest-chunkrecall/pytest-chunkrecall@"


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def installs_the_plugin(command: str) -> bool:
    """A ``pip install`` line: not run here (this environment has everything installed)."""
    return command.startswith("pip install ") and "pytest-chunkrecall" in command


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """``python`` and ``pytest`` on PATH, both this test environment's interpreter."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name, command in (("python", ""), ("pytest", "-m pytest")):
        script = folder / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" {command} "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder


def shell(command: str, cwd: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTEST_ADDOPTS"] = QUIET_ADDOPTS
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def gate_workflow() -> str:
    """The manual's workflow that accepts a baseline on push and gates pull requests."""
    (workflow,) = [block for block in yaml_blocks(CI_GATE) if "Restore the baseline" in block]
    return workflow


def test_the_readme_points_to_the_manual_s_workflow():
    assert "(docs/ci-gate.md#github-actions)" in README
    assert "pull_request" in gate_workflow()


def run_readme_workflow(shop: Shop, tmp: Path, bin_dir: Path, event: str) -> tuple[Any, list[str]]:
    """Each step of the manual's gate job, for a ``push`` or a ``pull_request`` event, as a
    runner takes them: once a step failed, only a step whose condition asks for it runs.
    Returns what the action gave and the names of the steps that ran."""
    workflow = gate_workflow()
    steps = yaml.safe_load(workflow)["jobs"]["recall"]["steps"]
    ran, failed, names = None, False, []
    for step in steps:
        if not _runs(step.get("if"), event, failed=failed):
            continue
        names.append(step.get("name") or step.get("uses") or step["run"])
        uses = step.get("uses", "")
        if uses.startswith(GITHUB_OWN):
            continue  # GitHub's own actions: checkout, setup-python, cache, artifacts
        if uses.startswith(THIS_ACTION):
            given = {key: str(value) for key, value in step["with"].items()}
            given = {key: _expression(value, event) for key, value in given.items()}
            ran = run_action(shop.path, tmp, summary=tmp / f"summary-{event}.md", **given)
            failed = failed or ran.status != 0
            continue
        command = step["run"].strip()
        if installs_the_plugin(command):
            continue
        done = shell(command, shop.path, bin_dir)
        assert done.returncode == 0, done.stderr
    assert ran is not None, "the manual's workflow does not use the action"
    return ran, names


def _expression(value: str, event: str) -> str:
    found = re.fullmatch(r"\$\{\{ (.*) \}\}", value)
    return str(_true(found.group(1), event)).lower() if found else value


def _runs(condition: str | None, event: str, *, failed: bool) -> bool:
    """Whether a step with ``if: condition`` runs, as GitHub decides it: a condition without
    a status function (always(), !cancelled(), failure()) runs only while no step failed."""
    terms = (condition or "").split(" && ") if condition else []
    status = [term for term in terms if term in ("always()", "!cancelled()", "failure()")]
    if not status and failed:
        return False
    if "failure()" in status and not failed:
        return False
    return all(_true(term, event) for term in terms if term not in status)


def _true(condition: str, event: str) -> bool:
    """The only conditions the manual's workflow has besides its status functions: the
    event's name."""
    found = re.fullmatch(r"github\.event_name == '(\w+)'", condition)
    assert found, f"the manual's workflow has a condition this test cannot evaluate: {condition}"
    return found.group(1) == event


def test_the_readme_workflow_accepts_on_push_and_gates_a_pull_request(shop, tmp_path, bin_dir):
    shop.gold(GOLD)
    pushed, _ = run_readme_workflow(shop, tmp_path, bin_dir, "push")
    assert pushed.status == 0, pushed.log
    assert (shop.path / ".chunkrecall" / "baseline.json").is_file()
    assert (shop.path / "chunkrecall.html").is_file()
    gold = shop.path / "gold" / "policies.yaml"
    gold.write_text(gold.read_text().replace("size: 400", "size: 60"), encoding="utf-8")
    pulled, _ = run_readme_workflow(shop, tmp_path, bin_dir, "pull_request")
    assert pulled.status == 1, pulled.log
    assert int(pulled.outputs["regressions"]) >= 1
    assert "regression" in pulled.summary.lower()


def test_a_push_with_a_gold_error_keeps_the_baseline_current_and_reports_it(
    shop, tmp_path, bin_dir
):
    """A needle the corpus lacks is a gold-data error: the push fails with it, and the
    baseline of that push is still written and saved, so that the next pull request is
    compared with the current state rather than a stale one."""
    shop.gold(GOLD)
    run_readme_workflow(shop, tmp_path, bin_dir, "push")
    gold = shop.path / "gold" / "policies.yaml"
    gold.write_text(
        gold.read_text().replace("size: 400", "size: 60")
        + "  - id: gift-wrap\n"
        + "    question: Is gift wrap free?\n"
        + "    needle: gift wrap is free\n",
        encoding="utf-8",
    )
    pushed, steps = run_readme_workflow(shop, tmp_path, bin_dir, "push")
    assert pushed.status == 1, pushed.log  # the gold error is reported, and fails the job
    assert "absent" in pushed.summary and "gift-wrap" in pushed.summary
    assert "Save the baseline of main" in steps
    saved = json.loads((shop.path / ".chunkrecall" / "baseline.json").read_text())
    cases = saved["gold_files"]["gold/policies.yaml"]["cases"]
    assert cases["warranty"]["verdict"] == "split"  # this push's state, not the last one's
    pulled, _ = run_readme_workflow(shop, tmp_path, bin_dir, "pull_request")
    assert pulled.outputs["regressions"] == "0", pulled.log


def matrix_commands(workflow: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The shard's commands and the gate's, from a GitHub or a GitLab workflow."""
    if "jobs" in workflow:
        shard, gate = (
            [step["run"] for step in workflow["jobs"][job]["steps"] if "run" in step]
            for job in ("shard", "gate")
        )
        return shard, gate
    return workflow["recall"]["script"], workflow["recall-gate"]["script"]


def group_command(command: str, group: int, groups: int) -> str:
    return (
        command.replace("${{ matrix.group }}", str(group))
        .replace("$CI_NODE_TOTAL", str(groups))
        .replace("$CI_NODE_INDEX", str(group))
    )


@pytest.mark.slow
@pytest.mark.parametrize("ci", ["GitHub Actions", "GitLab CI"])
def test_the_matrix_workflow_runs_as_written(pytester, bin_dir, ci):
    pytest.importorskip("pytest_split")
    github, gitlab = (yaml.safe_load(block) for block in yaml_blocks(AT_SCALE))
    workflow = github if ci == "GitHub Actions" else gitlab
    groups = 3
    if ci == "GitHub Actions":
        assert workflow["jobs"]["shard"]["strategy"]["matrix"]["group"] == [1, 2, 3]
    else:
        assert workflow["recall"]["parallel"] == groups
    project = pytester.path / "shop"
    shutil.copytree(ROOT / "example_project", project, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "ci").mkdir()  # where the project keeps its baseline
    for line in re.findall(r"^(pytest gold --\S+.*?)(?:  +#.*)?$", AT_SCALE, re.MULTILINE):
        done = shell(line, project, bin_dir)  # the durations, and the baseline
        assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((project / ".test_durations").read_text())
    shard, gate = matrix_commands(workflow)
    for group in range(1, groups + 1):
        for command in shard:
            if installs_the_plugin(command):
                continue
            done = shell(group_command(command, group, groups), project, bin_dir)
            assert done.returncode == 0, done.stdout + done.stderr
    for command in gate:
        if installs_the_plugin(command):
            continue
        done = shell(command, project, bin_dir)
        assert done.returncode == 0, done.stdout + done.stderr
    merged = json.loads((project / "merged.json").read_text())
    assert merged["totals"]["cases"] == 64
    assert (project / "chunkrecall.md").is_file()
