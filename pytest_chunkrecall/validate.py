"""``python -m pytest_chunkrecall validate``: gold files checked against the loaded corpus,
without chunking for the tests or running any retriever.

Each gold file is read as collection reads it (the same errors, with file:line),
its setup resolved by the resolver the tests use (:func:`.evaluation.setup.resolve_setup`:
corpus roots, loader), and every case's span or needles, ``doc`` and ``must_not``
texts looked for in the loaded corpus the way a run decides ``absent``. A text
that is not there is printed with the closest text the corpus has (the search
behind an ``absent`` failure), ready to paste, with its document and line. Case
ids used by two gold files over the same corpus are named too. One line per problem; the exit status
is 0 when there is none, 1 when there are some, 2 for a usage error.

The closest-text search looks in windows of the documents, not in the
configured chunker's chunks: a chunker can cost far more than reading.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .chunking.chunk import Chunk
from .corpus import Document, document_id, matches_pattern
from .discovery import collected_as_gold, gold_files_of, gold_path_problem
from .errors import ChunkrecallError, counted, trimmed
from .evaluation.chunk_map import ChunkMap
from .evaluation.closest import closest
from .evaluation.finder import Finder
from .evaluation.plan import case_matcher, pinned, span_problem
from .evaluation.project import Project, find_project
from .evaluation.reference import Reference
from .evaluation.setup import Setup, resolve_setup
from .evaluation.suite import SuiteCache
from .evaluation.units import units_of
from .gold import Case, GoldFile, load
from .text.matcher import Matcher

VALIDATE_HELP = "Check gold files against the loaded corpus, without running any retriever"
_WINDOW = 1_000  # characters of the windows the closest text is searched in
_WINDOW_OVERLAP = 200
_TRAILING = ".,;:"  # punctuation left off the end of a closest text
# Texts of a case other than its span and needles that must occur in the corpus, by the
# case attribute that holds them, with what it means when one does not. A gold-file key
# that this version does not know yet is simply not on the case.
_MUST_OCCUR = (("must_not", "so the check that it never comes back cannot fail"),)


def configure_validate(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``validate``."""
    parser.add_argument(
        "gold_files",
        nargs="*",
        type=Path,
        metavar="GOLD_FILE",
        help="The gold files to check (default: those pytest collects)",
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="The paths are changed files (as a pre-commit hook passes them): check the gold "
        "files among them and every gold file whose corpus holds one of them",
    )


@dataclass
class Tally:
    """What ``validate`` checked and what it found."""

    gold_files: int = 0
    cases: int = 0
    problems: list[str] = field(default_factory=list)


def run_validate(args: argparse.Namespace) -> int:
    """Check the gold files; 0 when all is well, 1 when something is not."""
    began = time.perf_counter()
    cwd = Path.cwd()
    if not args.changed:
        for path in args.gold_files:
            problem = gold_path_problem(path)
            if problem is not None:
                raise ChunkrecallError(problem)
    start = _common_folder(args.gold_files, cwd) if args.gold_files else cwd
    project = find_project(start, fallback=cwd)
    project.importable()
    gold_files = _chosen(args.gold_files, project, changed=args.changed)
    tally = Tally()
    suites = SuiteCache(project.rootdir)
    ids: dict[tuple[str, str], str] = {}
    for path in gold_files:
        for line in _checked(path, project, suites, tally, ids):
            print(line)
    seconds = time.perf_counter() - began
    found = counted(len(tally.problems), "problem") if tally.problems else "no problems"
    print(
        f"validate: {counted(tally.gold_files, 'gold file')}, {counted(tally.cases, 'case')}: "
        f"{found} ({seconds:.1f}s)"
    )
    return 1 if tally.problems else 0


def _common_folder(paths: Sequence[Path], cwd: Path) -> Path:
    """The folder the project is looked for from: where the paths are."""
    first = (cwd / paths[0]).resolve()
    return first if first.is_dir() else first.parent


def _chosen(paths: Sequence[Path], project: Project, *, changed: bool) -> list[Path]:
    """The gold files to check: those named, else those pytest collects; with ``changed``,
    the changed gold files (collected, or gold files by the default discovery wherever they
    are, as ``pytest FOLDER`` collects them) and the collected ones whose corpus holds a
    changed file."""
    if paths and not changed:
        return [path.resolve() for path in paths]
    collected = gold_files_of(project.rootdir, project.gold, project.testpaths)
    if not changed:
        return collected
    touched = {path.resolve() for path in paths}
    chosen = set(collected) if project.gold else None
    named = {
        path
        for path in touched
        if path.is_file() and collected_as_gold(path, project.rootdir, chosen)
    }
    reading = {path for path in collected if _reads_any(path, project, touched)}
    return sorted(named | reading)


