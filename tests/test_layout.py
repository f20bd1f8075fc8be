"""The house rules that keep the package easy to walk through, checked as a newcomer would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_chunkrecall"


def modules() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.append(".".join(parts))
    return found


def test_nothing_outside_the_plugin_package_imports_pytest():
    core = [
        name
        for name in modules()
        if not name.startswith("pytest_chunkrecall.plugin")
        and name != "pytest_chunkrecall.__main__"
    ]
    assert len(core) > 20
    script = (
        "import importlib, json, sys\n"
        f"for name in {core!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_the_plugin_package_does_import_pytest():
    """The check above can fail: the same probe sees pytest when the plugin is imported."""
    script = (
        "import json, sys\nimport pytest_chunkrecall.plugin\n"
        "print(json.dumps('pytest' in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout.splitlines()[-1]) is True


def test_the_report_schema_rejects_what_the_report_must_not_be():
    """The schema the tests validate every report against can fail."""
    import jsonschema

    from .conftest import check_report

    good = {
        "chunkrecall_report": 1,
        "totals": {
            "cases": 1,
            "hits": 1,
            "hit_rate": 1.0,
            "hit_rate_ci95": [0.2, 1.0],
            "mrr": 1.0,
            "hit_rate_at": {"1": 1.0},
            "split_spans": 0,
            "verdicts": {"hit": 1, "split": 0, "ranked_out": 0, "absent": 0},
        },
        "gold_files": [],
        "cases": [],
        "unevaluated": [],
    }
    check_report(good)
    for broken in (
        {**good, "chunkrecall_report": 2},
        {**good, "totals": {**good["totals"], "hit_rate": 1.5}},
        {
            **good,
            "cases": [
                {
                    "nodeid": "g::a",
                    "gold_file": "g",
                    "id": "a",
                    "line": 1,
                    "verdict": "found",
                    "rank": 1,
                    "span_split": False,
                    "outcome": "passed",
                }
            ],
        },
    ):
        with pytest.raises(jsonschema.ValidationError):
            check_report(broken)
