"""``export trec``: a JSON report as a TREC qrels file and a TREC run file.

A query is a case (its node id), a document is a chunk (``<doc>#<index>``).
The relevant chunks of a case are all those that hold its span whole, retrieved
or not (the report's ``holding_ids``); the run is what the retriever returned,
in rank order. ``trec_eval``, ranx or ir_measures then give back the report's
hit-rate@k (``success@k``) and MRR (``recip_rank``), and recall and nDCG count
every holder.

A case whose span no chunk holds whole (``split``, ``absent``) has no relevant
chunk, yet it counts as a miss in the report. IR tools leave a query without
relevant documents out of their means, so such a case gets the one relevant
document :data:`NO_HOLDING_CHUNK`, which no run contains: the tools then count
it as a miss too; so does a ``leaked`` case, whose leaked chunks the qrels
list with relevance -1 (judged: what must not come back). A case that names
only what must not come back has no holder either. Ranks in the run are the report's (see :func:`_ranked`), so
the tools' reciprocal rank is the report's ``1/rank``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ChunkrecallError
from ..guard import quoted
from ..run.fold import fingerprints_of
from ..run.merge import read_report, shard_of
from .writing import Output

NO_HOLDING_CHUNK = "no-holding-chunk"
NOTHING_RETRIEVED = "nothing-retrieved"
QRELS_NAME = "qrels.txt"
RUN_NAME = "run.txt"
_UNSAFE = re.compile(r"[\s%]")  # TREC files are split on whitespace


@dataclass(frozen=True)
class Query:
    """One evaluated case as TREC sees it."""

    qid: str
    retrieved: tuple[str, ...]
    relevant: tuple[str, ...]
    leaked: tuple[str, ...] = ()  # retrieved chunks that must not have come back


@dataclass(frozen=True)
class TrecExport:
    """What ``export trec`` will write."""

    output: Output
    queries: int
    without_holding: int
    not_evaluated: int
    qrels: Path
    run: Path
    documents: dict[str, dict[str, str]]  # the corpus the report records, by gold file


def export_trec(
    report: Path, out: Path, *, force: bool = False, tag: str = "chunkrecall"
) -> TrecExport:
    """Read the JSON ``report`` and plan ``out/qrels.txt`` and ``out/run.txt``."""
    if os.path.lexists(out) and not out.is_dir():
        raise ChunkrecallError(
            f"--out {quoted(out)} is a file, and --out names a folder: {QRELS_NAME} and "
            f"{RUN_NAME} are written into it; give the path of a folder (made when missing)"
        )
    data = read_report(report)
    queries, skipped = queries_of(data, report)
    documents = fingerprints_of(shard_of(data, name=str(report)).gold_info)
    output = Output(force=force)
    qrels, run = out / QRELS_NAME, out / RUN_NAME
    output.add(qrels, qrels_text(queries))
    output.add(run, run_text(queries, tag=_escape(tag)))
    without = sum(query.relevant == (NO_HOLDING_CHUNK,) for query in queries)
    return TrecExport(output, len(queries), without, skipped, qrels, run, documents)


def queries_of(data: Mapping[str, Any], report: Path) -> tuple[list[Query], int]:
    """The evaluated cases of the report ``data`` (read from ``report``) as queries, and how
    many cases were not evaluated."""
    cases = data["cases"]
    queries: list[Query] = []
    skipped = 0
    seen: set[str] = set()
    for number, case in enumerate(cases, start=1):
        where = f"{report}: case {number}"
        if not isinstance(case, dict) or not isinstance(case.get("nodeid"), str):
            raise ChunkrecallError("a case must be an object with a 'nodeid'", where=where)
        where += f" ({case['nodeid']})"
        if case.get("verdict") is None:
            skipped += 1
            continue
        query = _query(case, where)
        if query.qid in seen:
            raise ChunkrecallError(f"node id {case['nodeid']!r} appears twice", where=where)
        seen.add(query.qid)
        queries.append(query)
    return queries, skipped


def _query(case: dict[str, object], where: str) -> Query:
    retrieved = _ids(case, "retrieved_ids", where)
    if retrieved is None:
        raise ChunkrecallError(
            "this case has no 'retrieved_ids': the report comes from a version that does not "
            "record chunk ids; run pytest again with --chunkrecall-report",
            where=where,
        )
    holding = _ids(case, "holding_ids", where)
    rank = case.get("rank")
    if holding is None and case.get("verdict") == "hit" and isinstance(rank, int) and rank >= 1:
        # Which other chunks hold the span is unknown; the one ranked at `rank` does.
        holding = retrieved[rank - 1 : rank]
    relevant = tuple(dict.fromkeys(holding or ())) or (NO_HOLDING_CHUNK,)
    leaked = _leaked(case, where)
    if case.get("verdict") == "leaked":
        # a miss in the report, whatever its holders: the tools count it as one too
        relevant = (NO_HOLDING_CHUNK,)
    return Query(_escape(str(case["nodeid"])), _ranked(retrieved), relevant, leaked)


def _leaked(case: dict[str, object], where: str) -> tuple[str, ...]:
    """The chunk ids of a case's ``leaks``: what came back that must not have."""
    leaks = case.get("leaks") or []
    if not isinstance(leaks, list) or not all(isinstance(leak, dict) for leak in leaks):
        raise ChunkrecallError("'leaks' must be a list of leaked chunks", where=where)
    ids = (leak.get("chunk") for leak in leaks)
    return tuple(dict.fromkeys(_escape(chunk) for chunk in ids if isinstance(chunk, str)))


