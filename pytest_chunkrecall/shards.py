"""The ``merge`` and ``compare`` commands: a run split over CI jobs, gated as one run.

``merge`` joins the reports of disjoint shards into the report one run would have
written (with ``--repeats``, the reports of one run repeated, each case combined from its
repeats); ``compare`` sets such a report against a baseline and prints the summary,
writes the Markdown and exits with the status that one run would have.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import cast

from .baseline import saved as baseline
from .baseline.case_outcome import case_outcome, quarantined
from .baseline.decision import GateOutcome, gate_run
from .baseline.drift import Drift, drift, span_documents
from .baseline.existing import existing_cases
from .baseline.policy import GateSettings
from .baseline.update import accept_command
from .config.table import GATES, POLICIES, Policy
from .errors import ChunkrecallError, counted, trimmed
from .evaluation import codec
from .evaluation.case_facts import CaseBrief
from .evaluation.results import CaseResult
from .files import append_text, real_target, write_atomically
from .guard import Holds, OutputPath, check, quoted, survey
from .render import json_report, markdown
from .render.summary import SummaryContext, fails_run, summarise
from .render.terminal_summary import summary_lines
from .run import completeness, source, sweep
from .run.completeness import ALLOW
from .run.entry import CaseEntry
from .run.fold import CaseStanding, RunFold, fingerprints_of, setups_of
from .run.merge import Shard, gather, read_report, repeats, shard_of
from .run.notes import RunNotes
from .run.spool import Spool

MERGE_HELP = "Merge the JSON reports of disjoint shards into the report of one run"
COMPARE_HELP = "Gate a JSON report against a baseline: the summary and exit status of one run"


def configure_merge(parser: argparse.ArgumentParser) -> None:
    """``merge R1.json R2.json … --out M.json [--force] [--allow-mixed] [--repeats]``."""
    parser.add_argument(
        "reports",
        type=Path,
        nargs="+",
        metavar="REPORT.json",
        help="The --chunkrecall-report files of the shards, each case in one of them",
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="M.json", help="The merged report to write"
    )
    parser.add_argument(
        "--force", action="store_true", help="Replace --out if it exists (never an input)"
    )
    parser.add_argument(
        ALLOW,
        action="store_true",
        help="Merge a shard whose run stopped early; the merged report then says it is incomplete",
    )
    parser.add_argument(
        "--repeats",
        action="store_true",
        help="The reports are repeats of one run, each with the same cases (e.g. run under "
        "different PYTHONHASHSEED): each case is its worst result, unstable where they differ",
    )
    parser.add_argument(
        "--allow-mixed",
        action="store_true",
        help="Merge shards run from different commits or pytest-chunkrecall versions; "
        "the merged report's source then has null for what differs",
    )


def configure_compare(parser: argparse.ArgumentParser) -> None:
    """``compare M.json --baseline B.json [--gate …] [--markdown PATH]`` and the gate's options."""
    parser.add_argument("report", type=Path, metavar="REPORT.json", help="A (merged) report")
    parser.add_argument(
        "--baseline",
        type=Path,
        required=True,
        metavar="B.json",
        help="The baseline, as written by pytest --chunkrecall-update-baseline",
    )
    parser.add_argument(
        "--gate",
        choices=GATES,
        default="cases",
        help="As the ini option chunkrecall_gate (default: cases)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        metavar="P",
        help="As chunkrecall_alpha (default: 0.05)",
    )
    parser.add_argument(
        "--min-effect",
        type=float,
        default=0.0,
        metavar="POINTS",
        help="As chunkrecall_min_effect (default: 0)",
    )
    parser.add_argument(
        "--max-drop",
        type=float,
        metavar="POINTS",
        help="As chunkrecall_max_drop (default: 0 with --gate cases, no limit with significant)",
    )
    parser.add_argument(
        "--min-hit-rate", type=float, metavar="SHARE", help="As chunkrecall_min_hit_rate, 0 to 1"
    )
    parser.add_argument(
        "--max-context-growth",
        type=float,
        metavar="PERCENT",
        help="As chunkrecall_max_context_growth (default: no limit)",
    )
    parser.add_argument(
        "--unstable",
        choices=POLICIES,
        default="strict",
        help="As the ini option chunkrecall_unstable (default: strict)",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        metavar="PATH",
        help="Write the Markdown summary to PATH (it is also appended to $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument(
        "--report-out",
        type=Path,
        metavar="PATH",
        help="Write the report with the comparison, as the single run's --chunkrecall-report",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="Replace a --markdown or --report-out file that pytest-chunkrecall did not write "
        "(a project's own files are never replaced)",
    )
    parser.add_argument(
        "--rootdir", type=Path, default=Path("."), help="Where the gold files are (default: .)"
    )
    parser.add_argument(
        ALLOW,
        action="store_true",
        help="Gate a report whose run stopped early; the summary says it is incomplete, "
        "and the gate cannot pass",
    )


