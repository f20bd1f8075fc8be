"""pytest-split over gold cases: 3 groups by measured durations, merged and gated as one run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_chunkrecall.__main__ import main

from .conftest import QUIET
from .import_support import command

pytest.importorskip("pytest_split", reason="pytest-split is in the test extra")
pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[1] / "example_project"
GROUPS = 3


def _imported(capsys: pytest.CaptureFixture[str], data: Path, project: Path) -> None:
    status, _, err = command(
        capsys,
        "import",
        "chunking-evaluation",
        data / "questions_df.csv",
        "--corpora",
        data / "corpora",
        "--out",
        project,
    )
    assert status == 0, err
    capsys.readouterr()
    # two corpora of the five keep the four runs of each scenario short
    for gold in sorted((project / "gold").glob("*.yaml"))[2:]:
        gold.unlink()


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*QUIET, *args)


def read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def by_nodeid(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["nodeid"]: case for case in report["cases"]}


@pytest.fixture(params=["example_project", "chunking_evaluation"])
def project(
    request: pytest.FixtureRequest, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, list[str], list[str]]:
    """A project, the arguments its baseline is accepted with, and those it is measured with."""
    if request.param == "example_project":
        path = pytester.path / "shop"
        shutil.copytree(EXAMPLE, path, ignore=shutil.ignore_patterns("__pycache__", ".*cache"))
        return path, ["gold"], ["gold", "-o", "chunkrecall_chunker_args={size: 200, overlap: 0}"]
    data = request.getfixturevalue("chunking_evaluation")
    path = pytester.path / "chroma"
    _imported(capsys, data, path)
    return path, ["--chunkrecall-k", "5"], ["--chunkrecall-k", "2"]


def test_three_groups_merge_to_the_single_run(
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    project: tuple[Path, list[str], list[str]],
) -> None:
    path, accepted, measured = project
    monkeypatch.chdir(path)
    baseline, durations = str(path / "baseline.json"), str(path / "durations.json")
    first = run(
        pytester,
        *accepted,
        "--chunkrecall-baseline",
        baseline,
        "--chunkrecall-update-baseline",
    )
    assert first.ret in (0, 1), first.stdout.str()
    single = run(
        pytester,
        *measured,
        "--chunkrecall-baseline",
        baseline,
        "--chunkrecall-report",
        str(path / "single.json"),
        "--store-durations",
        "--durations-path",
        durations,
    )
    expected = read(path / "single.json")
    assert expected["comparison"]["regressions"] > 0  # the narrower setting costs something
    assert len(read(Path(durations))) == expected["totals"]["cases"]

    shards = []
    for group in range(1, GROUPS + 1):
        shard = str(path / f"shard-{group}.json")
        ran = run(
            pytester,
            *measured,
            "--splits",
            str(GROUPS),
            "--group",
            str(group),
            "--splitting-algorithm",
            "least_duration",
            "--durations-path",
            durations,
            "--chunkrecall-report",
            shard,
        )
        assert ran.ret in (0, 1), ran.stdout.str()
        shards.append(shard)
    sizes = [len(read(Path(shard))["cases"]) for shard in shards]
    assert sum(sizes) == expected["totals"]["cases"] and min(sizes) > 0, sizes

    capsys.readouterr()
    merged, compared = str(path / "merged.json"), str(path / "compared.json")
    assert main(["merge", *shards, "--out", merged]) == 0
    status = main(
        [
            "compare",
            merged,
            "--baseline",
            baseline,
            "--report-out",
            compared,
            "--rootdir",
            str(path),
        ]
    )
    assert status == single.ret
    gated = read(Path(compared))
    assert by_nodeid(gated) == by_nodeid(expected)
    assert gated["totals"] == expected["totals"]
    assert gated["comparison"] == expected["comparison"]
    assert gated["gold_files"] == expected["gold_files"]
