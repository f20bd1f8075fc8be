"""One reader of an ini option's text: what pytest's run reads is what a command reads.

The plugin reads the ini file through pytest; ``python -m pytest_chunkrecall`` commands read
it without pytest (``find_project``). Both go through the row of the settings table, so the
same text gives the same value, or the same message, on both sides.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_chunkrecall.errors import ChunkrecallError
from pytest_chunkrecall.evaluation.project import find_project
from pytest_chunkrecall.plugin.ini import ini_given

# (row, the text after "chunkrecall_<row> =" in pytest.ini), over every kind a command reads.
INI_TEXTS = [
    ("k", "3"),
    ("k", "2.5"),
    ("k", "three"),
    ("k", "0"),
    ("candidates", "20"),
    ("fuzzy_threshold", "85"),
    ("fuzzy_threshold", "150"),
    ("fuzzy_threshold", "high"),
    ("match", "fuzzy"),
    ("match", "fuzy"),
    ("chunker_args", "{size: 80, overlap: 0}"),
    ("chunker_args", "{size: 80"),
    ("chunker_args", "[1, 2]"),
    ("chunker_args", "{size:80}"),
    ("chunker", "shop.ingest:chunk"),
    ("chunker", "shop.ingest"),
    ("corpus", "\n    docs/*.md\n    notes/*.md"),
    ("corpus", "docs/a.md docs/b.md"),
    ("gold", "\n    checks/*.yaml\n    more/*.yml"),
]

# The same values in pytest 9's native [tool.pytest] table, with TOML's own types.
NATIVE_TOML = [
    ("k", "3"),
    ("k", "2.5"),
    ("k", '"4"'),
    ("fuzzy_threshold", "85"),
    ("chunker_args", "{size = 80, overlap = 0}"),
    ("corpus", '["docs/*.md", "notes/*.md"]'),
    ("gold", '["checks/*.yaml"]'),
]


def _read_by_pytest(pytester: pytest.Pytester, name: str) -> Any:
    try:
        return ini_given(pytester.parseconfig(), name)
    except pytest.UsageError as exc:
        return f"error: {exc}"


def _read_by_a_command(pytester: pytest.Pytester, name: str) -> Any:
    try:
        project = find_project(pytester.path, fallback=pytester.path)
    except ChunkrecallError as exc:
        return f"error: {exc}"
    return project.gold if name == "gold" else getattr(project.ini, name)


@pytest.mark.parametrize("name, text", INI_TEXTS, ids=[f"{n}={t.strip()}" for n, t in INI_TEXTS])
def test_an_ini_files_text_reads_the_same_in_a_pytest_run_and_a_command(pytester, name, text):
    pytester.makeini(f"[pytest]\nchunkrecall_{name} = {text}\n")
    by_pytest = _read_by_pytest(pytester, name)
    assert by_pytest is not None
    assert _read_by_a_command(pytester, name) == by_pytest


@pytest.mark.skipif(pytest.version_tuple < (9,), reason="pytest 9 reads the native table")
@pytest.mark.parametrize("name, value", NATIVE_TOML, ids=[f"{n}={v}" for n, v in NATIVE_TOML])
def test_a_native_toml_value_reads_the_same_in_a_pytest_run_and_a_command(pytester, name, value):
    pytester.makepyprojecttoml(f"[tool.pytest]\nchunkrecall_{name} = {value}\n")
    by_pytest = _read_by_pytest(pytester, name)
    assert by_pytest is not None
    assert _read_by_a_command(pytester, name) == by_pytest


def test_both_readers_give_the_value_and_the_message_users_see(pytester):
    # The shared reader is not only consistent but right: the values a user means.
    pytester.makeini(
        "[pytest]\nchunkrecall_chunker_args = {size: 80, overlap: 0}\nchunkrecall_k = 3\n"
    )
    assert _read_by_a_command(pytester, "chunker_args") == {"size": 80, "overlap": 0}
    assert _read_by_a_command(pytester, "k") == 3
    pytester.makeini("[pytest]\nchunkrecall_k = 2.5\n")
    assert _read_by_a_command(pytester, "k") == (
        "error: ini option chunkrecall_k must be a whole number of chunks, e.g. 5, not '2.5'"
    )