def run_merge(args: argparse.Namespace) -> int:
    """Merge the shards' reports; refuses to overwrite an input, or an output without --force."""
    out: Path = args.out
    inputs: list[Path] = args.reports
    if any(real_target(out) == real_target(path) for path in inputs):
        raise ChunkrecallError(
            f"--out {quoted(out)} is one of the reports to merge; merge never overwrites its inputs"
        )
    reports = [(str(path), read_report(path)) for path in inputs]
    parts = [completeness.of_report(data, name=name) for name, data in reports]
    whole = completeness.merged(parts)
    if not whole.complete and not args.allow_incomplete:
        raise ChunkrecallError(completeness.refuse(whole, what="merge"))
    made_from = source.merged(
        [(name, source.of_report(data, name=name, required=True)) for name, data in reports],
        allow_mixed=args.allow_mixed,
    )
    fold, spool = gather([repeats(reports)] if args.repeats else reports, fold=_fold)
    try:
        summary = fold.finish()
        _check_out(args, summary.fingerprints())
        report = json_report.head(
            summary, GateOutcome(), baseline_name=None, source=made_from, completeness=whole
        )
        _write(out, json_report.text(report, spool.texts()))
    finally:
        spool.close()
    cases, files = len(fold), len(fold.gold_file_paths())
    print(
        f"merge: {len(inputs)} reports, {counted(cases, 'case')} of "
        f"{counted(files, 'gold file')} -> {out}"
    )
    return 0


def _check_out(args: argparse.Namespace, documents: Mapping[str, Iterable[str]]) -> None:
    """Pass ``merge --out`` through the output guard, which also protects the corpus the
    reports record (``documents``, by gold file)."""
    out: Path = args.out
    protected = survey(Path.cwd(), writer="merge", search=[Path.cwd()], documents=documents)
    output = OutputPath(out, f"--out {quoted(out)}")
    check(output, protected, force=args.force, force_option="--force")
    if not out.parent.is_dir():
        raise ChunkrecallError(
            f"--out {quoted(out)}: the folder {quoted(out.parent)} does not exist; create it first"
        )


def run_compare(args: argparse.Namespace) -> int:
    """Gate the report against the baseline as one pytest run with these options would."""
    settings = _settings(args)
    _outputs_apart(args)
    name = str(args.report)
    data = read_report(args.report)
    shard = shard_of(data, name=name)
    _check_outputs(args, fingerprints_of(shard.gold_info))
    whole = completeness.of_report(data, name=name)
    if not whole.complete and not args.allow_incomplete:
        raise ChunkrecallError(completeness.refuse(whole, what="compare"))
    made_from = source.of_report(data, name=name)
    base = baseline.load(args.baseline, name=str(args.baseline))
    # what changed since the baseline: a regression in a changed document says so
    changed = drift(base, setups_of(shard.gold_info), fingerprints_of(shard.gold_info))

    def outcome_of(case: CaseEntry) -> CaseEntry:
        return _outcome(case, base, settings, changed, args.unstable)

    fold, spool = gather(
        [(name, data)],
        fold=lambda shard: _fold(shard, base, settings.alpha, args.unstable),
        each=outcome_of,
    )
    try:
        return _compare(args, settings, base, fold, spool, made_from, whole)
    finally:
        spool.close()


