"""From a gold file and its settings to a plan, and from a plan to results — without pytest."""

from __future__ import annotations

import fnmatch
import glob
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..chunking.shapes import CONFIGURED, check_arguments
from ..config.resolve import resolve
from ..config.settings import (
    DEFAULT_CANDIDATES,
    DEFAULT_CHUNKER,
    DEFAULT_DEPTH,
    DEFAULT_FUZZY_THRESHOLD,
    DEFAULT_K,
    DEFAULT_MATCH,
    DEFAULT_RETRIEVER,
    Settings,
    check_setting,
)
from ..corpus import Document, document_id, find_files, fingerprint, from_mapping
from ..errors import ChunkrecallError, trimmed
from ..gold import Case, GoldFile, load
from ..text.matcher import Matcher
from .gold_facts import GoldFacts
from .prefetch import Key
from .reference import Reference
from .repeat import combined
from .results import CaseResult
from .suite import Component, Suite, SuiteCache
from .verdict import deepen, judge


@dataclass(frozen=True)
class Supplied:
    """What code (a conftest hook) supplies instead of a ``module:attr`` setting."""

    chunker: Any = None
    retriever: Any = None
    documents: tuple[Document, ...] | None = None


@dataclass(frozen=True)
class Plan:
    """A gold file with everything resolved that can be resolved without reading the corpus."""

    gold: GoldFile
    name: str
    files: tuple[Path, ...]
    documents: tuple[Document, ...] | None
    loader: Component | None
    chunker: Component
    retriever: Component
    settings: Settings
    k_override: int | None = None
    length: Component | None = None
    depth: int = DEFAULT_DEPTH
    pins: Mapping[str, frozenset[str]] = field(default_factory=dict)
    reranker: Component | None = None
    reference_loader: Component | None = None
    # Whether a hit lists every chunk of the corpus holding its span (an output
    # shows them): finding them reads the corpus, as a hit otherwise need not.
    every_holder: bool = True
    repeat: int = 1

    @property
    def measure(self) -> Callable[[str], int]:
        """How spans and chunks are measured: the user's length function, or characters."""
        return self.length.obj if self.length else len

    @property
    def unit(self) -> str:
        """The unit of :attr:`measure`, as the summary names it."""
        return f"units of {self.length.name}" if self.length else "chars"

    def evaluate(self, suite: Suite, case: Case) -> CaseResult:
        """Evaluate one case of this gold file against ``suite``, asking its question
        :attr:`repeat` times: the worst result, and whether they differed (see :mod:`.repeat`)."""
        return combined([self._evaluate(suite, case, repeat) for repeat in range(self.repeat)])

    def keys(self, case: Case, suite: Suite) -> list[Key]:
        """What the retriever is asked for ``case``, once for each repeat."""
        asked = self.asked(case, suite)
        return [(case.question, asked, repeat) for repeat in range(self.repeat)]

    def _evaluate(self, suite: Suite, case: Case, repeat: int) -> CaseResult:
        k = self.k(case)
        docs = self.pins.get(case.doc) if case.doc is not None else None
        finder = suite.finder(self.matcher(case))
        second = suite.reranker(self.reranker, where=self._reranker_where())
        asked = self.asked(case, suite)
        top = candidates = suite.search(case.question, asked, repeat=repeat)
        if second is not None:
            top = second.rerank(case.question, candidates, k)
        result = judge(
            case,
            top,
            finder,
            gold_file=self.name,
            k=k,
            docs=docs,
            length=self.measure,
            unit=self.unit,
            candidates=candidates if second is not None else None,
            reranker=second.name if second is not None else None,
            reference=self.reference(suite),
            every_holder=self.every_holder,
        )
        if result.verdict != "ranked_out" or self.depth <= asked:
            return result
        # How far down the holding chunk is decides what to do: raise k, add a
        # reranker, or fix the question. One more call, for ranked_out cases only.
        try:
            deeper = suite.search(case.question, self.depth, repeat=repeat)
        except ChunkrecallError as exc:
            return replace(result, depth=self.depth, depth_error=exc.message.splitlines()[0])
        return deepen(result, case, deeper, finder, depth=self.depth, docs=docs)

    def reference(self, suite: Suite) -> Reference | None:
        """The reference text of the corpus's source files, with a loader: what tells a fact
        the loader lost (unparsed) from one the corpus never had (absent)."""
        if self.loader is None or not self.files:
            return None
        return suite.reference(self.files, self.reference_loader)

    def k(self, case: Case | None = None) -> int:
        """How many results a question is asked for: ``--chunkrecall-k``, else the case's
        own ``k``, else the gold file's (or the ini file's), else the default.

        Without a case, the gold file's k, as its summary line names it.
        """
        own = case.k if case is not None else None
        return self.k_override or own or self.settings.k or DEFAULT_K

    @property
    def candidates(self) -> int:
        """How many chunks the first stage gives a reranker: the setting, else the default."""
        return self.settings.candidates or DEFAULT_CANDIDATES

    def asked(self, case: Case, suite: Suite) -> int:
        """How many results the retriever is asked for ``case``: its k, or with a second
        stage (``reranker:``, or the retriever's own compressor) the candidates."""
        two_stage = self.reranker is not None or suite.own_reranker is not None
        return self.candidates if two_stage else self.k(case)

    def _reranker_where(self) -> str | None:
        return self.settings.where("reranker_args") or self.settings.where("reranker") or self.name

    def matcher(self, case: Case) -> Matcher:
        """How the case's needles and span are matched."""
        threshold = case.fuzzy_threshold
        if threshold is None:
            threshold = self.settings.fuzzy_threshold
        return Matcher(
            case.match or self.settings.match or DEFAULT_MATCH,
            DEFAULT_FUZZY_THRESHOLD if threshold is None else threshold,
        )

    def suite(self, suites: SuiteCache) -> Suite:
        """The suite for this plan, built by ``suites`` once per configuration."""
        return suites.remembered(self, lambda: self._suite(suites))

    def _suite(self, suites: SuiteCache) -> Suite:
        documents, where = self.documents, self.settings.where("corpus")
        if documents is None:
            documents = suites.documents(self.files, self.loader, where=where)
        suite = suites.suite(documents, self.chunker, self.retriever, where=self.name)
        # Made with the suite, as the retriever is: a reranker that cannot be built fails
        # this gold file's cases with its error, and the rest of the run goes on.
        suite.reranker(self.reranker, where=self._reranker_where())
        return suite

    @property
    def corpus_key(self) -> str:
        """The same text for every gold file that reads the same corpus."""
        if self.documents is not None:
            return "documents:" + ",".join(doc.id for doc in self.documents)
        return "files:" + ",".join(str(path) for path in self.files)

    def with_chunker(self, chunker: Component) -> Plan:
        """This plan with another chunker configuration (a sweep's setting)."""
        return replace(self, chunker=chunker)

    def with_candidates(self, candidates: Any) -> Plan:
        """This plan with the first stage asked for ``candidates`` chunks (a sweep's setting).

        Raises :class:`ChunkrecallError` when that is no number of chunks, or fewer than k.
        """
        value, problem = check_setting("candidates", candidates)
        if problem is None and value < self.k():
            problem = f"is less than k ({self.k()})"
        if problem is not None:
            raise ChunkrecallError(f"candidates={candidates!r} {problem}")
        return replace(self, settings=replace(self.settings, candidates=value))

    def facts(self, suite: Suite) -> GoldFacts:
        """What the summary and the JSON report say about this gold file's configuration."""
        facts = self._facts(suite)
        second = suite.reranker(self.reranker, where=self._reranker_where())
        if second is not None:
            facts["reranker"] = second.name
            facts["reranker_args"] = self.reranker.args if self.reranker is not None else {}
            facts["candidates"] = self.candidates
        return facts

    def _facts(self, suite: Suite) -> GoldFacts:
        corpus = self.settings.corpus
        return {
            "corpus": ", ".join(corpus)
            if corpus and self.documents is None
            else "pytest_chunkrecall_documents",
            "documents": len(suite.documents),
            "corpus_chars": suite.corpus_chars,
            "chunker": self.chunker.name,
            "chunker_args": self.chunker.args,
            "chunks": len(suite.chunks),
            "retriever": self.retriever.name,
            "retriever_args": self.retriever.args,
            "k": self.k(),
            "match": self.settings.match or DEFAULT_MATCH,
            "unit": self.unit,
            "geometry": suite.geometry(self.measure),
            "fingerprints": {doc.id: fingerprint(doc.text) for doc in suite.documents},
        }


