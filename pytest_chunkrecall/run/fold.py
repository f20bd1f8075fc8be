"""The run, folded case by case as the entries arrive: what its end says, without its entries.

A pytest run feeds its owner's fold one test report at a time; ``merge`` and
``compare`` feed one the entries of JSON reports. Everything the summary, the
gates, the Markdown and the JSON report's totals say comes from a fold, so a
merged report of shards says what one run would.

What a fold keeps of a case is what the end needs of it: a few numbers for the
totals and the span arithmetic (:class:`CaseFact`), and its name in a list the
summary prints (a change against the baseline, a split among the worst, a case
not evaluated). Its whole entry is the spool's (:mod:`.spool`), except for the
few failing cases the Markdown lists (at most :data:`FAILING_LISTED`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..baseline.reasons import ABSENT_NAMED
from ..baseline.saved import Baseline, Comparison, ComparisonTally, Entry
from ..chunking.survival import SpanAnalysis, SpanFact, analyse
from ..config.table import SETUP_KEYS, Policy
from ..evaluation import codec
from ..evaluation.case_facts import CaseBrief, CaseFact
from ..evaluation.gold_facts import GoldInfo
from ..evaluation.results import (
    BaselineMark,
    CaseResult,
    Count,
    CutView,
    Line,
    RanksSeen,
    Totals,
    Unstable,
    Varied,
)
from ..evaluation.verdicts import KINDS, LOSSES, STAGES, Stage, kind_of
from . import sweep
from .entry import CaseEntry, order_key

REPORT_FORMAT = 1
"""The JSON report's ``chunkrecall_report`` version: what a fold's report is written as and
read back from."""

WORST_SPLITS = 10
"""How many of the longest split spans the Markdown summary lists."""

UNSTABLE_LISTED = 20
"""How many unstable cases the summary names; the rest it counts."""

FAILING_LISTED = 50
"""How many failing cases the Markdown summary lists: regressions, then absent cases, then
the other failures, each in gold-file and line order; the rest it counts."""


@dataclass(frozen=True)
class Funnel:
    """Where recall goes, stage by stage, over the same cases, counted from their verdicts.

    A case's verdict is the first stage that lost it: ``loaded`` is ``cases``
    less the ``unparsed`` ones (the loader lost them), ``whole`` less the
    ``split`` ones (chunking cut them) and the ``absent`` ones (in no loaded
    document: a gold-data error, listed apart), ``candidates`` less the
    ``ranked_out`` ones (the first stage missed them), ``top_k`` less the
    ``reranked_out`` ones (the reranker dropped them): the hits. Each step is
    the one before less its losses, so the steps add up. Without a loader
    ``loaded`` is ``cases``; without a reranker ``candidates`` is ``top_k``.
    """

    cases: int
    loaded: int
    whole: int
    candidates: int
    top_k: int
    lost: dict[str, int]  # by verdict, in stage order, those with a case only

    @classmethod
    def of(cls, totals: Totals) -> Funnel:
        """The funnel of ``totals``' verdict counts."""
        counts = totals.verdicts
        reached: dict[Stage, int] = {}
        remaining = totals.cases
        for stage in STAGES:
            remaining -= sum(counts.get(kind.name, 0) for kind in KINDS if kind.lost_at == stage)
            reached[stage] = remaining
        lost = {verdict: counts.get(verdict, 0) for verdict in FUNNEL_LOSSES}
        return cls(
            totals.cases,
            reached["loaded"],
            reached["whole"],
            reached["candidates"],
            reached["top_k"],
            {verdict: count for verdict, count in lost.items() if count},
        )

    def to_json(self) -> dict[str, int]:
        """The report's ``funnel`` object."""
        return {
            "cases": self.cases,
            "loaded": self.loaded,
            "whole": self.whole,
            "candidates": self.candidates,
            "top_k": self.top_k,
        }


FUNNEL_LOSSES = LOSSES
"""The verdicts of a miss, in the order of the stages that lose them."""


@codec.projection(CaseResult)
@dataclass(frozen=True, slots=True)
class SplitCase:
    """A case whose span no chunk holds whole, as the Markdown's worst splits list it: where a
    boundary divided it (``cut``), and how long it is."""

    gold_file: str
    id: str
    line: Line
    span_length: Count
    unit: str
    cut: CutView | None