def _compare(
    args: argparse.Namespace,
    settings: GateSettings,
    base: baseline.Baseline,
    fold: RunFold,
    spool: Spool,
    made_from: source.SourceJSON | None,
    whole: completeness.Completeness,
) -> int:
    rootdir: Path = args.rootdir
    gold_files = fold.gold_file_paths()
    found = any((rootdir / path).exists() for path in gold_files)
    # without the gold files at hand, no case can be called removed
    summary = fold.finish(existing=existing_cases(rootdir, gold_files, base) if found else {})
    outcome = gate_run(
        settings,
        summary.totals,
        comparison=summary.comparison,
        baseline=base,
        name=str(args.baseline),
        gold_files=summary.evaluated_files,
        setups=summary.setups(),
        documents=summary.fingerprints(),
    )
    notes = RunNotes(errors=sweep.failures(summary.sweep_rows))
    if summary.unevaluated:
        notes.errors.append(_not_evaluated(summary.unevaluated, str(args.report)))
    incomplete = whole.line()
    if incomplete is not None:
        notes.errors.append(f"{incomplete}; the gate does not pass on part of a run")
    if not found:
        notes.notes.append(
            f"no gold file of the report under {rootdir}: removed cases are not listed"
        )
    status = 1 if summary.failed or fails_run(outcome, notes) else 0
    accept = accept_command(
        summary.setup_args, baseline_name=str(args.baseline), baseline_from_ini=False
    )
    if args.report_out is not None:
        report = json_report.head(
            summary,
            outcome,
            baseline_name=str(args.baseline),
            source=made_from,
            completeness=whole,
        )
        _write(args.report_out, json_report.text(report, spool.texts()))
        notes.written.append(str(args.report_out))
    context = SummaryContext(
        baseline_name=str(args.baseline),
        accept=accept,
        report_path=str(args.report_out) if args.report_out is not None else None,
        alpha=settings.alpha,
        incomplete=incomplete,
    )
    # one summary, which the terminal and the Markdown print
    said = summarise(summary, outcome, context, notes)
    print(" chunkrecall ".center(80, "="))
    for line in summary_lines(said):
        print(line.text)
    text = markdown.render(said)
    if args.markdown is not None:
        _write(args.markdown, [text])
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        try:
            append_text(Path(step_summary), text)
        except OSError as exc:
            print(
                f"note: cannot append to GITHUB_STEP_SUMMARY {quoted(step_summary)}: "
                f"{exc.strerror or exc}",
                file=sys.stderr,
            )
    return status


def _check_outputs(args: argparse.Namespace, documents: Mapping[str, Iterable[str]]) -> None:
    """Pass ``compare``'s outputs and ``$GITHUB_STEP_SUMMARY`` through the output guard,
    before anything is written; ``documents``: the corpus the report records."""
    rootdir = Path(args.rootdir).absolute()
    protected = survey(rootdir, writer="compare", search=[rootdir], documents=documents)
    named: tuple[tuple[str, Path | None, Holds], ...] = (
        ("--report-out", args.report_out, "report"),
        ("--markdown", args.markdown, "markdown"),
    )
    for option, path, holds in named:
        if path is not None:
            output = OutputPath(path, f"{option} {quoted(path)}", holds)
            check(output, protected, force=args.force, force_option="--force")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        summary = OutputPath(
            Path(step_summary), f"GITHUB_STEP_SUMMARY {quoted(step_summary)}", "summary"
        )
        check(summary, protected, force=False, force_option="--force")


def _not_evaluated(nodeids: list[str], report: str) -> str:
    """What ``compare`` says of the cases the run that wrote ``report`` could not evaluate."""
    shown = ", ".join(trimmed(nodeid) for nodeid in nodeids[:_NAMED])
    if len(nodeids) > _NAMED:
        shown += f", … ({len(nodeids):,} in all)"
    return (
        f"{counted(len(nodeids), 'case')} of {report} could not be evaluated (an error, a "
        f"timeout or a crashed worker): {shown}; the log of the run that wrote the report "
        "says why: fix it, run those cases again, and compare the new report"
    )


