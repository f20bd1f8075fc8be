"""A JSON report read back, checked against the report's shape before any of it is used.

``merge``, ``compare`` and ``export`` read reports that may have been edited, truncated
or forged. What ``report.schema.json`` says a report is, this module checks in the
package (jsonschema is no runtime dependency): the keys every case has, with their
types, a verdict and an outcome of the known ones, ranks from 1, and each case's gold
file among the report's gold files. The tests set it against the schema. A report that
fails is a message naming the file, the case and the key, never a traceback.

The verdicts and outcomes allowed are those of their one definition
(:data:`..evaluation.results.VERDICTS`, :data:`.entry.Outcome`), not a list of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any, get_args

from ..errors import ChunkrecallError, printable, trimmed
from ..evaluation.case_facts import CaseFact
from ..evaluation.results import VERDICTS, CaseResult
from .entry import Outcome

OUTCOMES: tuple[str, ...] = get_args(Outcome)
ADVICE = "write it again with --chunkrecall-report"


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) else "must be text"


def _name(value: Any) -> str | None:
    # a node id, case id or gold file is printed in every summary, as it is
    if not isinstance(value, str):
        return "must be text"
    return None if printable(value) == value else "must hold no control characters"


def _text_or_null(value: Any) -> str | None:
    return None if value is None or isinstance(value, str) else "must be text or null"


def _whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _line(value: Any) -> str | None:
    return None if _whole(value, 1) else "must be a whole number from 1"


def _rank(value: Any) -> str | None:
    if value is None or _whole(value, 1):
        return None
    return "must be a whole number from 1, or null"


def _flag(value: Any) -> str | None:
    return None if value is None or isinstance(value, bool) else "must be true, false or null"


def _one_of(allowed: tuple[str, ...], *, null: bool) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if (value is None and null) or (isinstance(value, str) and value in allowed):
            return None
        return f"must be one of {', '.join(allowed)}" + (", or null" if null else "")

    return check


def _ids(value: Any) -> str | None:
    if value is None:  # a report from before chunk ids were recorded
        return None
    if isinstance(value, list) and all(item is None or isinstance(item, str) for item in value):
        return None
    return "must be a list of '<doc>#<index>' chunk ids"


def _offset(value: Any) -> bool:
    return value is None or _whole(value, 0)


def _chunk_view(value: Any) -> bool:
    """Whether ``value`` is a chunk as a case's ``top`` lists it (the schema's chunk_view)."""
    return (
        isinstance(value, dict)
        and _text_or_null(value.get("doc", 0)) is None
        and all(_offset(value.get(key, -1)) for key in ("index", "start", "end", "size"))
        and isinstance(value.get("preview"), str)
        and _rank(value.get("rank", 0)) is None
    )


def _chunks(value: Any) -> str | None:
    if isinstance(value, list) and all(_chunk_view(item) for item in value):
        return None
    return (
        "must be a list of the chunks the case got back, each with doc, index, start, end, "
        "preview, rank and size"
    )


# The keys every case has (the schema's "required"), then keys an evaluated case has.
_EVERY_CASE: dict[str, Callable[[Any], str | None]] = {
    "nodeid": _name,
    "gold_file": _name,
    "id": _name,
    "line": _line,
    "verdict": _one_of(VERDICTS, null=True),
    "rank": _rank,
    "span_split": _flag,
    "xfail": _text_or_null,
    "outcome": _one_of(OUTCOMES, null=False),
}
_EVALUATED: dict[str, Callable[[Any], str | None]] = {
    "question": _text,
    "needles": lambda value: (
        None
        if isinstance(value, list) and all(isinstance(item, str) for item in value)
        else "must be a list of texts"
    ),
    "span": _text_or_null,
    "k": lambda value: None if _whole(value, 1) else "must be a whole number from 1",
    "span_length": lambda value: None if _whole(value, 0) else "must be a whole number",
    "holding_rank": _rank,
    "top": _chunks,
    "retrieved_ids": _ids,
    "holding_ids": _ids,
    "unstable": lambda value: None if isinstance(value, bool) else "must be true or false",
    "ranks_seen": lambda value: (
        None
        if isinstance(value, list) and len(value) > 1 and not any(_rank(rank) for rank in value)
        else "must be a list of two or more ranks (whole numbers from 1, or null)"
    ),
    "varied": _text,
}


# What an evaluated case must have: what its result cannot be made without, and what the
# fold of a run reads of it.
_RESULT_KEYS = tuple(
    dict.fromkeys(
        [
            f.name
            for f in fields(CaseResult)
            if f.default is MISSING and f.default_factory is MISSING
        ]
        + list(CaseFact._fields)
    )
)


def check_report(data: Any, *, name: str) -> dict[str, Any]:
    """``data``, the JSON value read from the report ``name``, once it is known to be a report.

    Raises :class:`ChunkrecallError` naming the file, and the case and key where one is wrong.
    """
    if not isinstance(data, dict) or "chunkrecall_report" not in data:
        raise ChunkrecallError(
            f"{name} is not a chunkrecall report (it has no 'chunkrecall_report' key); give "
            "files written by --chunkrecall-report"
        )
    gold_files = data.get("gold_files")
    if not isinstance(gold_files, list) or not all(
        isinstance(gold, dict) and _name(gold.get("path")) is None for gold in gold_files
    ):
        raise _damaged(
            name,
            "'gold_files' must be a list of objects, each with a 'path' (text with no control "
            "characters)",
        )
    cases = data.get("cases")
    if not isinstance(cases, list):
        raise _damaged(name, "'cases' must be a list of case entries")
    unevaluated = data.get("unevaluated", [])
    if not isinstance(unevaluated, list) or not all(_name(n) is None for n in unevaluated):
        raise _damaged(name, "'unevaluated' must be a list of node ids")
    complete = data.get("complete", True)
    if not isinstance(complete, bool):
        raise _damaged(name, "'complete' must be true or false")
    paths = {gold["path"] for gold in gold_files}
    for number, case in enumerate(cases, start=1):
        _check_case(case, number, paths, name)
    return data


def _check_case(case: Any, number: int, paths: set[str], name: str) -> None:
    if not isinstance(case, dict):
        raise _damaged(name, f"case {number} is not an object")
    nodeid = case.get("nodeid")
    where = f"case {number}"
    if isinstance(nodeid, str) and _name(nodeid) is None:
        where += f" ({trimmed(nodeid)})"
    for key, check in _EVERY_CASE.items():
        if key not in case:
            raise _damaged(name, f"{where} has no {key!r}")
        problem = check(case[key])
        if problem:
            raise _damaged(name, f"{where}: {key!r} is {_shown(case[key])}; it {problem}")
    if case["verdict"] is not None:
        for key in _RESULT_KEYS:
            if key not in case:
                raise _damaged(name, f"{where} has a verdict but no {key!r}")
        for key, check in _EVALUATED.items():
            problem = check(case[key]) if key in case else None
            if problem:
                raise _damaged(name, f"{where}: {key!r} is {_shown(case[key])}; it {problem}")
        for key, other in (("unstable", "ranks_seen"), ("ranks_seen", "unstable")):
            if key in case and other not in case:
                raise _damaged(name, f"{where} has {key!r} but no {other!r}")
    if case["gold_file"] not in paths:
        raise _damaged(
            name,
            f"{where} belongs to the gold file {case['gold_file']!r}, which is not among the "
            "report's 'gold_files'",
        )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _damaged(name: str, problem: str) -> ChunkrecallError:
    return ChunkrecallError(f"{name} is damaged: {problem}; {ADVICE}")