def _reads_any(gold_path: Path, project: Project, touched: set[Path]) -> bool:
    """Whether the gold file's corpus patterns name any of the ``touched`` files (a gold
    file that cannot be read counts: checking it says why)."""
    try:
        gold = load(gold_path, name=document_id(gold_path, project.rootdir))
    except ChunkrecallError:
        return True
    settings = gold.settings.over(project.ini)
    base = settings.corpus_base or project.rootdir
    return any(
        matches_pattern(path, pattern, base)
        for pattern in settings.corpus or ()
        for path in touched
    )


def _checked(
    path: Path,
    project: Project,
    suites: SuiteCache,
    tally: Tally,
    ids: dict[tuple[str, str], str],
) -> Iterable[str]:
    """The problems of one gold file, one line each, as they are found."""
    tally.gold_files += 1
    name = document_id(path, project.rootdir)
    try:
        gold = load(path, name=name)
        setup = resolve_setup(
            gold.settings, name=name, rootdir=project.rootdir, ini=project.ini, roots=project.roots
        )
        documents = setup.read(suites)
    except ChunkrecallError as exc:
        yield _problem(tally, _one_line(str(exc)))
        return
    corpus = _Corpus(documents, setup)
    for case in gold.cases:
        if case.skip is not None:
            continue  # a skipped case is never evaluated
        tally.cases += 1
        where = f"{name}:{case.line}"
        # Gold files over different corpora may share ids (an importer numbers each
        # file's cases from 1); over one corpus, one id twice is a case copied, or two
        # that the report, the baseline and -k can tell apart only by their file.
        earlier = ids.setdefault((corpus.key, case.id), where)
        if earlier != where and not earlier.startswith(f"{name}:"):
            yield _problem(
                tally,
                f"{where}: case id {case.id!r} is also the id of a case in {earlier}, over the "
                "same corpus; give each case an id of its own",
            )
        for problem in _must_occur(case, setup, corpus):
            yield _problem(tally, f"{where}: case {case.id!r}: {problem}")
        for number, variant in enumerate(case.variants()):
            # an alternative of any_of is named by its own line and its index
            at = f"{name}:{case.alternatives[number].line}" if case.alternatives else where
            label = f"alternative {number} of " if case.alternatives else ""
            for problem in _case_problems(variant, gold, setup, corpus, project.rootdir):
                yield _problem(tally, f"{at}: {label}case {case.id!r}: {problem}")


def _problem(tally: Tally, line: str) -> str:
    tally.problems.append(line)
    return line


