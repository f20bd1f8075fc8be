"""``import qa``: rows of question and answer (JSON Lines or CSV) anchored in a corpus.

An answer that occurs exactly once (within the row's ``doc`` when it names
one), in a sentence that shares a content word with the question
(:func:`anchor.shares_content`), becomes a case with that sentence as its
span. One that occurs several times, nowhere, or once in a sentence about
something else goes to ``NAME.unresolved.yaml`` with what a person needs to
settle it: every location, the closest text, or the sentence it was found in.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from ..config.settings import Settings, check_setting
from ..errors import ChunkrecallError
from ..evaluation.project import find_project
from ..evaluation.reference import Reference
from ..evaluation.setup import Setup, resolve_setup
from ..evaluation.suite import SuiteCache
from ..text.folding import fold_text
from ..text.matcher import Matcher
from .anchor import Place, Source, closest_passage, occurrences, sentence, shares_content
from .rows import Row, read_rows, read_text, require
from .writing import (
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

NO_OVERLAP = "no overlap with the question"
_SHOWN_LOCATIONS = 50  # an answer such as "yes" can occur thousands of times


@dataclass(frozen=True)
class QaImport:
    """What ``import qa`` found and will write."""

    output: Output
    gold_file: Path
    unresolved_file: Path
    resolved: int
    ambiguous: int
    not_found: int
    renamed: tuple[str, ...] = ()  # given ids written otherwise, one line each
    off_topic: int = 0  # found once, in a sentence that shares no word with the question


def import_qa(
    path: Path,
    corpus: list[str],
    out: Path,
    *,
    force: bool = False,
    cwd: Path | None = None,
    loader: str | None = None,
    reference_loader: str | None = None,
) -> QaImport:
    """Anchor each row of ``path`` in the ``corpus`` globs (relative to ``cwd``); plan ``out``.

    The answers are looked for in the text the tests will read: the corpus as the
    setup resolver gives it (inside the corpus roots, through ``loader``, else the
    project's ``chunkrecall_loader``). ``loader`` and ``reference_loader``, when
    given, are written into the gold file, so that its tests read the same text.
    """
    cwd = cwd or Path.cwd()
    if out.suffix not in (".yaml", ".yml") or out.name.endswith(UNRESOLVED_SUFFIX):
        raise ChunkrecallError(
            f"--out must name a gold file such as gold/{out.stem or 'questions'}.yaml, not {out}"
        )
    rows = read_rows(path)
    gold_dir = (cwd / out).parent
    setup, sources = _corpus(corpus, cwd, gold_dir, loader, reference_loader)
    ids = Ids()
    cases: list[GoldCase] = []
    unresolved: list[Unresolved] = []
    for row in rows:
        anchored = _anchored(row, ids, sources, gold_dir, setup)
        if isinstance(anchored, GoldCase):
            cases.append(anchored)
        else:
            unresolved.append(anchored)
    patterns = [relative(cwd / pattern, gold_dir) for pattern in corpus]
    settings: dict[str, str | list[str]] = {
        "corpus": patterns[0] if len(patterns) == 1 else patterns
    }
    for key, given in (("loader", loader), ("reference_loader", reference_loader)):
        if given is not None:
            settings[key] = given
    header = [f"Imported from {path.name} by python -m pytest_chunkrecall import qa."]
    output = Output(force=force)
    gold_file = cwd / out
    unresolved_file = gold_file.with_name(gold_file.stem + UNRESOLVED_SUFFIX)
    if cases:
        output.add(gold_file, gold_yaml(header, settings, cases))
    if unresolved:
        notes = [
            *header,
            "Not collected by pytest. Settle an entry (add a span: or doc: that picks one place, "
            "or fix the needle), then move it into the cases: of the gold file.",
        ]
        output.add(unresolved_file, unresolved_yaml(notes, settings, unresolved))
    kinds = [entry.kind for entry in unresolved]
    return QaImport(
        output,
        gold_file,
        unresolved_file,
        len(cases),
        kinds.count("ambiguous"),
        kinds.count("not found"),
        tuple(ids.renamed),
        kinds.count(NO_OVERLAP),
    )


def _anchored(
    row: Row, ids: Ids, sources: list[Source], gold_dir: Path, setup: Setup
) -> GoldCase | Unresolved:
    """The case of one row whose answer occurs once, on topic; else what settles it."""
    question, answer = require(row, "question"), require(row, "answer")
    case_id = ids.claim(row.fields.get("id"), question, where=row.where)
    within = _documents(row, sources, gold_dir)
    places = [place for source in within for place in occurrences(source, answer)]
    if len(places) == 1 and _on_topic(question, places[0]):
        return _case(case_id, question, places[0], gold_dir)
    only = within[0] if row.fields.get("doc", "").strip() and len(within) == 1 else None
    doc = relative(only.path, gold_dir) if only and only.path else None
    case = GoldCase(case_id, question, answer, doc=doc)
    if len(places) == 1:
        return Unresolved(case, _off_topic(case_id, places[0]), NO_OVERLAP)
    if places:
        return Unresolved(case, _ambiguous(case_id, places), "ambiguous")
    said = _not_found(case_id, answer, within) + _lost(answer, within, setup)
    return Unresolved(case, said, "not found")


def _corpus(
    corpus: list[str],
    cwd: Path,
    gold_dir: Path,
    loader: str | None,
    reference_loader: str | None,
) -> tuple[Setup, list[Source]]:
    """The corpus the gold file will read, resolved as its tests resolve it, as sources."""
    project = find_project(gold_dir, fallback=cwd)
    project.importable()
    origins = {"corpus": "--corpus"}
    for key, given in (("loader", loader), ("reference_loader", reference_loader)):
        if given is None:
            continue
        option = origins[key] = f"--{key.replace('_', '-')}"
        problem = check_setting(key, given)[1]
        if problem:
            raise ChunkrecallError(f"{option} {problem}")
    own = Settings(
        corpus=tuple(corpus),
        loader=loader,
        reference_loader=reference_loader,
        corpus_base=cwd,
        origins=origins,
    )
    setup = resolve_setup(
        own, name="--corpus", rootdir=project.rootdir, ini=project.ini, roots=project.roots
    )
    names = [relative(file, cwd) for file in setup.files]
    if setup.loader is None:
        texts = [
            read_text(file, what="corpus file", shown=name)
            for file, name in zip(setup.files, names, strict=True)
        ]
    else:
        texts = [doc.text for doc in setup.read(SuiteCache(project.rootdir))]
    return setup, [
        Source(name, text, file) for name, text, file in zip(names, texts, setup.files, strict=True)
    ]


def _lost(answer: str, within: list[Source], setup: Setup) -> tuple[str, ...]:
    """With a loader, where the source files have the answer that the loaded text lacks:
    the loader loses it (the tests would call such a case unparsed)."""
    if setup.loader is None:
        return ()
    reference = Reference(
        [(source.name, source.path) for source in within if source.path is not None],
        setup.reference_loader.obj if setup.reference_loader else None,
        setup.reference_loader.name if setup.reference_loader else "",
    )
    finder = reference.finder(Matcher())
    pattern = fold_text(answer)
    holding = sorted({found.doc for found in finder.occurrences(pattern)})
    if not holding:
        return ()
    return (
        f"  the source file {holding[0]} has it, but the text loader {setup.loader.name} "
        "makes of it does not: fix the loader, or the answer",
    )


def _documents(row: Row, sources: list[Source], gold_dir: Path) -> list[Source]:
    """The corpus documents the row's ``doc`` names (a path or glob), or all of them."""
    wanted = row.fields.get("doc", "").strip()
    if not wanted:
        return sources
    pattern = wanted.replace("\\", "/")
    found = [
        source
        for source in sources
        if source.path is not None
        and any(
            fnmatch.fnmatchcase(name, pattern)
            for name in (
                source.name,
                relative(source.path, gold_dir),
                source.path.name,
                source.path.stem,
            )
        )
    ]
    if not found:
        names = ", ".join(source.name for source in sources[:5])
        raise ChunkrecallError(
            f"doc {wanted!r} matches no document of the corpus ({names}"
            f"{', …' if len(sources) > 5 else ''}); give its path, file name or a glob",
            where=row.where,
        )
    return found


def _case(case_id: str, question: str, place: Place, gold_dir: Path) -> GoldCase:
    """The case of an answer found once; its needle as the document has it, for any match mode."""
    begin, end = sentence(place.source.text, place.start, place.end)
    assert place.source.path is not None
    return GoldCase(
        case_id,
        question,
        place.text.strip(),
        place.source.text[begin:end],
        relative(place.source.path, gold_dir),
    )


def _on_topic(question: str, place: Place) -> bool:
    """Whether the sentence around the answer shares content words with the question."""
    begin, end = sentence(place.source.text, place.start, place.end)
    return shares_content(question, place.source.text[begin:end])


def _off_topic(case_id: str, place: Place) -> tuple[str, ...]:
    begin, end = sentence(place.source.text, place.start, place.end)
    return (
        f"{case_id}: {NO_OVERLAP}; the answer occurs once, at {place}:",
        f"  {one_line(place.source.text[begin:end], 200)!r}",
    )


def _ambiguous(case_id: str, places: list[Place]) -> tuple[str, ...]:
    notes = [f"{case_id}: ambiguous, the answer occurs {len(places)} times:"]
    for place in places[:_SHOWN_LOCATIONS]:
        begin, end = sentence(place.source.text, place.start, place.end)
        notes.append(f"  {place}: {one_line(place.source.text[begin:end], 120)!r}")
    if len(places) > _SHOWN_LOCATIONS:
        notes.append(f"  … and {len(places) - _SHOWN_LOCATIONS} more")
    return tuple(notes)


def _not_found(case_id: str, answer: str, within: list[Source]) -> tuple[str, ...]:
    best = closest_passage(within, answer)
    if best is None:
        return (f"{case_id}: not found, and no text in the corpus is like it.",)
    return (
        f"{case_id}: not found; the closest text (score {best.score:.0f}/100) is at {best.place}:",
        f"  {one_line(best.place.text, 200)!r}",
    )
