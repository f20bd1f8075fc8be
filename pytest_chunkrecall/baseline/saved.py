"""The baseline: each case's last accepted verdict, so a run can tell regressions from known misses."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ChunkrecallError, shown
from ..evaluation import codec
from ..evaluation.case_facts import Entry as Entry  # the baseline's entry, a projection
from ..evaluation.case_facts import Scored
from ..evaluation.results import (
    VERDICTS,
    BaselineMark,
    CaseResult,
    Change,
    Totals,
    verdict_counts,
)
from ..files import read_json
from ..measures.statistics import ContextChange

FORMAT = 1
KEY = "chunkrecall_baseline"
UPDATE = "pytest --chunkrecall-update-baseline"


@dataclass(frozen=True)
class Baseline:
    """Entries by gold file and case id, what each gold file was evaluated with, and the
    sha256 of each of its corpus documents."""

    cases: dict[str, dict[str, Entry]] = field(default_factory=dict)
    setups: dict[str, dict[str, Any]] = field(default_factory=dict)
    documents: dict[str, dict[str, str]] = field(default_factory=dict)

    def get(self, gold_file: str, case_id: str) -> Entry | None:
        return self.cases.get(gold_file, {}).get(case_id)

    def __len__(self) -> int:
        return sum(len(entries) for entries in self.cases.values())

    def totals(self) -> Totals:
        """The baseline's totals, counted as a run's are."""
        entries = [e for per_file in self.cases.values() for e in per_file.values()]
        verdicts = verdict_counts(e.verdict for e in entries)
        return Totals(len(entries), verdicts["hit"], sum(e.span_split for e in entries), verdicts)


def load(path: Path, *, name: str) -> Baseline:
    """Read the baseline at ``path``; ``name`` is how messages refer to it.

    Raises :class:`ChunkrecallError` for a missing, corrupt, foreign or newer file.
    """
    data = read_json(
        path,
        what=f"baseline {name}",
        kind="a baseline",
        missing=f"baseline {name} does not exist; create it with {UPDATE} --chunkrecall-baseline {name}",
        advice=f"restore it from version control, or delete it and run {UPDATE}",
    )
    if not isinstance(data, dict) or KEY not in data:
        raise ChunkrecallError(
            f"{name} is not a chunkrecall baseline (it has no {KEY!r} key); point "
            "--chunkrecall-baseline at a file written by --chunkrecall-update-baseline"
        )
    version = data[KEY]
    if version != FORMAT:
        newer = isinstance(version, int) and version > FORMAT
        raise ChunkrecallError(
            f"baseline {name} has format {shown(version)}"
            + (f" (text, not the number {FORMAT})" if isinstance(version, str) else "")
            + f", and this pytest-chunkrecall reads format {FORMAT}"
            + ("; upgrade pytest-chunkrecall" if newer else "")
        )
    try:
        return _entries(data)
    except ValueError as exc:
        raise ChunkrecallError(
            f"baseline {name} is damaged: {exc}; restore it from version control, or delete it "
            f"and run {UPDATE}"
        ) from None


def _entries(data: Mapping[str, Any]) -> Baseline:
    cases: dict[str, dict[str, Entry]] = {}
    setups: dict[str, dict[str, Any]] = {}
    documents: dict[str, dict[str, str]] = {}
    gold_files = data.get("gold_files")
    if not isinstance(gold_files, dict):
        raise ValueError("'gold_files' must be a mapping of gold file paths")
    for gold_file, body in gold_files.items():
        if not isinstance(body, dict) or not isinstance(body.get("cases"), dict):
            raise ValueError(f"{gold_file!r} must have a 'cases' mapping")
        entries = {}
        for case_id, entry in body["cases"].items():
            entries[str(case_id)] = _entry(f"{gold_file}::{case_id}", entry)
        cases[str(gold_file)] = entries
        setups[str(gold_file)] = dict(body.get("setup") or {})
        fingerprints = body.get("documents") or {}  # older baselines have none
        if not isinstance(fingerprints, dict) or not all(
            isinstance(v, str) for v in fingerprints.values()
        ):
            raise ValueError(f"{gold_file!r} has 'documents' that are not document fingerprints")
        documents[str(gold_file)] = {str(doc): sha for doc, sha in fingerprints.items()}
    return Baseline(cases, setups, documents)


def _entry(where: str, entry: Any) -> Entry:
    """One case of a baseline file, ``where`` naming it, checked."""
    if not isinstance(entry, dict) or entry.get("verdict") not in VERDICTS:
        raise ValueError(f"{where} has no known verdict (one of {', '.join(VERDICTS)})")
    rank = entry.get("rank")
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
        raise ValueError(f"{where} has rank {rank!r}, not a whole number from 1 or null")
    cost = entry.get("context_to_answer")  # older baselines have none
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int) or cost < 0):
        raise ValueError(
            f"{where} has context_to_answer {cost!r}, not a whole number from 0 or null"
        )
    return Entry(entry["verdict"], rank, bool(entry.get("span_split")), cost)


def updated(
    old: Baseline,
    entries: Mapping[str, Mapping[str, Entry]],
    *,
    existing: Mapping[str, set[str] | None],
    setups: Mapping[str, Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, str]] | None = None,
) -> Baseline:
    """``old`` with this run's ``entries`` (by gold file, then case id) in place of its own.

    ``existing`` gives, for each gold file of the run and of ``old``, the case
    ids the gold file has now (``None``: the file is gone); ``setups`` and ``documents``
    what each gold file of the run was evaluated with. Entries of cases that
    still exist but did not run this time (deselected, skipped) are kept; entries
    of cases and gold files that no longer exist are dropped.
    """
    cases = {path: dict(found) for path, found in old.cases.items()}
    kept_setups = dict(old.setups)
    kept_documents = {path: dict(found) for path, found in old.documents.items()}
    for path, now in entries.items():
        cases.setdefault(path, {}).update(now)
    for path, ids in existing.items():
        if ids is None:
            cases.pop(path, None)
            kept_setups.pop(path, None)
            kept_documents.pop(path, None)
        elif path in cases:
            cases[path] = {case_id: e for case_id, e in cases[path].items() if case_id in ids}
    for path, setup in setups.items():
        kept_setups[path] = dict(setup)
    for path, found in (documents or {}).items():
        kept_documents[path] = dict(found)
    return Baseline(
        {p: e for p, e in cases.items() if e},
        {p: s for p, s in kept_setups.items() if p in cases},
        {p: d for p, d in kept_documents.items() if p in cases},
    )


def dumps(baseline: Baseline) -> str:
    """The baseline as JSON that reads and diffs well: sorted, one case per line."""
    counted = baseline.totals()
    # the cases below say their verdicts and ranks; the totals are for a reader's eye
    totals = {
        "cases": counted.cases,
        "hits": counted.hits,
        "hit_rate": round(counted.hit_rate, 6),
        "split_spans": counted.split_spans,
    }
    lines = [
        "{",
        f'  "{KEY}": {FORMAT},',
        f'  "written_by": {json.dumps(UPDATE)},',
        f'  "totals": {json.dumps(totals)},',
        '  "gold_files": {',
    ]
    files = sorted(baseline.cases)
    for number, path in enumerate(files):
        setup = json.dumps(baseline.setups.get(path, {}), sort_keys=True)
        lines.append(f"    {json.dumps(path)}: {{")
        lines.append(f'      "setup": {setup},')
        fingerprints = json.dumps(baseline.documents.get(path, {}), sort_keys=True)
        lines.append(f'      "documents": {fingerprints},')
        lines.append('      "cases": {')
        ids = sorted(baseline.cases[path])
        for index, case_id in enumerate(ids):
            entry = json.dumps(baseline.cases[path][case_id].to_json())
            lines.append(
                f"        {json.dumps(case_id)}: {entry}{',' if index < len(ids) - 1 else ''}"
            )
        lines.append("      }")
        lines.append("    }" + ("," if number < len(files) - 1 else ""))
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def classify(entry: Entry | None, result: Scored) -> Change:
    """What a case's result is against its baseline entry (``None``: the baseline lacks it).

    The one place that decides it: the case's test outcome, its entry's
    :class:`BaselineMark` and the run's comparison all ask here.
    """
    if entry is None:
        return "new"
    if result.verdict == "leaked" and entry.verdict != "leaked":
        return "regression"  # a leak where there was none, whatever the needle did then
    if entry.hit:
        return "still_hit" if result.hit else "regression"
    if result.hit:
        return "improvement"
    if (entry.verdict, result.verdict) == ("ranked_out", "reranked_out"):
        return "stage_change"
    return "known_miss"


def mark(entry: Entry, result: Scored, *, document_changed: Callable[[], bool]) -> BaselineMark:
    """What ``result``'s entry records of the baseline's ``entry`` for it: the baseline's
    verdict, rank and span_split, and the change; ``document_changed`` says whether the
    span lies in a document that changed since, asked only of a regression."""
    change = classify(entry, result)
    return BaselineMark(
        **codec.encode(entry),
        change=change,
        document_changed=change == "regression" and document_changed(),
    )


@dataclass(frozen=True)
class Comparison:
    """How this run's results differ from the baseline's, over the cases this run evaluated.

    Each list is in gold-file and line order. A regression keeps the case's whole
    result (its message says where the span lies); the other changes only name theirs.
    """

    regressions: list[tuple[CaseResult, Entry]]
    improvements: list[tuple[Scored, Entry]]
    known_misses: list[Scored]
    new: list[Scored]
    removed: list[str]
    common: int
    baseline_hits: int
    current_hits: int
    # known misses that moved from ranked_out to reranked_out: a reranker now drops what
    # the first stage finds, a change of stage and no regression
    stage_changes: list[Scored] = field(default_factory=list)
    # the context to the answer on the cases hit in both runs, before and after
    context: ContextChange = field(default_factory=lambda: ContextChange.of([]))

    @property
    def drop_points(self) -> float:
        """How many percentage points the hit rate fell on the cases both runs have."""
        if not self.common:
            return 0.0
        return (self.baseline_hits - self.current_hits) * 100 / self.common


def _order(case: Scored) -> tuple[str, int, str]:
    return (case.gold_file, case.line, case.id)


class ComparisonTally:
    """The comparison with ``baseline``, added up case by case as the cases arrive."""

    def __init__(self, baseline: Baseline) -> None:
        self.baseline = baseline
        self._regressions: list[tuple[CaseResult, Entry]] = []
        self._improvements: list[tuple[Scored, Entry]] = []
        self._known: list[Scored] = []
        self._new: list[Scored] = []
        self._stage_changes: list[Scored] = []
        self._common = self._baseline_hits = self._current_hits = 0
        self._context: list[tuple[int, int]] = []  # (before, after) of the cases hit in both

    def add(self, case: Scored, result: Callable[[], CaseResult]) -> None:
        """Set one evaluated case against its entry; ``result`` makes its whole result, which
        only a regression keeps."""
        entry = self.baseline.get(case.gold_file, case.id)
        change = classify(entry, case)
        if entry is None:
            self._new.append(case)
            return
        self._common += 1
        self._baseline_hits += entry.hit
        self._current_hits += case.hit
        if entry.context_to_answer is not None and case.context_to_answer is not None:
            self._context.append((entry.context_to_answer, case.context_to_answer))
        if change == "regression":
            self._regressions.append((result(), entry))
        elif change == "improvement":
            self._improvements.append((case, entry))
        elif change in ("known_miss", "stage_change"):
            self._known.append(case)
            if change == "stage_change":
                self._stage_changes.append(case)

    def comparison(self, existing: Mapping[str, set[str] | None]) -> Comparison:
        """What was added up; ``existing`` (as for :func:`updated`) names the removed cases."""
        removed = []
        for path, ids in existing.items():
            for case_id in sorted(self.baseline.cases.get(path, {})):
                if ids is None or case_id not in ids:
                    removed.append(f"{path}::{case_id}")
        return Comparison(
            sorted(self._regressions, key=lambda pair: _order(pair[0])),
            sorted(self._improvements, key=lambda pair: _order(pair[0])),
            sorted(self._known, key=_order),
            sorted(self._new, key=_order),
            removed,
            self._common,
            self._baseline_hits,
            self._current_hits,
            sorted(self._stage_changes, key=_order),
            ContextChange.of(self._context),
        )
