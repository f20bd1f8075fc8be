"""A sweep: every gold file evaluated again at other chunker settings, to see what they would cost and buy."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from .engine import Component, Engine
from .errors import ChunkrecallError
from .evaluation import Plan
from .results import CaseResult, Totals

_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)=(.*)$")


@dataclass(frozen=True)
class GoldFileRun:
    """One gold file at one setting."""

    path: str
    chunks: int = 0
    chunk_chars: int = 0
    corpus_chars: int = 0
    chunking: int = 0  # the same for gold files that share a corpus and chunker
    results: list[CaseResult] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class SweepRow:
    """Every gold file at one setting (``setting`` is ``None`` for the configured one)."""

    setting: dict[str, Any] | None
    gold_files: list[GoldFileRun]
    configured: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        if self.setting is None:
            shown = " ".join(
                f"{name}={'default' if value is None else value}"
                for name, value in (self.configured or {}).items()
            )
            return f"configured ({shown})" if shown else "configured"
        return " ".join(f"{name}={value}" for name, value in self.setting.items())

    @property
    def totals(self) -> Totals:
        return Totals.of(r for run in self.gold_files for r in run.results)

    def _chunkings(self) -> list[GoldFileRun]:
        """One run per distinct corpus and chunker, so shared chunks count once."""
        distinct: dict[int, GoldFileRun] = {}
        for run in self.gold_files:
            if run.error is None:
                distinct.setdefault(run.chunking, run)
        return list(distinct.values())

    @property
    def chunks(self) -> int:
        return sum(run.chunks for run in self._chunkings())

    @property
    def index_multiplier(self) -> float:
        runs = self._chunkings()
        corpus = sum(run.corpus_chars for run in runs)
        return sum(run.chunk_chars for run in runs) / corpus if corpus else 0.0

    @property
    def errors(self) -> list[str]:
        return [f"{run.path}: {run.error}" for run in self.gold_files if run.error]

    def to_json(self, baseline: SweepRow | None) -> dict[str, Any]:
        totals = self.totals
        change = None
        if baseline is not None and not self.errors and not baseline.errors:
            change = round((totals.hit_rate - baseline.totals.hit_rate) * 100, 2)
        return {
            "setting": self.setting,
            "label": self.label,
            "chunks": self.chunks,
            "index_multiplier": round(self.index_multiplier, 3),
            "split_spans": totals.split_spans,
            "cases": totals.cases,
            "hits": totals.hits,
            "hit_rate": round(totals.hit_rate, 6),
            "change_points": change,
            "gold_files": [
                {
                    "path": run.path,
                    "chunks": run.chunks,
                    "split_spans": Totals.of(run.results).split_spans,
                    "hits": Totals.of(run.results).hits,
                    "cases": len(run.results),
                    "error": run.error,
                }
                for run in self.gold_files
            ],
        }


def parse(spec: str) -> list[dict[str, Any]]:
    """The settings a sweep spec names: ``"overlap=0,24,48"``, ``"size=400,800; overlap=0,100"``.

    Several arguments make a grid (every combination). Raises ``ValueError``
    saying what is wrong with the spec.
    """
    axes: dict[str, list[Any]] = {}
    parts = [part for part in re.split(r"[;\s]+", spec.strip()) if part]
    if not parts:
        raise ValueError("it is empty; write e.g. 'overlap=0,24,48'")
    for part in parts:
        match = _ASSIGNMENT.match(part)
        if not match:
            raise ValueError(f"{part!r} is not name=value,value,…; write e.g. 'overlap=0,24,48'")
        name, values = match.groups()
        if name in axes:
            raise ValueError(f"{name!r} is given twice")
        items = values.split(",")
        if not values or any(not item.strip() for item in items):
            raise ValueError(f"{name!r} needs a list of values, e.g. {name}=0,24,48")
        axes[name] = [_scalar(item.strip()) for item in items]
    names = list(axes)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes.values())]


def run(
    plans: Sequence[Plan],
    settings: Iterable[dict[str, Any]],
    engine: Engine,
    *,
    case_ids: Mapping[str, set[str]],
) -> list[SweepRow]:
    """Evaluate the selected cases of every plan at the configured setting and at each of ``settings``.

    The configured row names the configured values of the swept arguments
    when every gold file has the same ones.
    """
    settings = list(settings)
    names = list(settings[0]) if settings else []
    configured = [{name: plan.chunker.args.get(name) for name in names} for plan in plans]
    shared = configured[0] if configured and all(c == configured[0] for c in configured) else None
    rows = [
        SweepRow(
            None,
            [_run(plan, None, engine, case_ids.get(plan.name, set())) for plan in plans],
            shared,
        )
    ]
    for setting in settings:
        rows.append(
            SweepRow(
                setting,
                [_run(plan, setting, engine, case_ids.get(plan.name, set())) for plan in plans],
            )
        )
    return rows


def _run(
    plan: Plan, setting: dict[str, Any] | None, engine: Engine, case_ids: set[str]
) -> GoldFileRun:
    chunker = plan.chunker
    if setting is not None:
        chunker = Component.of(chunker.name, chunker.obj, {**chunker.args, **setting})
    try:
        suite = plan.with_chunker(chunker).suite(engine)
        results = [plan.evaluate(suite, case) for case in plan.gold.cases if case.id in case_ids]
    except ChunkrecallError as exc:
        return GoldFileRun(plan.name, error=str(exc).splitlines()[0])
    return GoldFileRun(
        plan.name,
        chunks=len(suite.chunks),
        chunk_chars=sum(len(chunk.text) for chunk in suite.chunks),
        corpus_chars=suite.corpus_chars,
        chunking=id(suite.chunks),
        results=results,
    )


def _scalar(text: str) -> Any:
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, str | int | float | bool) else text
