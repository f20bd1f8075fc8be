"""The report reader in the package refuses what the shipped JSON Schema refuses, and accepts the
reports a run writes; Markdown escaping shows user text literally."""

from __future__ import annotations

import json
from typing import Any, get_args

import jsonschema
import pytest

from pytest_chunkrecall.errors import ChunkrecallError
from pytest_chunkrecall.evaluation.results import VERDICTS, Verdict
from pytest_chunkrecall.render.markdown_text import markdown_text
from pytest_chunkrecall.run.entry import TestOutcome
from pytest_chunkrecall.run.report_shape import check_report

from .conftest import REPORT_SCHEMA
from .conftest import check_report as schema_check
from .test_catalogue import HIT, forged


def good() -> dict[str, Any]:
    return json.loads(forged())  # type: ignore[no-any-return]


def test_a_whole_report_passes_both() -> None:
    report = good()
    schema_check(report)
    assert check_report(report, name="r.json") is report


BROKEN = {
    "an unknown verdict": {"verdict": "pwned"},
    "a rank that is text": {"rank": "1"},
    "a rank below 1": {"rank": -3},
    "a rank of true": {"rank": True},
    "an unknown outcome": {"outcome": "exploded"},
    "a line of 0": {"line": 0},
    "a nodeid that is a number": {"nodeid": 7},
    "a span_split that is text": {"span_split": "no"},
    "a k of 0": {"k": 0},
    "an unstable that is text": {"unstable": "yes", "ranks_seen": [1, None]},
    "ranks seen of one repeat": {"unstable": False, "ranks_seen": [1]},
    "ranks seen with a rank of 0": {"unstable": True, "ranks_seen": [0, 1]},
    "unstable without ranks seen": {"unstable": True},
    "ranks seen without unstable": {"ranks_seen": [1, 2]},
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_what_the_schema_refuses_the_reader_refuses(name: str) -> None:
    report = good()
    report["cases"][0].update(BROKEN[name])
    with pytest.raises(jsonschema.ValidationError):
        schema_check(report)
    with pytest.raises(ChunkrecallError, match=r"r\.json is damaged: case 1"):
        check_report(report, name="r.json")


def test_a_case_with_repeats_passes_both() -> None:
    report = good()
    report["cases"][0].update({"unstable": True, "ranks_seen": [1, None, 3]})
    schema_check(report)
    assert check_report(report, name="r.json") is report


@pytest.mark.parametrize("key", ["nodeid", "gold_file", "id", "line", "verdict", "outcome"])
def test_a_case_without_a_key_every_case_has_is_refused_by_both(key: str) -> None:
    report = good()
    del report["cases"][0][key]
    with pytest.raises(jsonschema.ValidationError):
        schema_check(report)
    with pytest.raises(ChunkrecallError, match=f"has no '{key}'"):
        check_report(report, name="r.json")


def test_the_verdicts_and_outcomes_are_the_schemas() -> None:
    """One definition: the reader's verdicts are the Verdict type's, and the schema lists them."""
    schema = json.loads(REPORT_SCHEMA.read_text(encoding="utf-8"))
    assert set(VERDICTS) == set(get_args(Verdict)) == set(schema["$defs"]["verdict"]["enum"])
    outcome = schema["$defs"]["case"]["properties"]["outcome"]["enum"]
    assert set(get_args(TestOutcome)) == set(outcome)


def test_a_case_of_a_gold_file_the_report_does_not_list_is_refused() -> None:
    report = good()
    report["gold_files"] = []
    with pytest.raises(ChunkrecallError, match="not among the report's 'gold_files'"):
        check_report(report, name="r.json")


def test_an_unevaluated_case_needs_only_the_keys_every_case_has() -> None:
    report = good()
    keys = ("nodeid", "gold_file", "id", "line", "xfail")
    report["cases"] = [{**{k: HIT[k] for k in keys}, "verdict": None, "rank": None}]
    report["cases"][0].update(span_split=None, outcome="skipped")
    schema_check(report)
    check_report(report, name="r.json")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("![x](https://e.example/p.png)", "\\!\\[x\\]\\(https://e.example/p.png\\)"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert\\(1\\)&lt;/script&gt;"),
        ("[a](javascript:x)", "\\[a\\]\\(javascript:x\\)"),
        ("two\nlines & *stars*", "two lines &amp; \\*stars\\*"),
    ],
)
def test_prose_is_shown_literally(text: str, shown: str) -> None:
    assert markdown_text(text) == shown


@pytest.mark.parametrize(
    ("text", "in_table", "shown"),
    [
        ("a`b", False, "``a`b``"),
        ("a``b`", False, "``` a``b` ```"),
        ("x|y", True, "`x\\|y`"),
        ("x|y", False, "`x|y`"),
    ],
)
def test_a_code_span_holds_its_backticks(text: str, in_table: bool, shown: str) -> None:
    assert markdown_text(text, code=True, in_table=in_table) == shown
