"""A JSON report read back, checked against the report's shape before any of it is used.

``merge``, ``compare`` and ``export`` read reports that may have been edited, truncated
or forged. Each case is checked by the case record's own codec
(:func:`..evaluation.codec.decode`) and the types of the keys every entry has
(:data:`.entry.EVERY_CASE`), the same types ``report.schema.json`` is generated
from: a verdict and an outcome of the known ones, ranks from 1, lengths from 0, and
each case's gold file among the report's gold files. A report that fails is a
message naming the file, the case and the key, never a traceback.
"""

from __future__ import annotations

from typing import Any

from ..errors import ChunkrecallError, printable, trimmed
from ..evaluation import codec
from ..evaluation.results import CaseResult
from .entry import BESIDE_THE_RECORD, EVERY_CASE

ADVICE = "write it again with --chunkrecall-report"


_NAME = EVERY_CASE["nodeid"]  # a node id, a gold file's path: printed as it is


def _is_name(value: Any) -> bool:
    try:
        codec.read(_NAME, value, "name")
    except codec.Malformed:
        return False
    return True


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
        isinstance(gold, dict) and _is_name(gold.get("path")) for gold in gold_files
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
    if not isinstance(unevaluated, list) or not all(_is_name(n) for n in unevaluated):
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
    if isinstance(nodeid, str) and printable(nodeid) == nodeid:
        where += f" ({trimmed(nodeid)})"
    for key in EVERY_CASE:
        if key not in case:
            raise _damaged(name, f"{where} has no {key!r}")
    try:
        for key, shape in EVERY_CASE.items():
            codec.read(shape, case[key], key)
        for key, shape in BESIDE_THE_RECORD.items():
            if key in case and key not in EVERY_CASE:
                codec.read(shape, case[key], key)
        if case["verdict"] is not None:
            codec.decode(CaseResult, case)
    except codec.Malformed as exc:
        raise _damaged(name, exc.said(where)) from None
    if case["gold_file"] not in paths:
        raise _damaged(
            name,
            f"{where} belongs to the gold file {case['gold_file']!r}, which is not among the "
            "report's 'gold_files'",
        )


def _damaged(name: str, problem: str) -> ChunkrecallError:
    return ChunkrecallError(f"{name} is damaged: {problem}; {ADVICE}")
