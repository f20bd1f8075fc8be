"""The summary of a run: one model, built once from the run's fold and the gates' outcome,
that the terminal, the Markdown and the HTML page print.

Every decision of what a run's end says is taken here, once: which span lengths the
span statistics are over, which funnel to show, whether to offer the command that
accepts this state as the new baseline, whether the run failed. A printer turns the
model into its format and decides nothing, so two outputs of one run cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

from ..baseline.decision import GateOutcome
from ..baseline.reasons import absent_reason
from ..evaluation.results import CaseResult, ContextFigures
from ..run.fold import Funnel, GoldFileRun, RunSummary
from ..run.notes import RunNotes

Status = Literal["passed", "failed"]


@dataclass(frozen=True)
class SummaryContext:
    """What the summary says besides the run's fold and the gates' outcome."""

    baseline_name: str = ""
    updating: bool = False
    accept: str | None = None  # the command to accept this state; None: no baseline to update
    report_path: str | None = None
    html_path: str | None = None
    alpha: float = 0.05
    verbose: bool = False
    tbstyle: str | None = None  # pytest's --tb; None outside pytest
    failed: bool = False  # whether the run failed besides what the fold and the gates say
    incomplete: str | None = None  # why the run covers only part of its cases


@dataclass(frozen=True)
class StagedFunnel:
    """A funnel with the stages to show: the loader's and the reranker's where one is
    configured, and the top k's size when every gold file has the same."""

    funnel: Funnel
    loader: bool
    reranker: bool
    k: int | None

    def steps(self) -> list[FunnelStep]:
        """The funnel's steps to show: the loaded and candidates steps where a loader and a
        reranker are configured (or a case was lost there)."""
        funnel = self.funnel
        steps = [FunnelStep(funnel.cases, "case" if funnel.cases == 1 else "cases", "cases")]
        if self.loader or funnel.loaded != funnel.cases:
            steps.append(FunnelStep(funnel.loaded, "loaded", "loaded"))
        steps.append(FunnelStep(funnel.whole, "kept whole by chunking", "whole"))
        if self.reranker or funnel.candidates != funnel.top_k:
            steps.append(FunnelStep(funnel.candidates, "in the candidates", "candidates"))
        top = f"in the top {self.k if self.k is not None else 'k'}"
        steps.append(FunnelStep(funnel.top_k, top, "top_k"))
        return steps

    def lost(self) -> str:
        """``1 unparsed, 1 split``: the cases each stage lost, in stage order; empty: none."""
        return ", ".join(f"{number:,} {verdict}" for verdict, number in self.funnel.lost.items())


class FunnelStep(NamedTuple):
    """One step of the funnel: how many cases reach it, what it says, and its stage's key in
    the report's ``funnel``."""

    cases: int
    label: str
    stage: str


@dataclass(frozen=True)
class GoldFileSummary:
    """One gold file as every output states it: its run, the lengths of the spans its span
    statistics are over, and its own funnel where the outputs show one."""

    run: GoldFileRun
    span_lengths: tuple[int, ...]
    funnel: StagedFunnel | None  # shown when a loader or reranker stage is configured

    @property
    def path(self) -> str:
        return self.run.path


@dataclass(frozen=True)
class RunOutput:
    """A file of the run that the summary names once written."""

    what: Literal["JSON report", "HTML page"]
    path: str


@dataclass(frozen=True)
class Summary:
    """What a run's end says (see the module docstring)."""

    run: RunSummary
    outcome: GateOutcome
    notes: RunNotes  # the run's end besides the gates, which may grow as outputs are written
    context: SummaryContext
    gold_files: tuple[GoldFileSummary, ...]
    funnel: StagedFunnel | None  # None: no case was evaluated
    absent: str | None  # why absent cases fail the run though the gate may pass
    accept: str | None  # the command to accept this state, when there is a change to accept
    outputs: tuple[RunOutput, ...]
    cost: ContextFigures | None = None  # what the answers cost; None: no case records it

    @property
    def fails_run(self) -> bool:
        """Whether a gate or something else at the end of the run fails it."""
        return fails_run(self.outcome, self.notes)

    @property
    def status(self) -> Status:
        """Whether the run passed or failed, as the Markdown's heading says it."""
        failed = self.context.failed or self.fails_run or self.run.failed
        return "failed" if failed else "passed"

    def regression_note(self, result: CaseResult) -> str:
        """`` (document changed since the baseline)`` for a regression in a changed document."""
        return self.outcome.regression_note(result)


def fails_run(outcome: GateOutcome, notes: RunNotes) -> bool:
    """Whether a gate (``outcome``) or something else at the end of the run (``notes``) fails it."""
    return bool(outcome.failures or notes.errors)


def summarise(
    run: RunSummary,
    outcome: GateOutcome,
    context: SummaryContext,
    notes: RunNotes | None = None,
) -> Summary:
    """The summary of a run from its fold (``run``), the gates' ``outcome``, ``context`` and
    what else its end found (``notes``, which the summary reads as it is printed)."""
    several = len(run.gold_files) > 1
    gold_files = tuple(
        GoldFileSummary(
            run=gold,
            span_lengths=tuple(gold.span_lengths),
            funnel=staged_funnel([gold], gold.funnel) if gold.staged and several else None,
        )
        for gold in run.gold_files
    )
    comparison = outcome.comparison
    absent = absent_reason(run.absent_failed, run.absent_named)
    outputs = tuple(
        output
        for output in (
            RunOutput("JSON report", context.report_path or ""),
            RunOutput("HTML page", context.html_path or ""),
        )
        if output.path
    )
    return Summary(
        run=run,
        outcome=outcome,
        notes=notes if notes is not None else RunNotes(),
        context=context,
        gold_files=gold_files,
        funnel=staged_funnel(run.gold_files, run.funnel) if run.totals.cases else None,
        # the gate may pass and the known misses be accepted: say what fails the run
        absent=absent if comparison is not None else None,
        accept=context.accept if _changed(outcome) else None,
        outputs=outputs,
        cost=run.totals.context,
    )


def staged_funnel(gold_files: list[GoldFileRun], funnel: Funnel) -> StagedFunnel:
    """``funnel``, the funnel of ``gold_files``, with the stages they configure."""
    infos = [gold.info for gold in gold_files if gold.info is not None and "error" not in gold.info]
    ks = {info["k"] for info in infos if "k" in info}
    return StagedFunnel(
        funnel,
        loader=any("loader" in info for info in infos),
        reranker=any("reranker" in info for info in infos),
        k=ks.pop() if len(ks) == 1 else None,
    )


def _changed(outcome: GateOutcome) -> bool:
    """Whether there is a state to accept: a gate failed, or a case or the setup changed
    against the baseline."""
    comparison = outcome.comparison
    changed_cases = comparison is not None and bool(
        comparison.regressions or comparison.improvements or comparison.new or outcome.drift
    )
    return bool(outcome.failures) or changed_cases


def written(summary: Summary) -> list[RunOutput]:
    """The outputs that were written: one that could not be has its red line instead."""
    done = summary.notes.written
    return [output for output in summary.outputs if str(Path(output.path)) in done]
