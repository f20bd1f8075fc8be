"""A sweep: every case evaluated again at other chunker settings, to see what they would cost and buy.

Each case is evaluated at every setting where it runs (so under xdist, on its
worker, with its own conftest hooks); what it contributes to each row travels on
its report, and the rows are added up where the reports are.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import yaml

from ..chunking import sweepable
from ..config.table import BY_NAME, SETUP_KEYS
from ..errors import ChunkrecallError
from ..evaluation.plan import Plan
from ..evaluation.results import CaseResult
from ..evaluation.suite import Component, Suite, SuiteCache
from ..gold import Case
from ..gold.safe_yaml import load_inline
from ..measures.statistics import SweepEvidence, holm, sweep_evidence

_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)=(.*)$", re.DOTALL)
_OPENING, _CLOSING = "{[(", "}])"


def parse(spec: str) -> list[dict[str, Any]]:
    """The settings a sweep spec names: ``"overlap=0,24,48"``, ``"size=400,800; overlap=0,100"``,
    ``"loader=site:soup,site:spaced"``, ``"retriever_args={k1: 1.2},{k1: 2.0}"``.

    A name is a setup setting of the settings table, checked as the gold file's would be,
    or else an argument of the configured chunker. Several names make a grid (every
    combination). Raises ``ValueError`` saying what is wrong with the spec.
    """
    axes: dict[str, list[Any]] = {}
    parts = [part for part in _split(spec.strip(), "; \t\n") if part]
    if not parts:
        raise ValueError("it is empty; write e.g. 'overlap=0,24,48'")
    for part in parts:
        match = _ASSIGNMENT.match(part)
        if not match:
            raise ValueError(f"{part!r} is not name=value,value,…; write e.g. 'overlap=0,24,48'")
        name, values = match.groups()
        if name in axes:
            raise ValueError(f"{name!r} is given twice")
        own = sweepable.sweep_name(name)
        same = [other for other in axes if sweepable.sweep_name(other) == own]
        if same:
            raise ValueError(f"{same[0]!r} and {name!r} name the same argument; give one of them")
        items = _split(values, ",")
        if not values or any(not item for item in items):
            raise ValueError(f"{name!r} needs a list of values, e.g. {name}=0,24,48")
        axes[name] = [_value(name, item) for item in items]
    _check_chunker_axes(list(axes))
    names = list(axes)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes.values())]


def _value(name: str, text: str) -> Any:
    """One value of the axis ``name``: a setup setting's checked by its row, a chunker
    argument's read as a YAML scalar."""
    setting = BY_NAME.get(name)
    if setting is None:
        return _scalar(text)
    if name not in SETUP_KEYS:
        raise ValueError(
            f"{name!r} is no part of the setup; a sweep varies {', '.join(SETUP_KEYS)}, "
            "or the chunker's arguments (e.g. size, overlap)"
        )
    try:
        value = load_inline(text, key=name)
    except (yaml.YAMLError, ChunkrecallError):
        raise ValueError(f"{name}={text}: cannot read {text!r} as YAML or JSON") from None
    checked, problem = setting.check(value)
    if problem:
        raise ValueError(f"{name}={text} {problem}")
    return checked


def _check_chunker_axes(names: list[str]) -> None:
    """Arguments of the configured chunker cannot be swept with another chunker or mapping."""
    arguments = [name for name in names if name not in BY_NAME]
    replacing = [name for name in ("chunker", "chunker_args") if name in names]
    if arguments and replacing:
        raise ValueError(
            f"{arguments[0]!r} is an argument of the configured chunker, which {replacing[0]}= "
            f"replaces; sweep chunker_args= with whole mappings instead, e.g. "
            "chunker_args={size: 400},{size: 800}"
        )


def _split(text: str, separators: str) -> list[str]:
    """``text`` cut at each of ``separators`` outside brackets and quotes, each piece
    stripped (``{a: 1, b: 2},{a: 3}`` is two values)."""
    pieces, current, depth, quote = [], "", 0, ""
    for character in text:
        if quote:
            quote = "" if character == quote else quote
        elif character in "\"'":
            quote = character
        elif character in _OPENING:
            depth += 1
        elif character in _CLOSING:
            depth = max(0, depth - 1)
        elif character in separators and depth == 0:
            pieces.append(current.strip())
            current = ""
            continue
        current += character
    pieces.append(current.strip())
    return pieces


