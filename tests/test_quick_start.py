"""The quick start's outcome, as a fresh clone gets it, against what the README and the manual say.

The first quick-start command installs pytest-chunkrecall alone (``pip install -e .``), so
the example project runs without wordllama and chromadb. That environment is rebuilt here:
a folder holding only the distributions pytest-chunkrecall requires (transitively, without
extras), linked from this interpreter's site-packages, and this checkout's package; pytest
then runs in an interpreter that sees nothing else (``-I -S``), in a copy of the example.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MANUAL = (ROOT / "docs" / "example-project.md").read_text(encoding="utf-8")
# pytest's final line, e.g. "==== 131 passed, 21 skipped, 3 xfailed in 1.71s ===="
COUNT = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)\b")
RUN = "import sys; sys.path.insert(0, sys.argv.pop(1)); import pytest; raise SystemExit(pytest.main())"


def counts(text: str) -> dict[str, int]:
    return {word: int(number) for number, word in COUNT.findall(text)}


def requirements(name: str) -> dict[str, metadata.Distribution]:
    """``name``'s distribution and every one it requires, without extras."""
    found: dict[str, metadata.Distribution] = {}
    todo = [name]
    while todo:
        wanted = canonicalize_name(todo.pop())
        if wanted in found:
            continue
        found[wanted] = dist = metadata.distribution(wanted)
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def base_install(site: Path) -> Path:
    """``site`` holding what ``pip install -e .`` installs, this checkout's package included."""
    site.mkdir()
    required = requirements("pytest-chunkrecall")
    # this checkout's own metadata may be the egg-info beside it, which lists the source tree:
    # its package is linked from the checkout, and its metadata (the pytest11 entry point)
    # written as an installed distribution's
    own = required.pop("pytest-chunkrecall")
    info = site / f"pytest_chunkrecall-{own.version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(own.read_text("PKG-INFO") or own.read_text("METADATA") or "")
    (info / "entry_points.txt").write_text(own.read_text("entry_points.txt") or "")
    for dist in required.values():
        for top in sorted({Path(str(file)).parts[0] for file in dist.files or []}):
            # an editable install's finder and .pth point elsewhere; scripts live outside
            if top.startswith(("..", "__editable__", "__pycache__")) or top.endswith(".pth"):
                continue
            (site / top).symlink_to(dist.locate_file(top))
    (site / "pytest_chunkrecall").symlink_to(ROOT / "pytest_chunkrecall")
    return site


def final_line(stdout: str) -> str:
    return next(line for line in reversed(stdout.splitlines()) if line.startswith("="))


def run_example(python_args: list[str], workdir: Path) -> subprocess.CompletedProcess[str]:
    shutil.copytree(ROOT / "example_project", workdir / "example_project")
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    return subprocess.run(
        [sys.executable, *python_args, "example_project", "-p", "no:cacheprovider"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_a_fresh_clone_gets_the_outcome_the_quick_start_states(tmp_path: Path) -> None:
    site = base_install(tmp_path / "site")
    assert not (site / "wordllama").exists() and not (site / "chromadb").exists()
    result = run_example(["-I", "-S", "-c", RUN, str(site)], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    got = counts(final_line(result.stdout))
    claimed = re.search(r"^# \((\d+ passed, \d+ skipped, \d+ xfailed): ", README, re.MULTILINE)
    assert claimed is not None, "the quick start states the example's outcome"
    assert got == counts(claimed.group(1))
    manual = re.search(
        r"# (\d+ passed, \d+ skipped, \d+ xfailed) after pip install -e \.$", MANUAL, re.MULTILINE
    )
    assert manual is not None
    assert got == counts(manual.group(1))
    # what the answers cost, as the manual's summary page quotes the example's
    summary_page = (ROOT / "docs" / "summary.md").read_text(encoding="utf-8")
    context = re.search(r"^context: .* hits per 1k chars$", summary_page, re.MULTILINE)
    assert context is not None
    assert context.group(0) in result.stdout.splitlines()


@pytest.mark.slow
@pytest.mark.skipif(
    find_spec("wordllama") is None or find_spec("chromadb") is None,
    reason="the outcome with the integration extras needs wordllama and chromadb",
)
def test_with_the_integration_extras_nothing_skips(tmp_path: Path) -> None:
    # this interpreter's site-packages, with this checkout's package first
    result = run_example(["-c", RUN, str(ROOT), "-p", "no:randomly"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    claimed = re.search(
        r"# (\d+ passed, \d+ xfailed) after pip install -e '\.\[test,integration\]'", MANUAL
    )
    assert claimed is not None
    assert counts(final_line(result.stdout)) == counts(claimed.group(1))