_NAMED = 5  # cases named in that line; the report lists them all


def _outputs_apart(args: argparse.Namespace) -> None:
    """Refuse a ``compare`` output on one of its inputs, or two outputs on one path."""
    # The two inputs may be one file (it is then refused as no baseline, when read); only an
    # output may not land on an input or on the other output.
    seen: dict[Path, str] = {
        real_target(args.baseline): f"--baseline {args.baseline}",
        real_target(args.report): f"the report {args.report}",
    }
    outputs = (("--report-out", args.report_out), ("--markdown", args.markdown))
    for option, path in outputs:
        if path is None:
            continue
        target = real_target(path)
        if target in seen:
            raise ChunkrecallError(
                f"{option} {path} is {seen[target]}; compare never overwrites its inputs, "
                "and writes each output to its own path"
            )
        seen[target] = f"{option} {path}"


def _write(path: Path, text: Iterable[str]) -> None:
    """Write one of the command's files whole, or say why it cannot be written."""
    try:
        write_atomically(path, text)
    except OSError as exc:
        raise ChunkrecallError(f"cannot write {quoted(path)}: {exc.strerror or exc}") from None


def _settings(args: argparse.Namespace) -> GateSettings:
    if not 0 < args.alpha <= 0.5:
        raise ChunkrecallError(f"--alpha must be above 0 and at most 0.5, not {args.alpha:g}")
    if not 0 <= args.min_effect <= 100:
        raise ChunkrecallError(
            f"--min-effect must be from 0 to 100 points, not {args.min_effect:g}"
        )
    if args.max_drop is not None and not 0 <= args.max_drop <= 100:
        raise ChunkrecallError(f"--max-drop must be from 0 to 100 points, not {args.max_drop:g}")
    if args.min_hit_rate is not None and not 0 <= args.min_hit_rate <= 1:
        raise ChunkrecallError(f"--min-hit-rate must be from 0 to 1, not {args.min_hit_rate:g}")
    if args.max_context_growth is not None and args.max_context_growth < 0:
        raise ChunkrecallError(
            f"--max-context-growth must be 0 or more percent, not {args.max_context_growth:g}"
        )
    return GateSettings(
        args.gate,
        args.alpha,
        args.min_effect,
        args.max_drop,
        args.min_hit_rate,
        args.max_context_growth,
    )


def _fold(
    shard: Shard,
    base: baseline.Baseline | None = None,
    alpha: float = 0.05,
    unstable: Policy = "strict",
) -> RunFold:
    return RunFold(
        baseline=base,
        sweep_spec=shard.sweep_spec,
        alpha=alpha,
        setup_args=shard.setup_args,
        unstable=unstable,
    )


def _outcome(
    case: CaseEntry,
    base: baseline.Baseline,
    settings: GateSettings,
    changed: Drift,
    unstable: Policy,
) -> CaseEntry:
    """The case's entry with the outcome and baseline entry a run against ``base`` gives it."""
    if not case.get("verdict"):
        return case
    brief = CaseBrief.of(case)
    standing = codec.project(CaseStanding, case)
    entry = base.get(brief.gold_file, brief.id)
    decided = case_outcome(
        brief,
        entry,
        xfail=case.get("xfail"),
        gate=settings.gate,
        quarantined=quarantined(standing.unstable, standing.ranks_seen, unstable),
    )
    was = None
    if entry is not None:
        marked = baseline.mark(
            entry,
            brief,
            document_changed=lambda: bool(
                span_documents(CaseResult.from_json(case)) & set(changed.changed)
            ),
        )
        was = codec.encode(marked)
    # the entry holds every field of the record; its type names only those every case has
    return cast(CaseEntry, {**case, "baseline": was, "outcome": decided.outcome})