def _ranked(retrieved: tuple[str, ...]) -> tuple[str, ...]:
    """The run of one query, every chunk at the rank the report gives it.

    TREC tools keep one line per document, and an empty run drops the query
    from some measures' means. A chunk returned again stays in its place as
    ``<id>~2`` (not relevant: the first time already counted), and a query
    that retrieved nothing gets the one document :data:`NOTHING_RETRIEVED`.
    """
    if not retrieved:
        return (NOTHING_RETRIEVED,)
    seen: dict[str, int] = {}
    ranked = []
    for chunk in retrieved:
        seen[chunk] = seen.get(chunk, 0) + 1
        ranked.append(chunk if seen[chunk] == 1 else f"{chunk}~{seen[chunk]}")
    return tuple(ranked)


def _ids(case: dict[str, object], key: str, where: str) -> tuple[str, ...] | None:
    value = case.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ChunkrecallError(f"'{key}' must be a list of '<doc>#<index>' chunk ids", where=where)
    return tuple(_escape(item) for item in value)


def qrels_text(queries: list[Query]) -> str:
    """TREC qrels: ``qid 0 docid relevance``, one line per relevant chunk (relevance 1) and
    per leaked chunk (relevance -1: judged, and worse than not relevant)."""
    lines = []
    for query in queries:
        lines += [f"{query.qid} 0 {doc} 1\n" for doc in query.relevant]
        lines += [f"{query.qid} 0 {doc} -1\n" for doc in query.leaked if doc not in query.relevant]
    return "".join(lines)


def run_text(queries: list[Query], *, tag: str) -> str:
    """TREC run: ``qid Q0 docid rank score tag``; scores fall with rank, as the tools sort by them."""
    lines = []
    for query in queries:
        count = len(query.retrieved)
        for rank, doc in enumerate(query.retrieved, start=1):
            lines.append(f"{query.qid} Q0 {doc} {rank} {count - rank + 1} {tag}\n")
    return "".join(lines)


def _escape(text: str) -> str:
    """``text`` as one TREC field: whitespace and ``%`` percent-encoded."""
    return _UNSAFE.sub(lambda m: f"%{ord(m.group()):02X}", text)
