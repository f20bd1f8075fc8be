"""The record of a run: every case's report entry and each gold file's facts, as gathered.

A pytest run gathers one from its test reports; ``merge`` and ``compare`` read one
back from JSON reports. Everything the summary, the gates and the JSON report say
is computed from a record, so a merged report of shards says what one run would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from ..chunking.survival import SpanFact, analyse
from ..evaluation.gold_facts import GoldFileSummary, GoldInfo
from ..evaluation.results import CaseResult
from . import sweep
from .packed import Entries

REPORT_FORMAT = 1
"""The JSON report's ``chunkrecall_report`` version: what a record is written as and read back from."""

SETUP_KEYS = ("chunker", "chunker_args", "retriever", "retriever_args", "k", "match")
"""What the baseline records of each gold file's setup."""


@dataclass(frozen=True)
class _Census:
    """What one walk over a record's entries finds: their order, results and outcome."""

    order: list[int]  # the entries' indices in gold-file and line order
    results: list[CaseResult]  # of the evaluated ones, in that order
    paths: frozenset[str]
    failed: bool
    expected_misses: int
    unevaluated: list[str]


@dataclass(frozen=True)
class RunRecord:
    """Every case of a run, each gold file's facts, and what could not be evaluated.

    ``cases`` are the report's case entries (``CaseResult.to_json()`` plus ``nodeid``,
    ``outcome``, ``xfail`` and any ``sweep`` contributions), in any order: a list, or
    entries kept packed (:func:`.packed.packed_entries`), which the record walks
    once for all it says of them, and again only to write them.
    """

    cases: Sequence[Mapping[str, Any]]
    gold_info: dict[str, GoldInfo] = field(default_factory=dict)
    crashed: list[str] = field(default_factory=list)  # whose worker died: no entry in cases
    sweep_spec: str | None = None
    setup_args: list[str] = field(default_factory=list)

    @cached_property
    def _census(self) -> _Census:
        Key = tuple[str, int, str, int]
        keys: list[Key] = []
        results: list[tuple[Key, CaseResult]] = []
        unevaluated: list[tuple[Key, str]] = []
        paths: set[str] = set()
        failed = False
        expected = 0
        # read back together, the results share their chunk views and ids, as they
        # did when the run made them (entries read from JSON or packed share nothing)
        shared: dict[object, object] = {}
        for number, case in enumerate(self.cases):
            key = (case["gold_file"], case["line"], case["id"], number)
            keys.append(key)
            paths.add(case["gold_file"])
            outcome = case["outcome"]
            failed = failed or outcome == "failed"
            if case.get("verdict") is None:
                if outcome != "skipped":
                    unevaluated.append((key, case["nodeid"]))
                continue
            results.append((key, CaseResult.from_json(case, shared=shared)))
            expected += outcome == "xfailed"
        keys.sort()
        results.sort(key=lambda pair: pair[0])
        unevaluated.sort()
        return _Census(
            order=[key[-1] for key in keys],
            results=[result for _, result in results],
            paths=frozenset(paths),
            failed=failed,
            expected_misses=expected,
            unevaluated=[nodeid for _, nodeid in unevaluated],
        )

    @cached_property
    def ordered(self) -> Sequence[Mapping[str, Any]]:
        """Every case's entry in gold-file and line order (whatever order they came in)."""
        return Entries(self._census.order, self.cases.__getitem__)

    def results(self) -> list[CaseResult]:
        """The evaluated cases (skipped ones have no result), in gold-file order."""
        return self._census.results

    def gold_file_paths(self) -> set[str]:
        """The gold files with a case in the run."""
        return set(self._census.paths)

    def unevaluated(self) -> list[str]:
        """Cases that ran but have no verdict: their configuration, the user's code or their
        worker failed."""
        return self._census.unevaluated + sorted(self.crashed)

    def expected_misses(self) -> int:
        """How many evaluated cases were expected failures (xfail or known misses)."""
        return self._census.expected_misses

    def failed(self) -> bool:
        """Whether a case of the run failed (and so the run, whatever the gates say)."""
        return bool(self.crashed) or self._census.failed

    def gold_files(self) -> list[GoldFileSummary]:
        """Each gold file of the run with its facts, its results and its span arithmetic."""
        results = self.results()
        summaries = []
        for path in sorted(self.gold_file_paths()):
            mine = [r for r in results if r.gold_file == path]
            info = self.gold_info.get(path)
            analysis = None
            if info is not None and "geometry" in info:
                facts = [
                    SpanFact(r.id, r.span_length, r.span_split)
                    for r in mine
                    if r.verdict != "absent"
                ]
                analysis = analyse(facts, info["geometry"])
            summaries.append(GoldFileSummary(path, info, mine, analysis))
        return summaries

    def setups(self) -> dict[str, dict[str, object]]:
        """What each evaluated gold file was configured with, as the baseline records it."""
        return {
            path: {key: info[key] for key in SETUP_KEYS}  # type: ignore[literal-required]
            for path, info in self.gold_info.items()
            if "error" not in info
        }

    def fingerprints(self) -> dict[str, dict[str, str]]:
        """The sha256 of each corpus document, by gold file (none where facts lack them)."""
        return {
            path: dict(info.get("fingerprints") or {})
            for path, info in self.gold_info.items()
            if "error" not in info
        }

    def sweep_rows(self, *, alpha: float) -> list[sweep.SweepRow]:
        """The sweep's rows, each with its evidence against the configured setting."""
        if self.sweep_spec is None:
            return []
        return sweep.rows(sweep.parse(self.sweep_spec), self.ordered, alpha=alpha)

    def with_updates(self, updates: dict[str, dict[str, Any]]) -> RunRecord:
        """This record with the entries of the cases ``updates`` names (by node id) updated."""
        cases = [
            {**case, **updates[case["nodeid"]]} if case["nodeid"] in updates else case
            for case in self.cases
        ]
        return replace(self, cases=cases)
