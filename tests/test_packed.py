"""Case entries kept packed until the run's end: read back as they were, one at a time."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.evaluation.results import (
    CaseResult,
    ChunkView,
    Closest,
    CutView,
    Held,
    SpanAt,
)
from pytest_chunkrecall.render import json_report
from pytest_chunkrecall.run.packed import fields_of, pack, packed_entries, unpack
from pytest_chunkrecall.run.record import RunRecord

from .conftest import Shop

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), JSON, max_size=8))
def test_an_entry_unpacks_to_what_json_reads_back(entry: dict[str, Any]) -> None:
    assert unpack(pack(entry)) == json.loads(json.dumps(entry))


def entry(gold_file: str, line: int, verdict: str | None) -> dict[str, Any]:
    """A case's entry as a run reports it (without its outcome), evaluated unless ``verdict`` is None."""
    case_id = f"c{line}"
    found = {"nodeid": f"{gold_file}::{case_id}", "gold_file": gold_file, "id": case_id,
             "line": line, "verdict": verdict, "rank": None, "span_split": None}  # fmt: skip
    if verdict is None:
        return found
    result = CaseResult(
        gold_file, case_id, line, "How long is the refund window?", ["30 days"], None,
        verdict, 1 if verdict == "hit" else None, verdict == "split", 5, "normalized", [7], 7,
        "chars",
    )  # fmt: skip
    return {"nodeid": found["nodeid"], **result.to_json()}


def test_a_result_packs_as_its_json_does() -> None:
    """The report carries a result's fields as they are; packed, they read as to_json()."""
    view = ChunkView("docs/policies.md", 3, 80, 160, "The refund window is 30…", 1, 80)
    result = replace(
        CaseResult.from_json(entry("gold/a.yaml", 4, "split")),
        top=[view, ChunkView(None, None, None, None, "a text that is no chunk", 2)],
        held=[Held("30 days", view)],
        cut=CutView("docs/policies.md", 100, "window is", "30 days", view, None, 0),
        closest=Closest("30 dayz", "30 days", 92.5, "docs/policies.md", 3),
        span_at=SpanAt("docs/policies.md", 90, 118),
        retrieved_ids=["docs/policies.md#3", None],
    )
    assert unpack(pack({"nodeid": "n", **fields_of(result)})) == {
        "nodeid": "n",
        **json.loads(json.dumps(result.to_json())),
    }


def test_each_read_is_a_fresh_entry_with_its_outcome() -> None:
    entries = packed_entries([(pack(entry("gold/a.yaml", 3, "hit")), "passed")])
    first = entries[0]
    first["verdict"] = "split"
    assert entries[0] == {**entry("gold/a.yaml", 3, "hit"), "outcome": "passed"}
    assert list(entries) == [entries[0]] and len(entries) == 1
    assert list(entries[1:]) == []


def test_a_record_of_packed_entries_says_what_one_of_dicts_says() -> None:
    cases = [
        {**entry("gold/b.yaml", 9, "hit"), "outcome": "passed"},
        {**entry("gold/a.yaml", 7, None), "outcome": "failed"},
        {**entry("gold/a.yaml", 2, "split"), "outcome": "xfailed"},
        {**entry("gold/a.yaml", 5, None), "outcome": "skipped"},
    ]
    packed = packed_entries([(pack({k: v for k, v in c.items() if k != "outcome"}), c["outcome"])
                            for c in cases])  # fmt: skip
    plain, kept = RunRecord(cases=cases), RunRecord(cases=packed)
    assert [c["nodeid"] for c in kept.ordered] == [
        "gold/a.yaml::c2", "gold/a.yaml::c5", "gold/a.yaml::c7", "gold/b.yaml::c9"
    ]  # fmt: skip
    assert list(kept.ordered) == list(plain.ordered)
    assert kept.unevaluated() == plain.unevaluated() == ["gold/a.yaml::c7"]
    assert kept.expected_misses() == plain.expected_misses() == 1
    assert kept.failed() and plain.failed()
    assert kept.gold_file_paths() == plain.gold_file_paths() == {"gold/a.yaml", "gold/b.yaml"}
    assert [(r.id, r.verdict) for r in kept.results()] == [("c2", "split"), ("c9", "hit")]
    assert kept.results() == plain.results()


@given(st.lists(st.dictionaries(st.text(), JSON, max_size=6), max_size=5))
def test_a_report_of_packed_cases_is_the_text_of_its_dicts(cases: list[dict[str, Any]]) -> None:
    packed = packed_entries([(pack(case), "passed") for case in cases])
    listed = [{**json.loads(json.dumps(case)), "outcome": "passed"} for case in cases]
    report = {"chunkrecall_report": 1, "totals": {"cases": len(cases)}, "unevaluated": []}
    assert json_report.dumps({**report, "cases": packed}) == (
        json.dumps({**report, "cases": listed}, indent=2) + "\n"
    )


TRACKED = """
import weakref

ALIVE = []


class Index:
    def __init__(self, chunks):
        self.chunks = chunks
        ALIVE.append(weakref.ref(self))

    def search(self, question, k):
        return list(range(min(k, len(self.chunks))))


def build(chunks):
    return Index(chunks)
"""

SUMMARY = """
import gc

import tracked


def pytest_terminal_summary(terminalreporter):
    gc.collect()
    alive = sum(ref() is not None for ref in tracked.ALIVE)
    terminalreporter.write_line(f"retrievers alive: {alive} of {len(tracked.ALIVE)}")
"""


def test_the_suites_are_let_go_before_the_run_ends(shop: Shop) -> None:
    """What the run's end builds (the record, the summary, the files) reuses their memory."""
    shop.write("tracked.py", TRACKED)
    shop.write("conftest.py", SUMMARY)
    shop.gold(
        """
        corpus: ../docs/*.md
        retriever: tracked:build
        cases:
          - question: What is the refund window?
            needle: storefront
        """
    )
    result = shop.run()
    result.stdout.fnmatch_lines(["retrievers alive: 0 of 1", "*1 passed*"])
