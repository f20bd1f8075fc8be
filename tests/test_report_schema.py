"""The report's schema is generated from the case record, and the reader is the record's codec."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest

from pytest_chunkrecall.errors import ChunkrecallError
from pytest_chunkrecall.evaluation import codec
from pytest_chunkrecall.evaluation.case_facts import CaseFact
from pytest_chunkrecall.evaluation.results import CaseResult, Rank
from pytest_chunkrecall.evaluation.verdicts import VERDICTS
from pytest_chunkrecall.render import report_schema
from pytest_chunkrecall.run.entry import EVERY_CASE
from pytest_chunkrecall.run.report_shape import check_report

from .conftest import REPORT_SCHEMA
from .conftest import check_report as schema_check
from .test_catalogue import forged


def test_the_shipped_schema_is_the_one_generated_from_the_record() -> None:
    """After a change to the record: python -m pytest_chunkrecall.render.report_schema
    > pytest_chunkrecall/render/report.schema.json"""
    assert REPORT_SCHEMA.read_text(encoding="utf-8") == report_schema.text()


def test_the_schema_is_valid_and_lists_every_field_and_verdict() -> None:
    schema = report_schema.report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    case = schema["$defs"]["case"]["properties"]
    assert set(codec.field_names(CaseResult)) <= set(case)
    assert schema["$defs"]["verdict"]["enum"] == list(VERDICTS)
    assert list(schema["$defs"]["totals"]["properties"]["verdicts"]["properties"]) == list(VERDICTS)


def good() -> dict[str, Any]:
    return json.loads(forged())  # type: ignore[no-any-return]


# values deep inside a case that the hand-written reader let through
NESTED = {
    "a chunk of the top k ranked 0": (
        {"top": [{"doc": "d", "index": 0, "start": 0, "end": 4, "preview": "p", "rank": 0}]},
        "'top[0].rank' is 0; it must be a whole number from 1, or null",
    ),
    "a cut at an offset that is text": (
        {"cut": {"doc": "d", "offset": "9", "before": "a", "after": "b", "left": None,
                 "right": None, "overlap": None}},
        "'cut.offset' is '9'; it must be a whole number from 0",
    ),
    "an unknown match mode": ({"match": "loose"}, "'match' is 'loose'; it must be one of exact"),
    "a needle that is a number": ({"needles": [30]}, "'needles' is [30]; it must be a list, each text"),
    "a baseline change that is none": (
        {"baseline": {"verdict": "hit", "rank": 1, "span_split": False, "change": "worse"}},
        "'baseline.change' is 'worse'; it must be one of new, still_hit, regression",
    ),
    "a held chunk without its pattern": (
        {"held": [{"chunk": {"doc": None, "index": None, "start": None, "end": None, "preview": ""}}]},
        "has no 'held[0].pattern'",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(NESTED))
def test_a_value_deep_in_a_case_is_refused_by_both_naming_its_key(name: str) -> None:
    change, said = NESTED[name]
    report = good()
    report["cases"][0].update(change)
    with pytest.raises(jsonschema.ValidationError):
        schema_check(report)
    with pytest.raises(ChunkrecallError, match=r"r\.json is damaged: case 1") as raised:
        check_report(report, name="r.json")
    assert said in str(raised.value)


def test_an_older_report_with_null_chunk_ids_reads_as_none_recorded() -> None:
    report = good()
    report["cases"][0].update(retrieved_ids=None, holding_ids=None)
    schema_check(report)
    check_report(report, name="r.json")
    result = CaseResult.from_json(report["cases"][0])
    assert (result.retrieved_ids, result.holding_ids) == ([], [])


def test_a_projection_keeps_the_records_fields_as_they_are() -> None:
    with pytest.raises(TypeError, match=r"Loose\.rank is no field of CaseResult of the same type"):

        @codec.projection(CaseResult)
        @dataclass(frozen=True)
        class Loose:
            rank: int | None  # the record's rank counts from 1

    @codec.projection(CaseResult)
    @dataclass(frozen=True)
    class Kept:
        rank: Rank | None
        elsewhere: list[str]

    assert codec.project(Kept, {"rank": 2}) == Kept(2, [])  # the record's default


def test_facts_read_from_an_entry_are_the_records() -> None:
    entry = good()["cases"][0]
    result = CaseResult.from_json(entry)
    fact = CaseFact.of(entry)
    assert (fact.line, fact.id, fact.verdict, fact.rank, fact.k) == (
        result.line,
        result.id,
        result.verdict,
        result.rank,
        result.k,
    )


def test_the_keys_every_entry_has_are_the_records_own_where_it_has_them() -> None:
    """An unevaluated case has no verdict, rank or span_split: null there, and otherwise the
    record's type (a name read back must also be printable); the entry defines no fact of
    the record's again."""
    record = {each.name: each.shape for each in codec.fields_of(CaseResult)}
    for key, shape in EVERY_CASE.items():
        if key in record:
            same = dataclasses.replace(shape, nullable=record[key].nullable, printable=False)
            assert same == record[key], key