def plan(
    gold: GoldFile,
    *,
    name: str,
    rootdir: Path,
    ini: Settings | None = None,
    loader: Component | None = None,
    reference_loader: Component | None = None,
    supplied: Supplied | None = None,
    k_override: int | None = None,
    length: Component | None = None,
    depth: int = DEFAULT_DEPTH,
    every_holder: bool = True,
    repeat: int = 1,
) -> Plan:
    """Combine the gold file's settings with the ini file's and what code supplies.

    The gold file wins, then code supplied by hooks, then the ini file, then the
    built-in defaults. Raises :class:`ChunkrecallError` naming the setting at fault.
    ``every_holder``: a hit lists every chunk of the corpus that holds its span.
    """
    ini = ini or Settings()
    supplied = supplied or Supplied()
    settings = gold.settings.over(ini)
    chunker = _component(
        "chunker",
        gold.settings.chunker,
        supplied.chunker,
        ini.chunker,
        DEFAULT_CHUNKER,
        settings,
        gold.settings,
    )
    retriever = _component(
        "retriever",
        gold.settings.retriever,
        supplied.retriever,
        ini.retriever,
        DEFAULT_RETRIEVER,
        settings,
        gold.settings,
    )
    for component in (chunker, retriever):
        role = "chunker" if component is chunker else "retriever"
        problem = check_arguments(component.obj, component.args, role=role)
        if problem:
            raise ChunkrecallError(
                f"{role} {component.name} {problem}"
                if problem == CONFIGURED
                else f"{role} {component.name} with {role}_args {component.args}: {problem}",
                where=settings.where(f"{role}_args") or settings.where(role) or name,
            )
    files: tuple[Path, ...] = ()
    documents = supplied.documents if gold.settings.corpus is None else None
    if documents is None:
        if settings.corpus is None:
            raise ChunkrecallError(
                "no corpus: add 'corpus: <glob>' to the gold file, or set the ini option "
                "chunkrecall_corpus",
                where=f"{name}:1",
            )
        base = settings.corpus_base or rootdir
        files = tuple(find_files(settings.corpus, base, where=settings.where("corpus") or name))
    reranker = (
        Component.of(
            settings.reranker,
            resolve(settings.reranker, what="reranker", where=settings.where("reranker")),
            dict(settings.reranker_args or {}),
        )
        if settings.reranker is not None
        else None
    )
    the_plan = Plan(
        gold,
        name,
        files,
        documents,
        _function("loader", gold.settings, loader, settings),
        chunker,
        retriever,
        settings,
        k_override,
        length,
        depth,
        reranker=reranker,
        reference_loader=_function("reference_loader", gold.settings, reference_loader, settings),
        every_holder=every_holder,
        repeat=repeat,
    )
    _check_spans(the_plan)
    _check_candidates(the_plan)
    return replace(the_plan, pins=_pins(gold, name=name, rootdir=rootdir, plan=the_plan))


