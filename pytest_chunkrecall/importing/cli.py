"""The ``import`` and ``export`` commands of ``python -m pytest_chunkrecall``."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..guard import Protected, Rule, quoted, survey
from .chunking_evaluation import import_chunking_evaluation
from .qa import NO_OVERLAP, import_qa
from .squad import import_squad
from .trec import NO_HOLDING_CHUNK, export_trec
from .writing import Output, renamings

IMPORT_HELP = "Write gold files from an existing question/answer set"
EXPORT_HELP = "Write a JSON report in another tool's format"


def configure_import(parser: argparse.ArgumentParser) -> None:
    """The ``import`` subcommands: squad, qa, chunking-evaluation."""
    kinds = parser.add_subparsers(title="formats", metavar="FORMAT", required=True)
    squad = kinds.add_parser(
        "squad",
        help="SQuAD v1.1 or v2.0 JSON: one document per article and one gold file",
        description="Write DIR/docs/<article>.md (the paragraphs joined by a blank line), "
        "DIR/gold/<name>.yaml (one case per answerable question; the span is the sentence "
        "around the answer) and DIR/pytest.ini. Unanswerable questions are skipped and counted",
    )
    squad.add_argument("file", type=Path, metavar="FILE", help="The SQuAD JSON file")
    squad.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="The project folder to write"
    )
    squad.add_argument("--name", help="The gold file's name (default: the input file's)")
    _force(squad)
    squad.set_defaults(handler=_squad)
    qa = kinds.add_parser(
        "qa",
        help="Rows of question and answer (JSON Lines or CSV), anchored in your corpus",
        description="Locate each row's answer in the corpus (tolerating whitespace and case). "
        "An answer found exactly once becomes a case whose span is the sentence around it; "
        "one found several times or nowhere goes to NAME.unresolved.yaml beside the gold "
        "file, with its locations or the closest text. Exit status 1 when any row is unresolved",
    )
    qa.add_argument(
        "file",
        type=Path,
        metavar="FILE",
        help="A .jsonl or .csv file with question and answer, optionally id and doc",
    )
    qa.add_argument(
        "--corpus",
        action="append",
        required=True,
        metavar="GLOB",
        help="The corpus files, e.g. 'docs/**/*.md' (repeatable)",
    )
    qa.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="GOLD",
        help="The gold file to write, e.g. gold/faq.yaml",
    )
    qa.add_argument(
        "--loader",
        metavar="MODULE:ATTR",
        help="Read the corpus files through this loader (default: the ini's chunkrecall_loader); "
        "written into the gold file",
    )
    qa.add_argument(
        "--reference-loader",
        metavar="MODULE:ATTR",
        help="Read the source text of files that are not text-like through this extractor, "
        "to tell an answer the loader lost (default: the ini's chunkrecall_reference_loader)",
    )
    _force(qa)
    qa.set_defaults(handler=_qa)
    chroma = kinds.add_parser(
        "chunking-evaluation",
        help="Chroma's chunking_evaluation questions_df.csv: one gold file per corpus",
        description="One case per reference excerpt: the span is the excerpt's text, the "
        "needle its sentence closest to the question. Writes DIR/gold/<corpus_id>.yaml, whose "
        "corpus: points into --corpora, and DIR/pytest.ini",
    )
    chroma.add_argument("file", type=Path, metavar="QUESTIONS_CSV", help="questions_df.csv")
    chroma.add_argument(
        "--corpora",
        type=Path,
        required=True,
        metavar="DIR",
        help="The folder of the corpora, <corpus_id>.md each",
    )
    chroma.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="The project folder to write"
    )
    _force(chroma)
    chroma.set_defaults(handler=_chunking_evaluation)


def configure_export(parser: argparse.ArgumentParser) -> None:
    """The ``export`` subcommands: trec."""
    kinds = parser.add_subparsers(title="formats", metavar="FORMAT", required=True)
    trec = kinds.add_parser(
        "trec",
        help="TREC qrels and run files, for trec_eval, ranx or ir_measures",
        description="Write DIR/qrels.txt (the chunks that hold each case's span whole) and "
        "DIR/run.txt (the retrieved chunks in rank order); chunk ids are <doc>#<index>",
    )
    trec.add_argument(
        "report", type=Path, metavar="REPORT.json", help="A --chunkrecall-report file"
    )
    trec.add_argument("--out", type=Path, required=True, metavar="DIR", help="The folder to write")
    trec.add_argument("--tag", default="chunkrecall", help="The run's name in its last column")
    _force(trec)
    trec.set_defaults(handler=_trec)


def run(args: argparse.Namespace) -> int:
    """Run the format's handler chosen on the command line."""
    status: int = args.handler(args)
    return status


