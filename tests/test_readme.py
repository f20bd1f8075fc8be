"""The README's first gold file and the manual's five-minute tutorial, run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TUTORIAL = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")


def section(title: str, text: str = README) -> str:
    """From the heading ``title`` (of any level) to the next heading of level 2 or 3."""
    start = re.search(rf"^#+ {re.escape(title)}", text, flags=re.MULTILINE).start()
    end = re.compile(r"^#{2,3} ", flags=re.MULTILINE).search(text, start + 1)
    return text[start : end.start() if end else None]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


@pytest.fixture
def tutorial(pytester: pytest.Pytester) -> pytest.Pytester:
    first = section("1. A first gold file")
    document = blocks(first, "text")[0]
    pytester.mkdir("docs")
    (pytester.path / "docs" / "policies.md").write_text(" ".join(document.split()))
    pytester.mkdir("gold")
    (pytester.path / "gold" / "policies.yaml").write_text(blocks(first, "yaml")[0])
    return pytester


def printed_lines(block: str, start: str, end: str) -> list[str]:
    lines = block.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    last = next(i for i, line in enumerate(lines) if i > first and line.startswith(end))
    return lines[first : last + 1]


def test_the_first_failure_is_printed_as_the_readme_shows(tutorial):
    shown = blocks(section("2. The first failure"), "text")[0]
    result = tutorial.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    expected = printed_lines(shown, "chunkrecall: split", "    1. docs/policies.md")
    expected += printed_lines(shown, "chunkrecall: hit-rate", "verdicts:")
    for line in expected:
        assert line in result.outlines, line


def test_the_sweep_is_printed_as_the_readme_shows(tutorial):
    shown = blocks(section("4. Fixing the chunker", TUTORIAL), "text")[0]
    command, *table = shown.splitlines()
    spec = re.search(r'--chunkrecall-sweep "(.*)"', command).group(1)
    result = tutorial.runpytest("--chunkrecall-sweep", spec)
    start = result.outlines.index(table[0])
    assert result.outlines[start : start + len(table)] == table


def test_the_fix_and_the_expected_failure_work_as_described(tutorial):
    gold = tutorial.path / "gold" / "policies.yaml"
    fixed = gold.read_text().replace("{size: 80, overlap: 0}", "{size: 80, overlap: 28}")
    ceiling = blocks(section("4. Fixing the chunker", TUTORIAL), "yaml")[0]
    gold.write_text(fixed + ceiling)
    result = tutorial.runpytest()
    result.assert_outcomes(passed=2, xfailed=1)
    result.stdout.fnmatch_lines(
        ["chunkrecall: hit-rate 2/3 (66.7%) [95% CI 20.8-93.9%], split spans 1"]
    )
    quoted = re.search(
        r"`(! 1 span longer than every chunk[^`]*)`", TUTORIAL.replace("\n", " ")
    ).group(1)
    assert f"  {' '.join(quoted.split())}" in result.outlines


def test_the_tutorial_starts_from_the_readme_s_gold_file_and_failure():
    for title in ("1. A first gold file", "2. The first failure"):
        for language in ("text", "yaml"):
            assert blocks(section(title, TUTORIAL), language) == blocks(section(title), language)


def test_ci_runs_the_quick_start_commands_as_written():
    quick_start = section("Quick start")
    commands = [
        line
        for line in blocks(quick_start, "sh")[0].splitlines()
        if line and not line.startswith("#")
    ]
    ci = (Path(__file__).parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    assert len(commands) == 2
    for command in commands:
        assert command in ci.splitlines()
