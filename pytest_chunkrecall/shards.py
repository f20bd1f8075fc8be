"""The ``merge`` and ``compare`` commands: a run split over CI jobs, gated as one run.

``merge`` joins the reports of disjoint shards into the report one run would have
written; ``compare`` sets such a report against a baseline and prints the summary,
writes the Markdown and exits with the status that one run would have.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from .baseline import saved as baseline
from .baseline.gating import (
    GATES,
    GateOutcome,
    GateSettings,
    accept_command,
    case_outcome,
    existing_cases,
    judge,
)
from .errors import ChunkrecallError
from .evaluation.results import CaseResult
from .files import write_atomically
from .render import json_report, markdown
from .render.summary import SummaryContext, summary_lines
from .run import sweep
from .run.merge import merge, read_report, record_of
from .run.record import RunRecord

MERGE_HELP = "Merge the JSON reports of disjoint shards into the report of one run"
COMPARE_HELP = "Gate a JSON report against a baseline: the summary and exit status of one run"


def configure_merge(parser: argparse.ArgumentParser) -> None:
    """``merge R1.json R2.json … --out M.json [--force]``."""
    parser.add_argument(
        "reports", type=Path, nargs="+", metavar="REPORT.json",
        help="The --chunkrecall-report files of the shards, each case in one of them",
    )  # fmt: skip
    parser.add_argument(
        "--out", type=Path, required=True, metavar="M.json", help="The merged report to write"
    )
    parser.add_argument(
        "--force", action="store_true", help="Replace --out if it exists (never an input)"
    )


def configure_compare(parser: argparse.ArgumentParser) -> None:
    """``compare M.json --baseline B.json [--gate …] [--markdown PATH]`` and the gate's options."""
    parser.add_argument("report", type=Path, metavar="REPORT.json", help="A (merged) report")
    parser.add_argument(
        "--baseline", type=Path, required=True, metavar="B.json",
        help="The baseline, as written by pytest --chunkrecall-update-baseline",
    )  # fmt: skip
    parser.add_argument(
        "--gate", choices=GATES, default="cases",
        help="As the ini option chunkrecall_gate (default: cases)",
    )  # fmt: skip
    parser.add_argument(
        "--alpha", type=float, default=0.05, metavar="P",
        help="As chunkrecall_alpha (default: 0.05)",
    )  # fmt: skip
    parser.add_argument(
        "--min-effect", type=float, default=0.0, metavar="POINTS",
        help="As chunkrecall_min_effect (default: 0)",
    )  # fmt: skip
    parser.add_argument(
        "--max-drop", type=float, metavar="POINTS",
        help="As chunkrecall_max_drop (default: 0 with --gate cases, no limit with significant)",
    )  # fmt: skip
    parser.add_argument(
        "--min-hit-rate", type=float, metavar="SHARE", help="As chunkrecall_min_hit_rate, 0 to 1"
    )
    parser.add_argument(
        "--markdown", type=Path, metavar="PATH",
        help="Write the Markdown summary to PATH (it is also appended to $GITHUB_STEP_SUMMARY)",
    )  # fmt: skip
    parser.add_argument(
        "--report-out", type=Path, metavar="PATH",
        help="Write the report with the comparison, as the single run's --chunkrecall-report",
    )  # fmt: skip
    parser.add_argument(
        "--rootdir", type=Path, default=Path("."), help="Where the gold files are (default: .)"
    )


def run_merge(args: argparse.Namespace) -> int:
    """Merge the shards' reports; refuses to overwrite an input, or an output without --force."""
    out: Path = args.out
    inputs: list[Path] = args.reports
    if any(out.resolve() == path.resolve() for path in inputs):
        raise ChunkrecallError(
            f"--out {out} is one of the reports to merge; merge never overwrites its inputs"
        )
    if out.exists() and not args.force:
        raise ChunkrecallError(f"--out {out} exists; give another path, or --force to replace it")
    if not out.parent.is_dir():
        raise ChunkrecallError(
            f"--out {out}: the folder {out.parent} does not exist; create it first"
        )
    record = merge([(str(path), read_report(path)) for path in inputs])
    report = json_report.report(record, GateOutcome(), baseline_name=None)
    _write(out, json_report.dumps(report))
    cases, files = len(record.cases), len(record.gold_file_paths())
    print(
        f"merge: {len(inputs)} reports, {cases} case{'s' * (cases != 1)} of "
        f"{files} gold file{'s' * (files != 1)} -> {out}"
    )
    return 0


def run_compare(args: argparse.Namespace) -> int:
    """Gate the report against the baseline as one pytest run with these options would."""
    settings = _settings(args)
    name = str(args.report)
    record = record_of(read_report(args.report), name=name)
    base = baseline.load(args.baseline, name=str(args.baseline))
    rootdir: Path = args.rootdir
    gold_files = record.gold_file_paths()
    found = any((rootdir / path).exists() for path in gold_files)
    outcome = judge(
        settings,
        record.results(),
        baseline=base,
        name=str(args.baseline),
        # without the gold files at hand, no case can be called removed
        existing=existing_cases(rootdir, gold_files, base) if found else {},
        setups=record.setups(),
        documents=record.fingerprints(),
    )
    record = _outcomes(record, base, settings, outcome)
    outcome.errors += sweep.failures(record.sweep_rows(alpha=settings.alpha))
    if not found:
        outcome.notes.append(
            f"no gold file of the report under {rootdir}: removed cases are not listed"
        )
    status = 1 if record.failed() or outcome.fails_run else 0
    accept = accept_command(
        record.setup_args, baseline_name=str(args.baseline), baseline_from_ini=False
    )
    if args.report_out is not None:
        report = json_report.report(
            record, outcome, baseline_name=str(args.baseline), alpha=settings.alpha
        )
        _write(args.report_out, json_report.dumps(report))
    context = SummaryContext(
        baseline_name=str(args.baseline),
        accept=accept,
        report_path=str(args.report_out) if args.report_out is not None else None,
        alpha=settings.alpha,
    )
    print(" chunkrecall ".center(80, "="))
    for line, _ in summary_lines(record, outcome, context):
        print(line)
    text = markdown.render(record, outcome, accept=accept, failed=bool(status))
    if args.markdown is not None:
        _write(args.markdown, text)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(text)
    return status


def _write(path: Path, text: str) -> None:
    """Write one of the command's files whole, or say why it cannot be written."""
    try:
        write_atomically(path, text)
    except OSError as exc:
        raise ChunkrecallError(f"cannot write {path}: {exc.strerror or exc}") from None


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
    return GateSettings(args.gate, args.alpha, args.min_effect, args.max_drop, args.min_hit_rate)


def _outcomes(
    record: RunRecord, base: baseline.Baseline, settings: GateSettings, outcome: GateOutcome
) -> RunRecord:
    """The record with each evaluated case's outcome and baseline entry as a run against
    ``base`` would give them."""
    updates: dict[str, dict[str, Any]] = {}
    for case in record.cases:
        if not case.get("verdict"):
            continue
        result = CaseResult.from_json(case)
        entry = base.get(result.gold_file, result.id)
        update: dict[str, Any] = {
            "outcome": case_outcome(result, entry, xfail=case.get("xfail"), gate=settings.gate),
            "baseline": None,
        }
        if entry is not None:
            was = entry.to_json()
            if entry.hit and not result.hit and outcome.document_changed(result):
                was["document_changed"] = True
            update["baseline"] = was
        updates[case["nodeid"]] = update
    return record.with_updates(updates)
