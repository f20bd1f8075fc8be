"""What the import and export tests share: running the command, and running pytest on its output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_chunkrecall.__main__ import main
from pytest_chunkrecall.gold import CASE_KEYS

from .conftest import QUIET

# Gold files written by the importers pin each case to its document with `doc:`.
# Until the gold-file reader knows that key, a project written as imported is a
# collection error, and the tests that run one are expected to fail (strictly:
# they turn red as soon as `doc:` is understood, so the mark cannot outlive its reason).
needs_doc_key = pytest.mark.xfail(
    "doc" not in CASE_KEYS,
    reason="gold files do not accept 'doc:' yet",
    strict=True,
)


def command(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """Run ``python -m pytest_chunkrecall ARGS`` in this process: exit status, stdout, stderr."""
    status = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_pytest(pytester: pytest.Pytester, project: Path, *args: str) -> dict[str, Any]:
    """Run pytest on ``project`` with ``--chunkrecall-report`` and return the parsed report."""
    report = project / "chunkrecall.json"
    result = pytester.runpytest(*QUIET, str(project), "--chunkrecall-report", str(report), *args)
    assert report.exists(), result.stdout.str()
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return data


def without_doc_keys(gold_file: Path) -> None:
    """Drop the ``doc:`` of every case (what the plugin can run before it knows that key)."""
    data = yaml.safe_load(gold_file.read_text(encoding="utf-8"))
    for case in data["cases"]:
        case.pop("doc", None)
    gold_file.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")


def files_under(folder: Path) -> list[str]:
    """Every file below ``folder``, relative to it (to show that nothing was written)."""
    if not folder.exists():
        return []
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