def _force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true", help="Replace files that already exist")


def _squad(args: argparse.Namespace) -> int:
    found = import_squad(args.file, args.out, name=args.name, force=args.force)
    inputs = {args.file: "the SQuAD file being imported"}
    found.output.write(_protected("import", found.output, inputs))
    print(
        f"import squad: {_count(found.articles, 'article')}, {_count(found.cases, 'case')}; "
        f"{_count(found.unanswerable, 'unanswerable question')} skipped; "
        f"{_count(found.corrected, 'answer_start offset')} corrected to the nearest occurrence; "
        f"{found.unresolved} unresolved"
    )
    _renamed(found.renamed)
    _wrote(found.output)
    print(f"next: pytest {args.out}")
    return 1 if found.unresolved else 0


def _qa(args: argparse.Namespace) -> int:
    found = import_qa(
        args.file,
        args.corpus,
        args.out,
        force=args.force,
        loader=args.loader,
        reference_loader=args.reference_loader,
    )
    corpus = [
        Rule(pattern, Path.cwd(), f"a corpus document of this import (--corpus {pattern!r})")
        for pattern in args.corpus
    ]
    inputs = {args.file: "the file being imported"}
    found.output.write(_protected("import", found.output, inputs, corpus))
    print(
        f"import qa: {found.resolved} resolved, {found.ambiguous} ambiguous, "
        f"{found.not_found} not found"
        + (f", {found.off_topic} with {NO_OVERLAP}" if found.off_topic else "")
    )
    _renamed(found.renamed)
    _wrote(found.output)
    unresolved = found.ambiguous or found.not_found or found.off_topic
    if unresolved:
        print(f"settle the unresolved rows in {found.unresolved_file}, then move them into cases:")
    return 1 if unresolved else 0


def _chunking_evaluation(args: argparse.Namespace) -> int:
    found = import_chunking_evaluation(args.file, args.corpora, args.out, force=args.force)
    corpora = Rule(
        "**", args.corpora, f"a corpus of this import (--corpora {quoted(args.corpora)})"
    )
    inputs = {args.file: "the file being imported"}
    found.output.write(_protected("import", found.output, inputs, [corpora]))
    print(
        f"import chunking-evaluation: {_count(found.questions, 'question')} in "
        f"{_count(len(found.corpora), 'corpus', 'corpora')}, {_count(found.cases, 'case')}: "
        f"{found.resolved} resolved ({found.corrected} at a corrected offset), "
        f"{found.unresolved} unresolved; {_count(found.repeated, 'excerpt')} occur more than "
        "once in their corpus (any occurrence counts)"
    )
    _wrote(found.output)
    print(f"next: pytest {args.out}")
    return 1 if found.unresolved else 0


def _trec(args: argparse.Namespace) -> int:
    found = export_trec(args.report, args.out, force=args.force, tag=args.tag)
    inputs = {args.report: "the report being exported"}
    found.output.write(_protected("export", found.output, inputs, documents=found.documents))
    print(
        f"export trec: {_count(found.queries, 'query', 'queries')} "
        f"({found.without_holding} with no holding chunk, marked {NO_HOLDING_CHUNK}); "
        f"{_count(found.not_evaluated, 'case')} not evaluated left out"
    )
    _wrote(found.output)
    print(f"next: trec_eval -m success.1,3,5 -m recip_rank {found.qrels} {found.run}")
    return 0


def _protected(
    writer: str,
    output: Output,
    inputs: dict[Path, str],
    rules: Sequence[Rule] = (),
    *,
    documents: Mapping[str, Iterable[str]] | None = None,
) -> Protected:
    """What an import or export may not replace: its inputs, the project's own files, and
    the gold files of the project around it with their corpus. An import writes gold files
    and the documents they name: the gold files it replaces, and their corpus, are its own."""
    importing = writer == "import"
    return survey(
        Path.cwd(),
        writer=writer,
        search=[Path.cwd()],
        rules=rules,
        files={path: f"it is {what}" for path, what in inputs.items()},
        gold_folders=not importing,
        replaced=output.files if importing else (),
        documents=documents,
    )


def _renamed(renamed: tuple[str, ...]) -> None:
    for line in renamings(renamed):
        print(line)


def _wrote(output: Output) -> None:
    for path in output.files:
        print(f"wrote {path}")
    for path in output.kept:
        print(f"kept {path} (it exists)")


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else plural or singular + 's'}"
