"""The recipes of the manual (docs/recipes.md), run exactly as written."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
RECIPES = ROOT / "docs" / "recipes.md"
MARKER = "<!-- chunkrecall recipes:"


def recipe_section() -> str:
    """The recipes page from its marker on: every section below it is a recipe."""
    text = RECIPES.read_text(encoding="utf-8")
    return text[text.index(MARKER) :]


# What each recipe imports, so that it skips (with a reason) where a library is missing.
NEEDS = {
    "LangChain": ("langchain_text_splitters", "langchain_core", "wordllama"),
    "LlamaIndex": ("llama_index.core", "wordllama"),
    "chonkie": ("chonkie",),
    "semchunk": ("semchunk",),
    "A dense retriever with wordllama": ("wordllama", "numpy"),
}


def _importable(module: str) -> bool:
    # Imported here, at collection, so that the library outlives each run's
    # module snapshot: numpy cannot be loaded twice in one process.
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


MISSING = {m for needs in NEEDS.values() for m in needs if not _importable(m)}
_FILE_BLOCK = re.compile(r"^`([\w./-]+)`:\n```\w*\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def recipes(markdown: str) -> dict[str, dict[str, str]]:
    """Each ``## title`` section's files: the path in backticks, then its fenced block."""
    found = {}
    for section in re.split(r"^## ", markdown, flags=re.MULTILINE)[1:]:
        title, _, body = section.partition("\n")
        found[title.strip()] = dict(_FILE_BLOCK.findall(body))
    return found


@pytest.mark.parametrize("title", list(NEEDS))
def test_a_recipe_imports_nothing_deprecated(tmp_path, title):
    """What users copy must not teach them a deprecated or unmaintained library.

    The recipe's modules and the ones its ini file names are imported in a fresh interpreter, where a warning
    raised at import is not hidden by a library this process loaded already.
    """
    missing = [m for m in NEEDS[title] if m in MISSING]
    if missing:
        pytest.skip(f"the {title} recipe needs {', '.join(missing)} (the integration extra)")
    files = recipes(recipe_section())[title]
    modules = [name[: -len(".py")].replace("/", ".") for name in files if name.endswith(".py")]
    # and the libraries the ini file names, such as a chunker class
    modules += re.findall(r"^chunkrecall_\w+ = ([\w.]+):", files["pytest.ini"], re.MULTILINE)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    imports = "; ".join(f"import {module}" for module in modules)
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", imports],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_every_recipe_is_run():
    assert set(recipes(recipe_section())) == set(NEEDS)


@pytest.mark.parametrize("title", list(NEEDS))
def test_a_recipe_runs_as_written(pytester, guide, title):
    missing = [m for m in NEEDS[title] if m in MISSING]
    if missing:
        pytest.skip(f"the {title} recipe needs {', '.join(missing)} (the integration extra)")
    files = recipes(recipe_section())[title]
    assert "pytest.ini" in files and "gold/policies.yaml" in files
    for name, text in {**files, "docs/guide.md": guide}.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    cases = files["gold/policies.yaml"].count("  - id: ")
    result = pytester.runpytest(
        "-W", "ignore::DeprecationWarning", "--chunkrecall-report", "report.json"
    )
    result.assert_outcomes(passed=cases)
    totals = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))["totals"]
    assert (totals["hits"], totals["cases"], totals["split_spans"]) == (cases, cases, 0)