def chunker_setting(setting: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a sweep setting that goes to the configured chunker as arguments."""
    return {name: value for name, value in setting.items() if name not in BY_NAME}


def setup_setting(setting: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a sweep setting that replaces setup settings of the settings table."""
    return {name: value for name, value in setting.items() if name in BY_NAME}


def stage_problem(plan: Plan, setting: Mapping[str, Any]) -> str | None:
    """Why a sweep setting's setup part cannot be applied to ``plan``, or ``None``."""
    if plan.reranker is not None or "reranker" in setting:
        return None
    if "candidates" in setting:
        return (
            "candidates= sets how many chunks the retriever gives the reranker, and this gold "
            "file has no reranker (set reranker:, or chunkrecall_reranker)"
        )
    if "reranker_args" in setting:
        return (
            "reranker_args= gives arguments to the reranker, and this gold file has no "
            "reranker (set reranker:, or chunkrecall_reranker, or sweep reranker= too)"
        )
    return None


def contributions(
    plan: Plan,
    case: Case,
    suite: Suite,
    result: CaseResult,
    settings: list[dict[str, Any]],
    suites: SuiteCache,
) -> list[dict[str, Any]]:
    """What one case adds to each row: the configured setting (its result), then each setting."""
    chunker = plan.chunker
    try:
        names = chunker_setting(settings[0])
        targets = sweepable.targets(chunker.obj, names, chunker=chunker.name)
    except ChunkrecallError as exc:  # checked at collection; evaluated in code, it may not be
        return [{"error": exc.message}] * (len(settings) + 1)
    configured = sweepable.configured(chunker.obj, chunker.args, targets)
    configured.update({name: plan.in_effect(name) for name in setup_setting(settings[0])})
    found = [{**_contribution(plan, suite, result), "configured": configured}]
    for setting in settings:
        try:
            at = plan
            if targets:
                at = at.with_chunker(swept(chunker, chunker_setting(setting), targets))
            at = at.at(setup_setting(setting))
            other = at.suite(suites)
            found.append(_contribution(at, other, at.evaluate(other, case)))
        except ChunkrecallError as exc:
            found.append({"error": exc.message.splitlines()[0]})
    return found


def swept(
    chunker: Component, setting: Mapping[str, Any], targets: Sequence[sweepable.Target]
) -> Component:
    """``chunker`` at ``setting``: built with other arguments, or a configured object's copy.

    A copy is told apart by what was set on it and known by the object it copies,
    so that every case at one setting shares its chunks and index.
    """
    obj, args, attributes = sweepable.apply(chunker.obj, chunker.args, setting, targets)
    at = Component.of(chunker.name, chunker.obj, args)
    if not attributes:
        return at
    shown = json.dumps({"args": args, "set": attributes}, sort_keys=True, default=repr)
    return replace(at, obj=obj, args_json=shown)


def failures(found: Sequence[SweepRow]) -> list[str]:
    """Why the sweep fails the run: each setting that could not be evaluated, and why."""
    lines = []
    for row in found:
        if row.errors:
            more = len(row.errors) - 1
            rest = f" (and {more} more, listed under the sweep table)" if more else ""
            lines.append(f"sweep setting {row.label} could not be evaluated: {row.errors[0]}{rest}")
    return lines


def _contribution(plan: Plan, suite: Suite, result: CaseResult) -> dict[str, Any]:
    chunk_length, corpus_length = suite.lengths(plan.measure)
    return {
        "hit": result.hit,
        "span_split": result.span_split,
        # gold files that share a corpus and a chunker share their chunks: count them once
        "chunking": f"{plan.corpus_key}|{plan.chunker.name}|{plan.chunker.args_json}",
        "chunks": len(suite.chunks),
        # in the unit of chunkrecall_length, as the summary's geometry is
        "chunk_length": chunk_length,
        "corpus_length": corpus_length,
        # what the answer cost at this setting, in the same unit
        "context": result.context,
        "context_to_answer": result.context_to_answer,
    }


@dataclass(frozen=True)
class SweepRow:
    """Every evaluated case at one setting (``setting`` is ``None`` for the configured one)."""

    setting: dict[str, Any] | None
    label: str
    cases: int
    hits: int
    split_spans: int
    chunks: int
    index_multiplier: float
    errors: list[str]
    evidence: SweepEvidence | None = None  # against the configured setting, on the same cases
    context_mean: float | None = None  # the mean context a case read; None: none recorded
    to_answer_mean: float | None = None  # the mean context to the answer over the hits

    @property
    def hit_rate(self) -> float:
        return self.hits / self.cases if self.cases else 0.0

    def to_json(self, configured: SweepRow) -> dict[str, Any]:
        change = None
        if self.setting is not None and not self.errors and not configured.errors:
            change = round((self.hit_rate - configured.hit_rate) * 100, 2)
        return {
            "setting": self.setting,
            "label": self.label,
            "chunks": self.chunks,
            "index_multiplier": round(self.index_multiplier, 3),
            "split_spans": self.split_spans,
            "cases": self.cases,
            "hits": self.hits,
            "hit_rate": round(self.hit_rate, 6),
            "change_points": change,
            "errors": self.errors,
            "context_mean": _rounded(self.context_mean),
            "context_to_answer_mean": _rounded(self.to_answer_mean),
            **_evidence_json(self.evidence),
        }


def _rounded(value: float | None) -> float | None:
    return round(value, 3) if value is not None else None


@dataclass(frozen=True)
class Cheapest:
    """The setting a sweep names: of those whose hit rate does not differ significantly from
    the best row's (exact two-sided McNemar on the cases both evaluated, Holm-adjusted
    across the other rows), the one with the least mean context to the answer.

    ``best`` is the row with the highest hit rate (the first of equals); ``tied`` the
    labels of the rows that do not differ from it; ``p_holm`` the chosen row's adjusted p
    against the best (``None``: it is the best).
    """

    label: str
    to_answer_mean: float
    best: str
    best_to_answer_mean: float | None
    tied: list[str]
    p_holm: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "context_to_answer_mean": _rounded(self.to_answer_mean),
            "best": self.best,
            "best_context_to_answer_mean": _rounded(self.best_to_answer_mean),
            "tied": list(self.tied),
            "p_holm": float(f"{self.p_holm:.6g}") if self.p_holm is not None else None,
        }