@codec.projection(CaseResult)
@dataclass(frozen=True, slots=True)
class CaseStanding:
    """What the fold reads of an evaluated case beside its :class:`CaseFact`: how it stands
    against the baseline, and whether its repeats agreed."""

    baseline: BaselineMark | None
    unstable: Unstable
    ranks_seen: RanksSeen
    varied: Varied

    @property
    def regression(self) -> bool:
        """Whether it was a hit in the baseline and misses now."""
        return self.baseline is not None and self.baseline.change == "regression"


@dataclass(frozen=True)
class UnstableCase:
    """A case whose repeats differed (``chunkrecall_repeat``): its node id, each repeat's
    rank (``None``: it missed the top k), and what else differed between them, in words."""

    nodeid: str
    ranks_seen: list[int | None]
    varied: str = ""


@dataclass(frozen=True)
class GoldFileRun:
    """One gold file of a run: its facts (``None`` until a case of it ran), the facts of its
    evaluated cases in line order, their totals and their span arithmetic; ``quarantined``
    the ids of its unstable cases that ``chunkrecall_unstable = quarantine`` keeps out of the
    baseline."""

    path: str
    info: GoldInfo | None
    cases: list[CaseFact]
    totals: Totals
    analysis: SpanAnalysis | None
    quarantined: frozenset[str] = frozenset()

    @property
    def funnel(self) -> Funnel:
        """Where this gold file's recall goes, stage by stage."""
        return Funnel.of(self.totals)

    @property
    def span_lengths(self) -> list[int]:
        """The lengths of the spans the span arithmetic is over, shortest first."""
        return sorted(span.length for span in spans_of(self.cases))

    @property
    def staged(self) -> bool:
        """Whether a stage besides chunking and ranking is configured: a loader or a reranker."""
        return self.info is not None and ("reranker" in self.info or "loader" in self.info)

    def entries(self) -> dict[str, Entry]:
        """What the baseline records of each evaluated case, by id: not a quarantined case's
        result, which may be a lucky one."""
        return {fact.id: Entry.of(fact) for fact in self.cases if fact.id not in self.quarantined}


@dataclass(frozen=True)
class RunSummary:
    """What the fold of a run says at its end."""

    totals: Totals
    gold_files: list[GoldFileRun]
    comparison: Comparison | None
    unevaluated: list[str]
    expected_misses: int
    failed_cases: int  # evaluated or not, whose test failed
    failed: bool  # whether a case failed (or its worker crashed), and so the run
    sweep_spec: str | None
    sweep_rows: list[sweep.SweepRow]
    worst_splits: list[SplitCase]
    setup_args: list[str]
    failing: list[CaseEntry]  # the first FAILING_LISTED evaluated cases that failed, worst first
    failing_evaluated: int  # evaluated cases that failed, listed or not
    absent_failed: int  # absent cases that failed
    absent_named: list[str]  # the ids of the first ABSENT_NAMED of them, in gold-file order
    unstable: list[UnstableCase]  # the first UNSTABLE_LISTED unstable cases, in gold-file order
    unstable_count: int  # unstable cases, listed or not
    quarantine: bool  # whether unstable cases are left out of the baseline comparison
    # the sweep's setting with the least context to the answer among those as good as the best
    sweep_cheapest: sweep.Cheapest | None = None

    @property
    def funnel(self) -> Funnel:
        """Where the run's recall goes, stage by stage."""
        return Funnel.of(self.totals)

    @property
    def evaluated_files(self) -> set[str]:
        """The gold files with an evaluated case."""
        return {gold.path for gold in self.gold_files if gold.cases}

    def setups(self) -> dict[str, dict[str, object]]:
        """What each evaluated gold file was configured with, as the baseline records it."""
        return setups_of(self._infos())

    def fingerprints(self) -> dict[str, dict[str, str]]:
        """The sha256 of each corpus document, by gold file (none where facts lack them)."""
        return fingerprints_of(self._infos())

    def _infos(self) -> dict[str, GoldInfo]:
        return {gold.path: gold.info for gold in self.gold_files if gold.info is not None}

    def baseline_entries(self) -> dict[str, dict[str, Entry]]:
        """What an updated baseline records of this run's evaluated cases."""
        return {gold.path: gold.entries() for gold in self.gold_files if gold.cases}


