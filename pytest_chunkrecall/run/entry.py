"""One case's entry: what its test report carries and what the JSON report lists, defined once.

The item makes it where the case ran. An xdist worker writes it once as compact
JSON text, and that text travels on the test report to the controller, which
reads its values once; a run without xdist hands the entry itself to its owner,
which writes the text only for the spool of an output that lists every case.
``render/report.schema.json`` describes the same keys for the report's readers.

The text is ASCII: every character past it is written as a JSON escape. So text
that is not valid Unicode (a file name of undecodable bytes becomes lone
surrogates) is escaped like any other, never an error, and reads back as it was.
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict, cast

from ..evaluation.results import CaseResult, Verdict

Outcome = Literal["passed", "failed", "xfailed", "xpassed", "skipped"]


class _EveryCase(TypedDict):
    nodeid: str
    gold_file: str
    id: str
    line: int
    verdict: Verdict | None
    rank: int | None
    span_split: bool | None
    xfail: str | None  # the gold file's reason, so that a merged report can tell expected misses
    outcome: Outcome


class CaseEntry(_EveryCase, total=False):
    """One case of a run, as its test report carries it and the JSON report lists it.

    A case that was not evaluated (skipped, or its configuration or code failed)
    has only the keys every case has: ``nodeid``, ``gold_file``, ``id``, ``line``,
    ``verdict``, ``rank``, ``span_split`` (those three ``None``), ``xfail`` and
    ``outcome``. An evaluated one has every field of :class:`CaseResult` (see
    there) in its order after ``nodeid``, then ``xfail``, ``sweep`` (in a sweep:
    the case's share of each row) and ``outcome``.
    """

    question: str
    needles: list[str]
    span: str | None
    k: int
    match: str
    needle_lengths: list[int]
    span_length: int
    unit: str
    top: list[dict[str, Any]]
    held: list[dict[str, Any]]
    cut: dict[str, Any] | None
    closest: dict[str, Any] | None
    also_close: list[dict[str, Any]]
    missing: list[str]
    outside: list[str]
    baseline: dict[str, Any] | None
    holding_rank: int | None
    depth: int | None
    depth_error: str | None
    pieces_retrieved: bool | None
    retrieved_ids: list[str | None]
    holding_ids: list[str]
    span_at: dict[str, Any] | None
    docs: list[str] | None
    elsewhere: list[str]
    candidates: int | None
    candidate_rank: int | None
    candidate_score: float | None
    reranker: str | None
    loading: dict[str, Any] | None
    glued: dict[str, Any] | None
    reference_notes: list[str]
    unstable: bool
    ranks_seen: list[int | None]
    varied: str
    sweep: list[dict[str, Any]]


def evaluated(
    nodeid: str,
    result: CaseResult,
    *,
    xfail: str | None,
    outcome: Outcome,
    sweep: list[dict[str, Any]] | None = None,
) -> CaseEntry:
    """The entry of a case that was evaluated."""
    entry: dict[str, Any] = {"nodeid": nodeid, **result.to_json(), "xfail": xfail}
    if sweep is not None:
        entry["sweep"] = sweep
    entry["outcome"] = outcome
    return cast(CaseEntry, entry)


def unevaluated(
    nodeid: str, *, gold_file: str, case_id: str, line: int, xfail: str | None, outcome: Outcome
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