def cheapest(
    found: Sequence[SweepRow], hits: Sequence[Sequence[bool | None]], *, alpha: float
) -> Cheapest | None:
    """The row a sweep names (see :class:`Cheapest`) from ``found`` and ``hits``: each
    case's hit at every row (``None``: the row could not evaluate it). ``None``: no row
    without errors records a context to the answer."""
    usable = [n for n, row in enumerate(found) if not row.errors and row.cases]
    if not usable:
        return None
    best = max(usable, key=lambda n: (found[n].hit_rate, -n))
    adjusted = _against(best, [n for n in usable if n != best], hits)
    tied = [best, *(n for n, p in adjusted.items() if p >= alpha)]
    priced = [n for n in tied if found[n].to_answer_mean is not None]
    if not priced:
        return None
    # of equal cost, the higher hit rate
    chosen = min(priced, key=lambda n: (found[n].to_answer_mean or 0.0, -found[n].hit_rate, n))
    return Cheapest(
        label=found[chosen].label,
        to_answer_mean=found[chosen].to_answer_mean or 0.0,
        best=found[best].label,
        best_to_answer_mean=found[best].to_answer_mean,
        tied=[found[n].label for n in tied],
        p_holm=adjusted.get(chosen),
    )


class SweepTally:
    """The sweep's rows, added up case by case as the cases' contributions arrive.

    Every sum is over whole numbers and sets, so the rows do not depend on the
    order the cases came in (under xdist, the order their workers finished).
    """

    def __init__(self, settings: list[dict[str, Any]]) -> None:
        self.settings = settings
        rows = len(settings) + 1
        self._cases = [0] * rows
        self._hits = [0] * rows
        self._split = [0] * rows
        # gold files that share a corpus and a chunker share their chunks: counted once
        self._chunkings: list[dict[str, Mapping[str, Any]]] = [{} for _ in range(rows)]
        self._errors: list[set[str]] = [set() for _ in range(rows)]
        self._configured: list[Any] = []  # each distinct configured setting seen
        # the configured setting's hit and each row's, on the cases both evaluated
        self._pairs: list[tuple[list[bool], list[bool]]] = [([], []) for _ in settings]
        # what the answers cost at each row: sums of context and context to the answer
        self._context = [[0, 0] for _ in range(rows)]  # total, cases
        self._to_answer = [[0, 0] for _ in range(rows)]  # total, hits
        self._hits_by_case: list[tuple[bool | None, ...]] = []  # each case's hit at each row

    def add(self, gold_file: str, found: Sequence[Mapping[str, Any]]) -> None:
        """Add one case's contributions (:func:`contributions`), one per row."""
        for number, entry in enumerate(found):
            if "error" in entry:
                self._errors[number].add(f"{gold_file}: {entry['error']}")
                continue
            self._cases[number] += 1
            self._hits[number] += entry["hit"]
            self._split[number] += entry["span_split"]
            self._chunkings[number].setdefault(entry["chunking"], entry)
            self._add_cost(number, entry)
        self._hits_by_case.append(
            tuple(None if "error" in entry else bool(entry["hit"]) for entry in found)
        )
        configured = found[0].get("configured")
        if configured is not None and configured not in self._configured:
            self._configured.append(configured)
        if "error" in found[0]:
            return
        for number, (before, after) in enumerate(self._pairs, start=1):
            if "error" not in found[number]:
                before.append(found[0]["hit"])
                after.append(found[number]["hit"])

    def _add_cost(self, number: int, entry: Mapping[str, Any]) -> None:
        context, to_answer = entry.get("context"), entry.get("context_to_answer")
        if context is not None:  # older reports did not record it
            self._context[number][0] += context
            self._context[number][1] += 1
        if to_answer is not None:
            self._to_answer[number][0] += to_answer
            self._to_answer[number][1] += 1

    def cheapest(self, found: Sequence[SweepRow], *, alpha: float = 0.05) -> Cheapest | None:
        """The row the sweep names (see :func:`cheapest`) among ``found``, these rows."""
        return cheapest(found, self._hits_by_case, alpha=alpha)

    def rows(self, *, alpha: float = 0.05) -> list[SweepRow]:
        """One row per setting, the configured one first, each with its evidence at ``alpha``."""
        found = []
        for number, setting in enumerate([None, *self.settings]):
            chunkings = self._chunkings[number].values()
            corpus = sum(_length(entry, "corpus") for entry in chunkings)
            found.append(
                SweepRow(
                    setting=setting,
                    label=_label(setting, self._configured),
                    cases=self._cases[number],
                    hits=self._hits[number],
                    split_spans=self._split[number],
                    chunks=sum(entry["chunks"] for entry in chunkings),
                    index_multiplier=sum(_length(entry, "chunk") for entry in chunkings) / corpus
                    if corpus
                    else 0.0,
                    errors=sorted(self._errors[number]),
                    context_mean=_mean(*self._context[number]),
                    to_answer_mean=_mean(*self._to_answer[number]),
                )
            )
        evidence = _evidence(self._pairs, alpha)
        return [
            found[0],
            *(replace(row, evidence=e) for row, e in zip(found[1:], evidence, strict=True)),
        ]