def spans_of(facts: Sequence[CaseFact]) -> list[SpanFact]:
    """The spans of evaluated cases that the span arithmetic counts: every output's span
    statistics are over these. A case whose verdict says its span is not in the loaded text
    (``absent``, ``unparsed``) has no length that chunking could have kept whole."""
    return [
        SpanFact(fact.id, fact.span_length, fact.span_split)
        for fact in facts
        if kind_of(fact.verdict).span_loaded
    ]


def setups_of(gold_info: Mapping[str, GoldInfo]) -> dict[str, dict[str, object]]:
    """What each gold file evaluated was configured with, as the baseline records it."""
    return {
        path: {key: info[key] for key in SETUP_KEYS if key in info}  # type: ignore[literal-required]
        for path, info in gold_info.items()
        if "error" not in info
    }


def fingerprints_of(gold_info: Mapping[str, GoldInfo]) -> dict[str, dict[str, str]]:
    """The sha256 of each corpus document, by gold file (none where facts lack them)."""
    return {
        path: dict(info.get("fingerprints") or {})
        for path, info in gold_info.items()
        if "error" not in info
    }


class RunFold:
    """A run's end, added up one case entry at a time (see the module docstring).

    ``baseline`` is what each evaluated case is set against; ``sweep_spec`` the
    sweep whose rows the cases' contributions add up to, with their evidence at
    ``alpha``; ``setup_args`` the command-line options that changed the setup;
    ``unstable`` what becomes of an unstable case (``quarantine``: it is left out of the
    comparison with the baseline, and of an updated baseline).
    """

    def __init__(
        self,
        *,
        baseline: Baseline | None = None,
        sweep_spec: str | None = None,
        alpha: float = 0.05,
        setup_args: Sequence[str] = (),
        unstable: Policy = "strict",
    ) -> None:
        self.quarantine = unstable == "quarantine"
        self._unstable: list[tuple[tuple[str, int, str], UnstableCase]] = []
        self._unstable_count = 0
        self._quarantined: dict[str, set[str]] = {}  # by gold file, the case ids
        self.sweep_spec = sweep_spec
        self.alpha = alpha
        self.setup_args = list(setup_args)
        self.gold_info: dict[str, GoldInfo] = {}
        self._facts: dict[str, list[CaseFact]] = {}  # by gold file, evaluated cases only
        self._seen: set[str] = set()
        self._crashed: set[str] = set()
        self._unevaluated: list[tuple[tuple[str, int, str], str]] = []
        self._expected = self._failed_cases = 0
        self._worst: list[tuple[tuple[int, str, int], SplitCase]] = []
        self._failing: list[tuple[tuple[int, tuple[str, int, str]], CaseEntry]] = []
        self._failing_evaluated = self._absent_failed = 0
        self._absent: list[tuple[tuple[str, int, str], str]] = []
        self._tally = ComparisonTally(baseline) if baseline is not None else None
        self._sweep = sweep.SweepTally(sweep.parse(sweep_spec)) if sweep_spec else None

    def __contains__(self, nodeid: object) -> bool:
        return nodeid in self._seen

    def add(self, entry: CaseEntry) -> None:
        """Fold in one case's entry (a case already folded in is not counted again)."""
        nodeid = entry["nodeid"]
        if nodeid in self._seen:
            return
        self._seen.add(nodeid)
        gold_file, outcome = entry["gold_file"], entry["outcome"]
        facts = self._facts.setdefault(gold_file, [])
        self._failed_cases += outcome == "failed"
        if entry["verdict"] is None:
            if outcome != "skipped":
                self._unevaluated.append((order_key(entry), nodeid))
            return
        fact = CaseFact.of(entry)
        facts.append(fact)
        standing = codec.project(CaseStanding, entry)
        # a quarantined case can be an expected failure that hit: it is no expected miss
        self._expected += outcome == "xfailed" and not fact.hit
        if fact.span_split:
            self._add_split(codec.project(SplitCase, entry))
        if outcome == "failed":
            self._add_failing(entry, fact, standing)
        if standing.unstable:
            self._add_unstable(entry, standing)
        if self._tally is not None and not (self.quarantine and standing.unstable):
            # a quarantined case is left out of the comparison: its result may be a lucky one
            self._tally.add(CaseBrief.of(entry), lambda: CaseResult.from_json(entry))
        contributions = entry.get("sweep")
        if self._sweep is not None and contributions:
            self._sweep.add(gold_file, contributions)

    def __len__(self) -> int:
        return len(self._seen)

    def gold_file_paths(self) -> set[str]:
        """The gold files with a case in the run (evaluated or not)."""
        return set(self._facts)

    def add_gold_info(self, path: str, info: GoldInfo) -> None:
        """What a gold file was evaluated with (the first one told is kept)."""
        self.gold_info.setdefault(path, info)

    def add_crashed(self, nodeid: str) -> None:
        """A case that ran but sent no entry: its xdist worker died."""
        self._crashed.add(nodeid)

    def _add_split(self, found: SplitCase) -> None:
        key = (-found.span_length, found.gold_file, found.line)
        self._worst.append((key, found))
        if len(self._worst) >= 4 * WORST_SPLITS:  # kept short, sorted only now and then
            self._worst = sorted(self._worst, key=lambda pair: pair[0])[:WORST_SPLITS]

    def _add_unstable(self, entry: CaseEntry, standing: CaseStanding) -> None:
        if self.quarantine:
            self._quarantined.setdefault(entry["gold_file"], set()).add(entry["id"])
        self._unstable_count += 1
        ranks_seen = list(standing.ranks_seen or [])
        unstable = UnstableCase(entry["nodeid"], ranks_seen, standing.varied or "")
        self._unstable.append((order_key(entry), unstable))
        if len(self._unstable) >= 4 * UNSTABLE_LISTED:  # kept short, sorted only now and then
            self._unstable = sorted(self._unstable, key=lambda pair: pair[0])[:UNSTABLE_LISTED]

    def _add_failing(self, entry: CaseEntry, fact: CaseFact, standing: CaseStanding) -> None:
        """Keep a failed case for the Markdown's list, and an absent one for the reason line."""
        self._failing_evaluated += 1
        absent = fact.verdict == "absent"
        key = (0 if standing.regression else 1 if absent else 2, order_key(entry))
        self._failing.append((key, entry))
        if len(self._failing) >= 4 * FAILING_LISTED:  # kept short, sorted only now and then
            self._failing = sorted(self._failing, key=lambda pair: pair[0])[:FAILING_LISTED]
        if absent:
            self._absent_failed += 1
            self._absent.append((order_key(entry), entry["id"]))
            if len(self._absent) >= 4 * ABSENT_NAMED:
                self._absent = sorted(self._absent)[:ABSENT_NAMED]

    def finish(self, *, existing: Mapping[str, set[str] | None] | None = None) -> RunSummary:
        """What the run says, its cases all folded in; ``existing`` (the case ids each gold
        file has now, ``None``: it is gone) names the baseline's removed cases."""
        gold_files = [self._gold_file(path) for path in sorted(self._facts)]
        crashed = sorted(self._crashed - self._seen)
        rows = self._sweep.rows(alpha=self.alpha) if self._sweep else []
        return RunSummary(
            totals=Totals.of(fact for gold in gold_files for fact in gold.cases),
            gold_files=gold_files,
            comparison=self._tally.comparison(existing or {}) if self._tally else None,
            unevaluated=[nodeid for _, nodeid in sorted(self._unevaluated)] + crashed,
            expected_misses=self._expected,
            failed_cases=self._failed_cases,
            failed=self._failed_cases > 0 or bool(crashed),
            sweep_spec=self.sweep_spec,
            sweep_rows=rows,
            worst_splits=[split for _, split in sorted(self._worst, key=lambda pair: pair[0])][
                :WORST_SPLITS
            ],
            setup_args=list(self.setup_args),
            failing=[entry for _, entry in sorted(self._failing, key=lambda pair: pair[0])][
                :FAILING_LISTED
            ],
            failing_evaluated=self._failing_evaluated,
            absent_failed=self._absent_failed,
            absent_named=[name for _, name in sorted(self._absent)][:ABSENT_NAMED],
            unstable=[case for _, case in sorted(self._unstable, key=lambda pair: pair[0])][
                :UNSTABLE_LISTED
            ],
            unstable_count=self._unstable_count,
            quarantine=self.quarantine,
            sweep_cheapest=self._sweep.cheapest(rows, alpha=self.alpha) if self._sweep else None,
        )

    def _gold_file(self, path: str) -> GoldFileRun:
        facts = sorted(self._facts[path])
        info = self.gold_info.get(path)
        analysis = None
        if info is not None and "geometry" in info:
            analysis = analyse(spans_of(facts), info["geometry"])
        quarantined = frozenset(self._quarantined.get(path, ()))
        return GoldFileRun(path, info, facts, Totals.of(facts), analysis, quarantined)
