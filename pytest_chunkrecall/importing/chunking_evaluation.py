"""``import chunking-evaluation``: Chroma's questions_df.csv as one gold file per corpus.

Each reference excerpt ({content, start_index, end_index} into the corpus named
by ``corpus_id``) becomes a case. Its **span is the excerpt's exact text**: the
plugin matches a text span as one normalized substring, whatever its length,
while a ``{from, to}`` span means the shortest passage between two phrases,
which can land elsewhere in a large corpus. Its **needle is the excerpt's
sentence that shares the most words with the question** (the part that
answers it): it shows a reader what must come back, and lies inside the span
by construction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ChunkrecallError
from .anchor import Source, closest_passage, content_words, nearest, occurrences, sentences
from .rows import Row, loads, read_rows, read_text, require
from .writing import (
    PYTEST_INI,
    UNRESOLVED_SUFFIX,
    GoldCase,
    Ids,
    Output,
    Unresolved,
    gold_yaml,
    one_line,
    relative,
    unresolved_yaml,
)


@dataclass(frozen=True)
class Excerpt:
    """One reference excerpt of a question, checked against its corpus."""

    content: str
    start: int
    end: int


@dataclass(frozen=True)
class ChunkingEvaluationImport:
    """What ``import chunking-evaluation`` found and will write."""

    output: Output
    questions: int
    cases: int
    resolved: int
    corrected: int
    unresolved: int
    repeated: int
    corpora: tuple[str, ...]


@dataclass
class _Corpus:
    """One corpus and what its questions became, in file order."""

    source: Source
    questions: int = 0
    cases: list[GoldCase] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)
    ids: Ids = field(default_factory=Ids)


def import_chunking_evaluation(
    path: Path, corpora: Path, out: Path, *, force: bool = False
) -> ChunkingEvaluationImport:
    """Read ``questions_df.csv`` at ``path``, anchor it in ``corpora``, and plan ``out``."""
    found: dict[str, _Corpus] = {}
    corrected = repeated = 0
    for row in read_rows(path):
        question = require(row, "question")
        corpus_id = require(row, "corpus_id")
        if corpus_id not in found:
            found[corpus_id] = _Corpus(_corpus(corpora, corpus_id, row))
        corpus = found[corpus_id]
        corpus.questions += 1
        references = _references(row)
        for part, reference in enumerate(references, start=1):
            suffix = f"-{part}" if len(references) > 1 else ""
            case_id = corpus.ids.claim(f"q{corpus.questions:03d}{suffix}", question)
            source, excerpt = corpus.source, reference.content
            if source.text[reference.start : reference.end] != excerpt:
                if nearest(source, excerpt, reference.start) is None:
                    corpus.unresolved.append(_unresolved(case_id, question, reference, source))
                    continue
                corrected += 1
            repeated += len(occurrences(source, excerpt)) > 1
            corpus.cases.append(
                GoldCase(case_id, question, needle(excerpt, question), excerpt.strip())
            )
    output = _output(path, found, out, force)
    cases = sum(len(corpus.cases) for corpus in found.values())
    left = sum(len(corpus.unresolved) for corpus in found.values())
    questions = sum(corpus.questions for corpus in found.values())
    return ChunkingEvaluationImport(
        output, questions, cases + left, cases, corrected, left, repeated, tuple(found)
    )


def _output(path: Path, found: dict[str, _Corpus], out: Path, force: bool) -> Output:
    """One gold file per corpus (its ``corpus:`` is the corpus file), and the ini file."""
    output = Output(force=force)
    gold_dir = out / "gold"
    header = [
        f"Imported from {path.name} by python -m pytest_chunkrecall import chunking-evaluation."
    ]
    for corpus_id, corpus in found.items():
        assert corpus.source.path is not None
        settings = {"corpus": relative(corpus.source.path.resolve(), gold_dir.resolve())}
        if corpus.cases:
            output.add(gold_dir / f"{corpus_id}.yaml", gold_yaml(header, settings, corpus.cases))
        if corpus.unresolved:
            notes = [
                *header,
                "These excerpts are not in the corpus: fix each, then move it into cases:.",
            ]
            text = unresolved_yaml(notes, settings, corpus.unresolved)
            output.add(gold_dir / f"{corpus_id}{UNRESOLVED_SUFFIX}", text)
    # The corpora stay where they are; corpus files outside the project are refused
    # unless the ini names their folder (gold files are data, and reviewed as such).
    folders = sorted(
        {
            relative(corpus.source.path.resolve().parent, out.resolve())
            for corpus in found.values()
            if corpus.source.path is not None
            and not corpus.source.path.resolve().is_relative_to(out.resolve())
        }
    )
    roots = "".join(f"    {folder}\n" for folder in folders)
    ini = PYTEST_INI + (f"chunkrecall_corpus_roots =\n{roots}" if folders else "")
    output.add_unless_present(out / "pytest.ini", ini)
    return output


def needle(excerpt: str, question: str) -> str:
    """The sentence of ``excerpt`` that shares the most words with ``question`` (the first on ties)."""
    asked = content_words(question)
    best, best_score = excerpt.strip(), -1
    for begin, end in sentences(excerpt):
        piece = excerpt[begin:end]
        score = len(asked & content_words(piece))
        if score > best_score:
            best, best_score = piece, score
    return best


def _corpus(corpora: Path, corpus_id: str, row: Row) -> Source:
    if "/" in corpus_id or "\\" in corpus_id or corpus_id.startswith("."):
        raise ChunkrecallError(f"corpus_id {corpus_id!r} is not a corpus name", where=row.where)
    found = sorted(corpora.glob(f"{corpus_id}.*"))
    if not found:
        raise ChunkrecallError(
            f"no corpus file {corpus_id}.md (or {corpus_id}.*) in {corpora}; "
            "--corpora names the folder that holds Chroma's corpora",
            where=row.where,
        )
    return Source(relative(found[0], Path.cwd()), read_text(found[0], what="corpus file"), found[0])


def _references(row: Row) -> list[Excerpt]:
    text = require(row, "references")
    try:
        items = loads(
            text,
            what="'references'",
            where=row.where,
            nested="a list of references",
            numbers="no start_index or end_index is that long",
        )
    except json.JSONDecodeError as exc:
        raise ChunkrecallError(
            f"'references' is not JSON: {exc.msg} (character {exc.pos})", where=row.where
        ) from None
    if not isinstance(items, list) or not items:
        raise ChunkrecallError("'references' must be a non-empty JSON list", where=row.where)
    references = []
    for number, item in enumerate(items, start=1):
        content = item.get("content") if isinstance(item, dict) else None
        start = item.get("start_index") if isinstance(item, dict) else None
        end = item.get("end_index") if isinstance(item, dict) else None
        if (
            not isinstance(content, str)
            or not content.strip()
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end))
        ):
            raise ChunkrecallError(
                f"reference {number} must be {{content: text, start_index: int, end_index: int}}",
                where=row.where,
            )
        assert isinstance(start, int) and isinstance(end, int)
        references.append(Excerpt(content, start, end))
    return references


def _unresolved(case_id: str, question: str, reference: Excerpt, source: Source) -> Unresolved:
    notes = [
        f"{case_id}: the excerpt at {reference.start}..{reference.end} is not in {source.name}."
    ]
    best = closest_passage([source], reference.content)
    if best is not None:
        notes.append(
            f"  closest text (score {best.score:.0f}/100) at {best.place}: {one_line(best.place.text)!r}"
        )
    case = GoldCase(case_id, question, needle(reference.content, question))
    return Unresolved(case, tuple(notes), "not found")
