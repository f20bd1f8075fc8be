"""The ``chunkrecall-validate`` pre-commit hook, run by the real ``pre-commit try-repo``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
GOOD = """\
corpus: ../docs/*.md
cases:
  - id: refund
    question: What is the refund window?
    needle: 30 days
"""
BAD = """\
corpus: ../docs/*.md
cases:
  - id: express
    question: How fast is express shipping?
    needle: 3 business days
"""


def _pre_commit() -> str:
    """The ``pre-commit`` of this interpreter's environment, else the one on the PATH."""
    beside = Path(sys.executable).parent / "pre-commit"
    found = str(beside) if beside.exists() else shutil.which("pre-commit")
    if found is None:
        pytest.skip(
            "pre-commit is not installed (pip install pre-commit, part of the 'test' extra)"
        )
    if not (REPOSITORY / ".git").exists() or shutil.which("git") is None:
        pytest.skip("pre-commit try-repo needs this repository as a git checkout, and git")
    return found


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


@pytest.mark.slow
def test_try_repo_passes_the_good_gold_file_and_names_the_bad_one(tmp_path, tmp_path_factory):
    pre_commit = _pre_commit()
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "gold").mkdir()
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (project / "docs" / "policies.md").write_text(
        "The refund window is 30 days from delivery.\nExpress shipping takes 2 business days.\n",
        encoding="utf-8",
    )
    (project / "gold" / "good.yaml").write_text(GOOD, encoding="utf-8")
    (project / "gold" / "bad.yaml").write_text(BAD, encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    environment = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home")),
        "PYTHONPATH": "",  # the hook runs the package pre-commit installed, not this checkout
    }

    def try_repo(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [pre_commit, "try-repo", str(REPOSITORY), "chunkrecall-validate", *args],
            cwd=project,
            env=environment,
            capture_output=True,
            text=True,
            timeout=600,
        )

    every = try_repo("--all-files")
    assert every.returncode == 1, every.stdout + every.stderr
    assert (
        "gold/bad.yaml:3: case 'express': needle '3 business days' is not in the corpus; "
        'closest: "2 business days" (docs/policies.md:2)'
    ) in every.stdout
    assert "gold/good.yaml" not in every.stdout
    assert "validate: 2 gold files, 2 cases: 1 problem" in every.stdout
    good = try_repo("--files", "gold/good.yaml")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "chunkrecall validate" in good.stdout and "Passed" in good.stdout