def rows(
    settings: list[dict[str, Any]], cases: Iterable[Mapping[str, Any]], *, alpha: float = 0.05
) -> list[SweepRow]:
    """Add up the cases' contributions into one row per setting, the configured one first.

    Each setting's row carries its evidence against the configured setting at ``alpha``.
    """
    tally = SweepTally(settings)
    for case in cases:
        if case.get("sweep"):
            tally.add(case["gold_file"], case["sweep"])
    return tally.rows(alpha=alpha)


def _against(
    best: int, others: Sequence[int], hits: Sequence[Sequence[bool | None]]
) -> dict[int, float]:
    """Each of the rows ``others`` against row ``best`` on the cases both evaluated: the exact
    two-sided McNemar p, Holm-adjusted across them."""
    raw = []
    for n in others:
        shared = [
            (bool(case[best]), bool(case[n]))
            for case in hits
            if case[best] is not None and case[n] is not None
        ]
        raw.append(sweep_evidence([a for a, _ in shared], [[b for _, b in shared]])[0].p_value)
    return dict(zip(others, holm(raw), strict=True))


def _mean(total: int, count: int) -> float | None:
    return total / count if count else None


def _length(entry: Mapping[str, Any], of: str) -> int:
    # reports written before lengths were measured with chunkrecall_length say "<of>_chars"
    return int(entry.get(f"{of}_length", entry.get(f"{of}_chars", 0)))


def _evidence(
    pairs: Sequence[tuple[Sequence[bool], Sequence[bool]]], alpha: float
) -> list[SweepEvidence]:
    """Each setting against the configured one on the cases both evaluated, Holm across rows."""
    found = [sweep_evidence(configured, [row], alpha=alpha)[0] for configured, row in pairs]
    adjusted = holm([e.p_value for e in found])
    return [
        replace(e, p_holm=p, significant=p < alpha) for e, p in zip(found, adjusted, strict=True)
    ]


def _evidence_json(evidence: SweepEvidence | None) -> dict[str, Any]:
    if evidence is None:
        return {}
    return {
        "paired_cases": evidence.cases,
        "regressions": evidence.regressions,
        "improvements": evidence.improvements,
        "p_value": float(f"{evidence.p_value:.6g}"),
        "p_holm": float(f"{evidence.p_holm:.6g}"),
        "significant": evidence.significant,
    }


def _label(setting: dict[str, Any] | None, configured: list[Any]) -> str:
    if setting is not None:
        return " ".join(f"{name}={_shown(value)}" for name, value in setting.items())
    values = [c for c in configured if c is not None]
    if not values or any(c != values[0] for c in values):
        return "configured"  # gold files configured differently
    shown = " ".join(f"{k}={'default' if v is None else _shown(v)}" for k, v in values[0].items())
    return f"configured ({shown})"


def _shown(value: Any) -> str:
    """A setting's value in a row's label: a mapping written out whole, as JSON."""
    return json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else str(value)


def _scalar(text: str) -> Any:
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, str | int | float | bool) else text
