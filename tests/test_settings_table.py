"""The table of settings: what it drives (registration, checks, docs), and every configuration
file form reaching the same checks, pytest 9's native TOML table included."""

from __future__ import annotations

import dataclasses
import json

import pytest

from pytest_chunkrecall.config.settings import Settings
from pytest_chunkrecall.config.table import GOLD_KEYS, SETTINGS, resolved_k

from .conftest import assert_no_internals, dedent
from .test_docs import reference_entries

NATIVE_TOML = pytest.mark.skipif(
    pytest.version_tuple < (9,), reason="pytest 9 reads the native [tool.pytest] table"
)

GOLD = dedent(
    """
    cases:
      - id: refund
        question: refund window
        needle: 30 days
    """
)


def test_every_row_of_the_table_has_exactly_one_entry_in_the_options_page():
    entries = reference_entries()
    assert {s.option: entries[s.option] for s in SETTINGS if entries[s.option] != 1} == {}


def test_the_settings_fields_are_the_rows_a_gold_file_may_set():
    own = [f.name for f in dataclasses.fields(Settings) if f.name not in ("corpus_base", "origins")]
    assert own == list(GOLD_KEYS)


def test_k_is_the_override_then_the_first_given_then_the_default():
    assert resolved_k(None, None, None) == 5
    assert resolved_k(None, None, 3) == 3
    assert resolved_k(None, 2, 3) == 2
    assert resolved_k(7, 2, 3) == 7


def test_help_lists_every_row_with_its_help(pytester):
    result = pytester.runpytest("--help")
    for setting in SETTINGS:
        result.stdout.fnmatch_lines([f"  {setting.option} (*):"])


def _configure(shop, name, text):
    """The project configured by ``name`` alone (the shop's own pytest.ini would win)."""
    (shop.path / "pytest.ini").unlink()
    shop.write(name, dedent(text))


def _report(shop):
    result = shop.run("--chunkrecall-report", "r.json")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    (gold,) = json.loads((shop.path / "r.json").read_text(encoding="utf-8"))["gold_files"]
    return gold


@NATIVE_TOML
def test_the_native_toml_table_takes_numbers_tables_and_lists(shop):
    _configure(
        shop,
        "pyproject.toml",
        """
            [tool.pytest]
            pythonpath = ["."]
            chunkrecall_corpus = ["docs/*.md"]
            chunkrecall_k = 2
            chunkrecall_chunker_args = {size = 80, overlap = 20}
            chunkrecall_retriever_args = {k1 = 1.2}
            chunkrecall_fuzzy_threshold = 85
            chunkrecall_alpha = 0.05
            chunkrecall_depth = 0
            chunkrecall_xdist_group = false
            """,
    )
    shop.gold(GOLD)
    gold = _report(shop)
    assert (gold["corpus"], gold["k"]) == ("docs/*.md", 2)
    assert gold["chunker_args"] == {"size": 80, "overlap": 20}
    assert gold["retriever_args"] == {"k1": 1.2}


@NATIVE_TOML
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("chunkrecall_k = 0", "ini option chunkrecall_k must be at least 1, not 0"),
        (
            "chunkrecall_k = true",
            "ini option chunkrecall_k must be a whole number of chunks, e.g. 5, not True",
        ),
        (
            "chunkrecall_k = 2.5",
            "ini option chunkrecall_k must be a whole number of chunks, e.g. 5, not 2.5",
        ),
        (
            "chunkrecall_alpha = 0.7",
            "ini option chunkrecall_alpha must be above 0 and at most 0.5*",
        ),
        (
            "chunkrecall_retriever_args = [1, 2]",
            "ini option chunkrecall_retriever_args must be a mapping of argument names*",
        ),
        (
            'chunkrecall_match = "fuzzzy"',
            "ini option chunkrecall_match must be one of*did you mean 'fuzzy'?",
        ),
        ("chunkrecall_repeat = 0", "ini option chunkrecall_repeat must be a whole number from 1*"),
    ],
    ids=lambda value: value.split(" =")[0] + value.split("=")[-1].strip(),
)
def test_a_bad_native_toml_value_gets_the_same_check_as_its_text(shop, line, message):
    _configure(shop, "pyproject.toml", f'[tool.pytest]\npythonpath = ["."]\n{line}\n')
    shop.gold("corpus: ../docs/*.md\n" + GOLD)
    result = shop.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert_no_internals(result)


@NATIVE_TOML
def test_one_pattern_in_the_native_table_may_be_text(shop):
    _configure(
        shop,
        "pyproject.toml",
        """
            [tool.pytest]
            pythonpath = ["."]
            chunkrecall_corpus = "docs/policies.md"
            """,
    )
    shop.gold(GOLD)
    assert _report(shop)["corpus"] == "docs/policies.md"


@NATIVE_TOML
def test_a_native_pytest_toml_file_takes_a_table_too(shop):
    _configure(
        shop,
        "pytest.toml",
        """
            [pytest]
            pythonpath = ["."]
            chunkrecall_corpus = ["docs/*.md"]
            chunkrecall_chunker_args = {size = 120, overlap = 30}
            """,
    )
    shop.gold(GOLD)
    assert _report(shop)["chunker_args"] == {"size": 120, "overlap": 30}


STRING_FORMS = {
    "pytest.ini": """
        [pytest]
        pythonpath = .
        chunkrecall_corpus = docs/*.md
        chunkrecall_k = 2
        chunkrecall_chunker_args = {size: 80, overlap: 20}
        chunkrecall_alpha = 0.05
        chunkrecall_xdist_group = no
        """,
    "tox.ini": """
        [pytest]
        pythonpath = .
        chunkrecall_corpus = docs/*.md
        chunkrecall_k = 2
        chunkrecall_chunker_args = {"size": 80, "overlap": 20}
        chunkrecall_alpha = 0.05
        chunkrecall_xdist_group = false
        """,
    "setup.cfg": """
        [tool:pytest]
        pythonpath = .
        chunkrecall_corpus = docs/*.md
        chunkrecall_k = 2
        chunkrecall_chunker_args = {size: 80, overlap: 20}
        chunkrecall_alpha = 0.05
        chunkrecall_xdist_group = off
        """,
    "pyproject.toml": """
        [tool.pytest.ini_options]
        pythonpath = ["."]
        chunkrecall_corpus = ["docs/*.md"]
        chunkrecall_k = "2"
        chunkrecall_chunker_args = "{size: 80, overlap: 20}"
        chunkrecall_alpha = "0.05"
        chunkrecall_xdist_group = "false"
        """,
}


@pytest.mark.parametrize("name", list(STRING_FORMS))
def test_the_string_forms_keep_working(shop, name):
    _configure(shop, name, STRING_FORMS[name])
    shop.gold(GOLD)
    gold = _report(shop)
    assert (gold["corpus"], gold["k"]) == ("docs/*.md", 2)
    assert gold["chunker_args"] == {"size": 80, "overlap": 20}


@pytest.mark.parametrize("name", ["pytest.ini", "pyproject.toml"])
def test_a_bad_text_value_names_the_option_in_every_form(shop, name):
    text = (
        '[tool.pytest.ini_options]\nchunkrecall_k = "three"\n'
        if name == "pyproject.toml"
        else "[pytest]\nchunkrecall_k = three\n"
    )
    _configure(shop, name, text)
    shop.gold("corpus: ../docs/*.md\n" + GOLD)
    result = shop.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: ini option chunkrecall_k must be a whole number of chunks, e.g. 5, not 'three'"]
    )