def _check_spans(the_plan: Plan) -> None:
    """Every needle of a case with a text span must lie inside it: the span anchors the hit."""
    for case in the_plan.gold.cases:
        if not isinstance(case.span, str):
            continue
        matcher = the_plan.matcher(case)
        span = matcher.prepare(case.span)
        for needle in case.needles:
            if not matcher.contains(span, matcher.prepare(needle)):
                raise ChunkrecallError(
                    f"needle {trimmed(needle)!r} is not inside the span {trimmed(case.span)!r}; "
                    "every needle must lie inside its span (the passage that answers the "
                    "question): fix the needle or the span, or drop the span",
                    where=f"{the_plan.name}:{case.line}",
                )


def _check_candidates(the_plan: Plan) -> None:
    """A reranker picks k of the candidates: fewer candidates than k is a mistake, said now."""
    settings = the_plan.settings
    if the_plan.reranker is None and settings.candidates is None:
        return
    for case in (None, *the_plan.gold.cases):
        k = the_plan.k(case)
        if k > the_plan.candidates:
            where = settings.where("candidates")
            raise ChunkrecallError(
                f"candidates ({the_plan.candidates}"
                + (f", set at {where}" if where else ", the default")
                + f") is less than k ({k}): the reranker picks the top k from the candidates; "
                "raise candidates or lower k",
                where=f"{the_plan.name}:{case.line}"
                if case is not None and case.k
                else where or the_plan.name,
            )


