"""The manual: one reference entry for every option the plugin registers, and no stale one."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
OPTION = re.compile(r"`(--chunkrecall-[\w-]+|chunkrecall_\w+)(?: [A-Z]+)?`")


def registered(pytester: pytest.Pytester) -> set[str]:
    """Every flag and ini option of the plugin, as ``pytest --help`` lists them."""
    lines = pytester.runpytest("--help").outlines
    flags = {m.group(1) for line in lines if (m := re.match(r"^  (--chunkrecall-[\w-]+)", line))}
    ini = {m.group(1) for line in lines if (m := re.match(r"^  (chunkrecall_\w+) \(", line))}
    assert flags and ini, "\n".join(lines)
    return flags | ini


def reference_entries() -> Counter[str]:
    """How many headings of the manual name each option."""
    found: Counter[str] = Counter()
    for page in DOCS.glob("*.md"):
        fence = False
        for line in page.read_text(encoding="utf-8").splitlines():
            fence ^= line.startswith("```")
            if not fence and line.startswith("#"):
                found.update(m.group(1) for m in OPTION.finditer(line))
    return found


def test_every_option_has_exactly_one_reference_entry(pytester):
    options = registered(pytester)
    entries = reference_entries()
    assert {name: entries[name] for name in options if entries[name] != 1} == {}
    assert set(entries) - options == set(), "entries for options the plugin does not register"


def test_the_readme_names_the_python_versions_ci_runs():
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11's TOML reader")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    versions = [
        c.rsplit(" ", 1)[1] for c in project["classifiers"] if re.fullmatch(r".*:: 3\.\d+", c)
    ]
    assert project["requires-python"] == f">={versions[0]}"
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"It supports Python {versions[0]} to {versions[-1]}" in readme
    tried = re.search(r"for minor in ([\d ]+);", (ROOT / ".ci" / "wheel").read_text()).group(1)
    assert [f"3.{minor}" for minor in tried.split()] == versions


def test_every_page_is_in_the_manual_s_navigation():
    nav = re.findall(r"^  - [^:]+: ([\w-]+\.md)$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)
    assert sorted(nav) == sorted(page.name for page in DOCS.glob("*.md"))


def test_each_promise_of_the_manual_names_a_catalogue_row_that_exists():
    from .test_catalogue import ROWS

    safety = (DOCS / "safety.md").read_text(encoding="utf-8")
    section = safety.split("## What it never does", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r'\("([^"]+)"|, "([^"]+)"', " ".join(section.split()))
    rows = [first or second for first, second in named]
    assert len(rows) >= 20
    assert [row for row in rows if row not in ROWS] == []


LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown page, outside code fences."""
    found, fence = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        fence ^= line.startswith("```")
        if not fence and (heading := re.match(r"#+ (.*)", line)):
            words = re.sub(r"[^\w\- ]", "", heading.group(1).lower())
            found.add(words.replace(" ", "-"))
    return found


@pytest.mark.parametrize("name", ["README.md", "BENCHMARKS.md", "CHANGELOG.md"])
def test_each_link_of_a_top_level_page_reaches_a_file_and_heading_of_the_repository(name):
    page = ROOT / name
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"\w+:", target):
            continue  # a web address: not this repository's to keep
        path, _, anchor = target.partition("#")
        linked = (page.parent / path) if path else page
        if not linked.exists() or (anchor and anchor not in anchors(linked)):
            broken.append(target)
    assert broken == []
