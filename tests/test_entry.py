"""One case's entry: written once as JSON text, read back as it was, and mirrored by the schema."""

from __future__ import annotations

import json
from typing import get_args

from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.evaluation.codec import field_names
from pytest_chunkrecall.evaluation.results import (
    VERDICTS,
    BaselineMark,
    CaseResult,
    Change,
    ChunkView,
    CutView,
    Held,
    NearestText,
    SpanAt,
)
from pytest_chunkrecall.run import entry
from pytest_chunkrecall.run.entry import CaseEntry

from .conftest import REPORT_SCHEMA, a_hit

# Any text, lone surrogates included: a document named with undecodable bytes has them.
TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
NUMBER = st.integers(min_value=0, max_value=10**6)
MAYBE = st.none() | NUMBER
RANK = st.none() | st.integers(min_value=1, max_value=50)
VIEWS = st.builds(ChunkView, TEXT | st.none(), MAYBE, MAYBE, MAYBE, TEXT, RANK, MAYBE)

RESULTS = st.builds(
    CaseResult,
    gold_file=TEXT,
    id=TEXT,
    line=st.integers(min_value=1, max_value=10**5),
    question=TEXT,
    needles=st.lists(TEXT, min_size=1, max_size=3),
    span=TEXT | st.none(),
    verdict=st.sampled_from(VERDICTS),
    rank=st.none() | st.integers(min_value=1, max_value=50),
    span_split=st.booleans(),
    k=st.integers(min_value=1, max_value=50),
    match=st.sampled_from(["exact", "normalized", "fuzzy"]),
    needle_lengths=st.lists(NUMBER, max_size=3),
    span_length=NUMBER,
    unit=st.sampled_from(["chars", "tokens"]),
    top=st.lists(VIEWS, max_size=3),
    held=st.lists(st.builds(Held, TEXT, VIEWS), max_size=2),
    cut=st.none()
    | st.builds(CutView, TEXT, NUMBER, TEXT, TEXT, VIEWS | st.none(), st.none(), MAYBE),
    closest=st.none()
    | st.builds(NearestText, TEXT, TEXT, st.floats(0, 100), TEXT | st.none(), MAYBE),
    missing=st.lists(TEXT, max_size=2),
    outside=st.lists(TEXT, max_size=2),
    baseline=st.none()
    | st.builds(
        BaselineMark,
        st.sampled_from(VERDICTS),
        st.none() | st.integers(min_value=1, max_value=50),
        st.booleans(),
        st.none() | st.sampled_from(get_args(Change)),
        st.booleans(),
    ),
    holding_rank=st.none() | st.integers(min_value=1, max_value=50),
    depth=MAYBE,
    depth_error=TEXT | st.none(),
    pieces_retrieved=st.none() | st.booleans(),
    retrieved_ids=st.lists(TEXT | st.none(), max_size=3),
    holding_ids=st.lists(TEXT, max_size=3),
    span_at=st.none() | st.builds(SpanAt, TEXT, NUMBER, NUMBER),
    docs=st.none() | st.lists(TEXT, max_size=2),
    elsewhere=st.lists(TEXT, max_size=2),
)
OUTCOMES = st.sampled_from(["passed", "failed", "xfailed", "xpassed", "skipped"])


@given(RESULTS, TEXT | st.none(), OUTCOMES)
def test_an_evaluated_entry_reads_back_as_it_was_written(result, xfail, outcome) -> None:
    made = entry.evaluated(f"{result.gold_file}::{result.id}", result, xfail=xfail, outcome=outcome)
    text = entry.dumps(made)
    assert text.isascii() and "\n" not in text  # one line, whatever the text holds
    assert entry.loads(text) == made
    assert list(entry.loads(text)) == list(made)  # the keys in their order
    assert CaseResult.from_json(entry.loads(text)) == result


@given(TEXT, TEXT, st.integers(min_value=1), TEXT | st.none(), OUTCOMES)
def test_an_unevaluated_entry_reads_back_as_it_was_written(
    gold_file, case_id, line, xfail, outcome
):
    made = entry.unevaluated(
        f"{gold_file}::{case_id}",
        gold_file=gold_file,
        case_id=case_id,
        line=line,
        xfail=xfail,
        outcome=outcome,
    )
    assert entry.loads(entry.dumps(made)) == made
    assert made["verdict"] is None and made["rank"] is None and made["span_split"] is None


def test_an_evaluated_entry_has_every_field_of_a_result_between_nodeid_and_xfail() -> None:
    result = a_hit()
    sweep = [{"hit": True}]
    made = entry.evaluated("gold/a.yaml::refund", result, xfail=None, outcome="passed", sweep=sweep)
    assert list(made) == ["nodeid", *result.to_json(), "xfail", "sweep", "outcome"]


def test_the_schema_describes_every_key_of_an_entry_and_requires_those_every_case_has() -> None:
    case = json.loads(REPORT_SCHEMA.read_text(encoding="utf-8"))["$defs"]["case"]
    keys = CaseEntry.__required_keys__ | CaseEntry.__optional_keys__
    assert set(case["properties"]) == keys | set(field_names(CaseResult))
    assert set(case["required"]) == CaseEntry.__required_keys__