def _one_line(message: str) -> str:
    """An error on one line: its first line, and the last line of a traceback under it."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if len(lines) <= 1:
        return message.strip()
    return f"{lines[0]} {lines[-1]}"


def _case_problems(
    case: Case, gold: GoldFile, setup: Setup, corpus: _Corpus, rootdir: Path
) -> Iterable[str]:
    """What of one case the loaded corpus does not bear out."""
    matcher = case_matcher(case, setup.settings)
    problem = span_problem(case, matcher)
    if problem is not None:
        yield problem
        return
    docs = None
    if case.doc is not None:
        try:
            docs = pinned(
                case.doc,
                gold_dir=gold.path.parent,
                rootdir=rootdir,
                files=setup.files,
                documents=setup.documents,
                where="",
            )
        except ChunkrecallError as exc:
            yield exc.message
            return
    finder = corpus.finder(matcher)
    units = units_of(case, finder, docs)
    for needle in units.outside:
        yield (
            f"needle {trimmed(needle)!r} is not inside the span {units.shown} as the corpus "
            "has it; fix the needle or the span"
        )
    missing = units.missing + [
        units.written[pattern]
        for pattern in units.patterns
        if not finder.locate(pattern, docs).present
    ]
    what = "span" if case.span is not None else "needle"
    for text in missing:
        lost = corpus.lost(text, matcher)
        if lost is not None and case.xfail is not None:
            continue  # the case says it is expected to fail; a loader's loss is such a failure
        yield _absent(what, text, finder, docs, lost, corpus)


def _must_occur(case: Case, setup: Setup, corpus: _Corpus) -> Iterable[str]:
    """The texts a case names that must be in the corpus for its check to mean anything."""
    matcher = case_matcher(case, setup.settings)
    finder = corpus.finder(matcher)
    for attribute, meaning in _MUST_OCCUR:
        for text in _texts(getattr(case, attribute, None)):
            # what must not come back lives in other documents than the case's doc
            if not finder.locate(matcher.prepare(text), None).present:
                yield f"{attribute} text {trimmed(text)!r} occurs in no document, {meaning}"


def _texts(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, tuple | list):
        return tuple(text for text in value if isinstance(text, str))
    return ()


def _absent(
    what: str,
    text: str,
    finder: Finder,
    docs: frozenset[str] | None,
    lost: str | None,
    corpus: _Corpus,
) -> str:
    """The line for a span or needle the loaded corpus lacks: where the source has it when
    the loader lost it, else the closest text the corpus has, ready to paste."""
    scope = "the documents of its doc:" if docs is not None else "the corpus"
    head = f"{what} {trimmed(text)!r} is not in {scope}"
    if lost is not None:
        return f"{head}, though the source file {lost} has it: the loader loses it"
    pattern = finder.matcher.prepare(text)
    best = next(
        (found for found in closest(finder, pattern) if docs is None or found.doc in docs), None
    )
    if best is None or best.doc is None:
        return f"{head}, nor anything like it"
    # without the punctuation that ends its last word: still text the corpus has, and a
    # needle rather than a piece of a sentence
    text = best.text.rstrip(_TRAILING) or best.text
    line = corpus.line(best.doc, text)
    return f"{head}; closest: {json.dumps(text, ensure_ascii=False)} ({best.doc}:{line})"


class _Corpus:
    """The loaded documents of one gold file's setup, as validate searches them."""

    def __init__(self, documents: tuple[Document, ...], setup: Setup) -> None:
        self.documents = documents
        self.setup = setup
        self._by_id = {doc.id: doc for doc in documents}
        self.key = "\n".join(doc.id for doc in documents)  # the same for the same corpus
        self._chunks: tuple[Chunk, ...] | None = None
        self._map: ChunkMap | None = None
        self._finders: dict[Matcher, Finder] = {}
        self._reference: Reference | None = None

    def finder(self, matcher: Matcher) -> Finder:
        """The documents seen through ``matcher``, in windows for the closest-text search."""
        found = self._finders.get(matcher)
        if found is None:
            if self._chunks is None:
                self._chunks = tuple(_windows(self.documents))
                self._map = ChunkMap(self._chunks)
            assert self._map is not None
            found = self._finders[matcher] = Finder(
                self.documents, self._map, self._chunks, matcher
            )
        return found

    def lost(self, text: str, matcher: Matcher) -> str | None:
        """With a loader, the source file whose reference text has ``text``, if one does."""
        if self.setup.loader is None or not self.setup.files:
            return None
        if self._reference is None:
            second = self.setup.reference_loader
            self._reference = Reference(
                list(zip((doc.id for doc in self.documents), self.setup.files, strict=True)),
                second.obj if second else None,
                second.name if second else "",
            )
        found = next(self._reference.finder(matcher).occurrences(matcher.prepare(text)), None)
        return found.doc if found is not None else None

    def line(self, doc: str, text: str) -> int:
        """The 1-based line of the document where ``text`` (words as the document has
        them, with any whitespace between) first occurs; 1 when it cannot be found."""
        document = self._by_id.get(doc)
        if document is None:
            return 1
        pattern = r"\s+".join(re.escape(word) for word in text.split())
        found = re.search(pattern, document.text) if pattern else None
        return document.text.count("\n", 0, found.start()) + 1 if found else 1


def _windows(documents: Iterable[Document]) -> Iterable[Chunk]:
    """Overlapping character windows of every document, placed in it."""
    index = 0
    stride = _WINDOW - _WINDOW_OVERLAP
    for doc in documents:
        for start in range(0, max(len(doc.text), 1), stride):
            end = min(len(doc.text), start + _WINDOW)
            yield Chunk(doc.text[start:end], doc.id, index, start, end)
            index += 1
            if end >= len(doc.text):
                break