def _pins(gold: GoldFile, *, name: str, rootdir: Path, plan: Plan) -> dict[str, frozenset[str]]:
    """The documents each ``doc:`` pattern of the gold file names, as corpus document ids."""
    pins: dict[str, frozenset[str]] = {}
    for case in gold.cases:
        pattern = case.doc
        if pattern is None or pattern in pins:
            continue
        if plan.documents is not None:
            ids = [doc.id for doc in plan.documents]
            found = frozenset(
                doc_id
                for doc_id in ids
                if doc_id == pattern or fnmatch.fnmatchcase(doc_id, pattern)
            )
        else:
            ids = [document_id(path, rootdir) for path in plan.files]
            named = {
                Path(found_path).resolve()
                for found_path in glob.glob(str(gold.path.parent / pattern), recursive=True)
            }
            found = frozenset(
                document_id(path, rootdir) for path in plan.files if path.resolve() in named
            )
        if not found:
            shown = ", ".join(ids[:5]) + (f", … ({len(ids)} in all)" if len(ids) > 5 else "")
            where = "relative to the gold file" if plan.documents is None else "a document id"
            raise ChunkrecallError(
                f"doc {pattern!r} matches no corpus document (a path or glob {where}); "
                f"the corpus has {shown}",
                where=f"{name}:{case.line}",
            )
        pins[pattern] = found
    return pins


def _component(
    kind: str,
    from_gold: str | None,
    from_code: Any,
    from_ini: str | None,
    default: str,
    settings: Settings,
    own: Settings,
) -> Component:
    args = dict(getattr(settings, f"{kind}_args") or {})
    if from_gold is None and from_code is not None:
        # Arguments travel with their chunker or retriever (as in Settings.over): the ini
        # file's were written for the ini's one, not for the object a hook supplies.
        args = dict(getattr(own, f"{kind}_args") or {})
        name = getattr(from_code, "__qualname__", None) or type(from_code).__name__
        return Component.of(f"{name} (from pytest_chunkrecall_{kind})", from_code, args)
    reference = from_gold or from_ini or default
    where = settings.where(kind)
    return Component.of(reference, resolve(reference, what=kind, where=where), args)


def _function(
    key: str, own: Settings, resolved: Component | None, settings: Settings
) -> Component | None:
    """The loader (or reference loader) a gold file names, else the one the ini file named
    (``resolved`` once for the run), else the one settings built in code name."""
    reference: str | None = getattr(own, key)
    if reference is None and resolved is not None:
        return resolved
    reference = reference or getattr(settings, key)
    if reference is None:
        return None
    what = key.replace("_", " ")
    return Component.of(reference, resolve(reference, what=what, where=settings.where(key)))


def evaluate(
    path: str | Path,
    *,
    rootdir: str | Path | None = None,
    settings: Settings | None = None,
    suites: SuiteCache | None = None,
    documents: Mapping[str, str] | None = None,
    chunker: Any = None,
    retriever: Any = None,
) -> list[CaseResult]:
    """Evaluate every case of the gold file at ``path`` (skipped cases excepted).

    For notebooks and scripts; pytest runs the same evaluation case by case.
    ``documents`` (``{id: text}``), ``chunker`` and ``retriever`` are what the
    ``pytest_chunkrecall_documents``, ``_chunker`` and ``_retriever`` hooks would
    return: objects in place of ``module:attr`` settings. The gold file's own keys win.
    """
    gold_path = Path(path).resolve()
    root = Path(rootdir).resolve() if rootdir else Path.cwd()
    name = document_id(gold_path, root)
    gold = load(gold_path, name=name)
    given = from_mapping(documents, where=f"{name} (documents)") if documents else None
    supplied = Supplied(chunker=chunker, retriever=retriever, documents=given)
    the_plan = plan(gold, name=name, rootdir=root, ini=settings, supplied=supplied)
    suite = the_plan.suite(suites or SuiteCache(root))
    return [the_plan.evaluate(suite, case) for case in gold.cases if case.skip is None]
