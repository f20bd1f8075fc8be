"""One case's entry: what its test report carries and what the JSON report lists, defined once.

The item makes it where the case ran. An xdist worker writes it once as compact
JSON text, and that text travels on the test report to the controller, which
reads its values once; a run without xdist hands the entry itself to its owner,
which writes the text only for the spool of an output that lists every case.
``render/report.schema.json``, generated from the same types (:func:`entry_schema`),
describes the same keys for the report's readers.

The text is ASCII: every character past it is written as a JSON escape. So text
that is not valid Unicode (a file name of undecodable bytes becomes lone
surrogates) is escaped like any other, never an error, and reads back as it was.
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict, cast, get_type_hints

from ..evaluation import codec
from ..evaluation.results import CaseResult, Line, Name, Rank, Verdict

TestOutcome = Literal["passed", "failed", "xfailed", "xpassed", "skipped"]


class _EveryCase(TypedDict):
    nodeid: Name
    gold_file: Name
    id: Name
    line: Line
    verdict: Verdict | None
    rank: Rank | None
    span_split: bool | None
    xfail: str | None  # the gold file's reason, so that a merged report can tell expected misses
    outcome: TestOutcome


class CaseEntry(_EveryCase, total=False):
    """One case of a run, as its test report carries it and the JSON report lists it.

    A case that was not evaluated (skipped, or its configuration or code failed)
    has only the keys every case has: ``nodeid``, ``gold_file``, ``id``, ``line``,
    ``verdict``, ``rank``, ``span_split`` (those three ``None``), ``xfail`` and
    ``outcome``. An evaluated one has every field of the case record,
    :class:`CaseResult`, as its codec writes it (:func:`..evaluation.codec.encode`),
    in its order after ``nodeid``, then ``xfail``, ``sweep`` (in a sweep: the case's
    share of each row) and ``outcome``. Its values are read through the record's
    codec (:func:`..evaluation.codec.decode`, or a projection: :func:`..evaluation.codec.project`),
    never key by key.
    """

    sweep: list[dict[str, Any]]


EVERY_CASE: dict[str, codec.Shape] = {
    key: codec.shape_of(hint)
    for key, hint in get_type_hints(_EveryCase, include_extras=True).items()
}
"""The keys every entry has, evaluated or not, and what each holds."""

BESIDE_THE_RECORD: dict[str, codec.Shape] = {
    key: codec.shape_of(hint)
    for key, hint in get_type_hints(CaseEntry, include_extras=True).items()
    if key not in codec.field_names(CaseResult)
}
"""The keys an entry has besides its record's fields: ``nodeid``, ``xfail``, ``outcome``
and ``sweep``."""


def entry_schema(defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of an entry: the keys every case has, then the record's fields (required
    where the case has a verdict), generated from their types; the record's parts go in ``defs``."""
    record = codec.record_schema(CaseResult, defs)
    properties = {"nodeid": codec.field_schema(EVERY_CASE["nodeid"], defs)}
    for key, described in record["properties"].items():
        shape = EVERY_CASE.get(key)
        properties[key] = codec.field_schema(shape, defs) if shape is not None else described
    for key, shape in BESIDE_THE_RECORD.items():
        properties.setdefault(key, codec.field_schema(shape, defs))
    described_entry: dict[str, Any] = {
        "type": "object",
        "description": "One case: the keys every case has, and for an evaluated case (one with "
        "a verdict) every field of its record, pytest_chunkrecall.evaluation.results.CaseResult.",
        "required": list(EVERY_CASE),
        "if": {"required": ["verdict"], "properties": {"verdict": {"type": "string"}}},
        "then": {"required": record["required"]},
    }
    if "dependentRequired" in record:
        described_entry["dependentRequired"] = record["dependentRequired"]
    described_entry["properties"] = properties
    return described_entry


def evaluated(
    nodeid: str,
    result: CaseResult,
    *,
    xfail: str | None,
    outcome: TestOutcome,
    sweep: list[dict[str, Any]] | None = None,
) -> CaseEntry:
    """The entry of a case that was evaluated."""
    entry: dict[str, Any] = {"nodeid": nodeid, **result.to_json(), "xfail": xfail}
    if sweep is not None:
        entry["sweep"] = sweep
    entry["outcome"] = outcome
    return cast(CaseEntry, entry)


def unevaluated(
    nodeid: str, *, gold_file: str, case_id: str, line: int, xfail: str | None, outcome: TestOutcome
) -> CaseEntry:
    """The entry of a case with no verdict: skipped, or its configuration or code failed."""
    return {
        "nodeid": nodeid,
        "gold_file": gold_file,
        "id": case_id,
        "line": line,
        "verdict": None,
        "rank": None,
        "span_split": None,
        "xfail": xfail,
        "outcome": outcome,
    }


def dumps(entry: CaseEntry) -> str:
    """The entry as one line of compact ASCII JSON (see the module docstring)."""
    return _ENCODER.encode(entry)


def loads(text: str) -> CaseEntry:
    """The entry :func:`dumps` wrote."""
    return cast(CaseEntry, json.loads(text))


def encode(value: object) -> str:
    """Another JSON value a test report carries (a gold file's facts, its documents), written
    as an entry is, for the same reasons."""
    return _ENCODER.encode(value)


def decode(text: str) -> Any:
    """The value :func:`encode` wrote."""
    return json.loads(text)


def order_key(entry: CaseEntry) -> tuple[str, int, str]:
    """Where a case goes in the JSON report: by gold file, then line (then id)."""
    return (entry["gold_file"], entry["line"], entry["id"])


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, allow_nan=False)
