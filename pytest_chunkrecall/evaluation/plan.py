"""From a gold file and its settings to a plan, and from a plan to results — without pytest."""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..chunking.shapes import check_arguments
from ..config.resolve import resolve
from ..config.settings import (
    DEFAULT_CANDIDATES,
    DEFAULT_DEPTH,
    DEFAULT_FUZZY_THRESHOLD,
    DEFAULT_MATCH,
    DEFAULT_RETRIEVER,
    Settings,
)
from ..config.table import candidates_problem, resolved_k
from ..corpus import Document, document_id, fingerprint, from_mapping
from ..errors import ChunkrecallError, trimmed
from ..gold import Case, GoldFile, load
from ..retrieval.shapes import Retrieved
from ..text.matcher import Matcher
from .budget import past_budget, within_budget
from .gold_facts import GoldFacts
from .prefetch import Key
from .reference import Reference
from .repeat import combined
from .results import CaseResult
from .setup import Supplied, check_component, component, resolve_setup
from .suite import Component, Suite, SuiteCache
from .verdict import deepen, judge
from .verdicts import kind_of

COMPONENT_ROLES = ("loader", "reference_loader", "chunker", "retriever", "reranker")
"""The settings that name a function a plan holds resolved, each its own field."""


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
    budget_override: int | None = None  # a sweep's budget=, over the cases' own
    # How many of its cases the run evaluates, once it has chosen them (None: every one).
    selected: int | None = None

    @property
    def measure(self) -> Callable[[str], int]:
        """How spans and chunks are measured: the user's length function, or characters."""
        return self.length.obj if self.length else len

    @property
    def known_searches(self) -> int:
        """How many times the cases evaluated (:attr:`selected`, else every one) will search
        the corpus for certain: once each when every hit lists every holder of its span,
        which only the corpus knows."""
        if not self.every_holder:
            return 0
        return self.selected if self.selected is not None else len(self.gold.cases)

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
        return [(case.question, asked, repeat, case.filter) for repeat in range(self.repeat)]

    def _evaluate(self, suite: Suite, case: Case, repeat: int) -> CaseResult:
        k = self.k(case)
        second = suite.reranker(self.reranker, where=self._reranker_where())
        asked = self.asked(case, suite)
        top = candidates = self._search(suite, case, asked, repeat)
        if second is not None:
            top = second.rerank(case.question, candidates, k)
        first_stage = candidates if second is not None else None
        results = [
            self._judged(suite, variant, top, first_stage, repeat) for variant in case.variants()
        ]
        if not case.alternatives:
            return results[0]
        return best_alternative(results)

    def _judged(
        self,
        suite: Suite,
        case: Case,
        top: list[Retrieved],
        candidates: list[Retrieved] | None,
        repeat: int,
    ) -> CaseResult:
        """The verdict on ``case`` (or one alternative of it) given what came back."""
        k, asked = self.k(case), self.asked(case, suite)
        docs = self.pins.get(case.doc) if case.doc is not None else None
        forbidden = frozenset().union(*(self.pins[pattern] for pattern in case.must_not_doc))
        finder = suite.finder(self.matcher(case), known_searches=self.known_searches)
        reranker = suite.reranker(self.reranker, where=self._reranker_where())
        budget = self.budget(case)
        read = within_budget(top, budget, self.measure)
        result = judge(
            case,
            read,
            finder,
            gold_file=self.name,
            k=k,
            docs=docs,
            length=self.measure,
            unit=self.unit,
            candidates=candidates,
            reranker=reranker.name if reranker is not None and candidates is not None else None,
            reference=self.reference(suite),
            every_holder=self.every_holder,
            must_not_docs=forbidden,
        )
        if budget is not None:
            result = replace(result, budget=budget)
            if result.verdict == "ranked_out" and len(read) < len(top):
                result = past_budget(result, case, top, finder, budget=budget, docs=docs)
        if result.verdict != "ranked_out" or self.depth <= asked:
            return result
        # How far down the holding chunk is decides what to do: raise k, add a
        # reranker, or fix the question. One more call, for ranked_out cases only.
        try:
            deeper = self._search(suite, case, self.depth, repeat)
        except ChunkrecallError as exc:
            return replace(result, depth=self.depth, depth_error=exc.message.splitlines()[0])
        return deepen(result, case, deeper, finder, depth=self.depth, docs=docs)

    def _search(self, suite: Suite, case: Case, k: int, repeat: int) -> list[Retrieved]:
        """The retriever's top ``k`` for ``case``, asked with its filter; a retriever that
        cannot take the filter is named with this gold file."""
        try:
            return suite.search(case.question, k, repeat=repeat, where_filter=case.filter)
        except ChunkrecallError as exc:
            if exc.where is not None or case.filter is None:
                raise
            raise ChunkrecallError(exc.message, where=self.name) from None

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
        return resolved_k(self.k_override, own, self.settings.k)

    def budget(self, case: Case | None = None) -> int | None:
        """How much context a case may read (see :mod:`.budget`): a sweep's budget, else the
        case's own, else the gold file's (or the ini file's); ``None``: the whole top k."""
        for budget in (self.budget_override, case.budget if case else None, self.settings.budget):
            if budget is not None:
                return budget
        return None

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
        return case_matcher(case, self.settings)

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

    def at(self, point: Mapping[str, Any]) -> Plan:
        """This plan at a sweep's ``point``: each setup setting it names in place of this
        plan's (``k`` over ``--chunkrecall-k`` too).

        A function named anew is imported, with the point's arguments for it or none;
        arguments alone go to the configured function. Raises :class:`ChunkrecallError`
        saying why the point cannot be evaluated.
        """
        changed = replace(self, settings=replace(self.settings, **point))
        if "k" in point:
            changed = replace(changed, k_override=point["k"])
        if "budget" in point:
            changed = replace(changed, budget_override=point["budget"])
        components: dict[str, Any] = {
            role: self._component_at(role, point)
            for role in COMPONENT_ROLES
            if role in point or f"{role}_args" in point
        }
        changed = replace(changed, **components)
        for role in ("chunker", "retriever"):
            component: Component | None = components.get(role)
            if component is None:
                continue
            problem = check_arguments(component.obj, component.args, role=role)
            if problem:
                raise ChunkrecallError(f"{role} {component.name}: {problem}")
        if changed.reranker is not None:
            problem = candidates_problem(changed.candidates, changed.k())
            if problem is not None:
                raise ChunkrecallError(f"candidates={changed.candidates} {problem}")
        return changed

    def _component_at(self, role: str, point: Mapping[str, Any]) -> Component:
        current: Component | None = getattr(self, role)
        named: str | None = point.get(role)
        args: dict[str, Any] | None = point.get(f"{role}_args")
        what = role.replace("_", " ")
        if named is None:
            if current is None:
                raise ChunkrecallError(
                    f"{role}_args= gives arguments to the {what}, and this gold file has none "
                    f"(set {role}:, or sweep {role}= too)"
                )
            return Component.of(current.name, current.obj, current.args if args is None else args)
        obj = resolve(named, what=what, where="--chunkrecall-sweep")
        return Component.of(named, obj, args or {})

    def in_effect(self, name: str) -> Any:
        """The value of the setup setting ``name`` this plan evaluates with, as a sweep's
        configured row shows it (``None``: none is set)."""
        if name in COMPONENT_ROLES:
            component: Component | None = getattr(self, name)
            return component.name if component is not None else None
        role = name.removesuffix("_args")
        if role in COMPONENT_ROLES:
            component = getattr(self, role)
            return dict(component.args) if component is not None else None
        if name == "k":
            return self.k()
        if name == "candidates":
            return self.candidates
        if name == "match":
            return self.settings.match or DEFAULT_MATCH
        return getattr(self.settings, name)

    def facts(self, suite: Suite) -> GoldFacts:
        """What the summary and the JSON report say about this gold file's configuration."""
        facts = self._facts(suite)
        second = suite.reranker(self.reranker, where=self._reranker_where())
        if second is not None:
            facts["reranker"] = second.name
            facts["reranker_args"] = self.reranker.args if self.reranker is not None else {}
            facts["candidates"] = self.candidates
        if self.loader is not None:
            facts["loader"] = self.loader.name
        if self.reference_loader is not None:
            facts["reference_loader"] = self.reference_loader.name
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


def case_matcher(case: Case, settings: Settings) -> Matcher:
    """How a case's needles and span are matched: its own mode and threshold, else the
    gold file's (or the ini file's), else the defaults."""
    threshold = case.fuzzy_threshold
    if threshold is None:
        threshold = settings.fuzzy_threshold
    return Matcher(
        case.match or settings.match or DEFAULT_MATCH,
        DEFAULT_FUZZY_THRESHOLD if threshold is None else threshold,
    )


def plan(
    gold: GoldFile,
    *,
    name: str,
    rootdir: Path,
    ini: Settings | None = None,
    loader: Component | None = None,
    reference_loader: Component | None = None,
    supplied: Supplied | None = None,
    roots: Sequence[Path] | None = None,
    k_override: int | None = None,
    length: Component | None = None,
    depth: int = DEFAULT_DEPTH,
    every_holder: bool = True,
    repeat: int = 1,
) -> Plan:
    """Combine the gold file's settings with the ini file's and what code supplies.

    The gold file wins, then code supplied by hooks, then the ini file, then the
    built-in defaults (:func:`.setup.resolve_setup` resolves the corpus, inside ``roots``
    when given, the loader and the chunker). Raises :class:`ChunkrecallError` naming the
    setting at fault.
    ``every_holder``: a hit lists every chunk of the corpus that holds its span.
    """
    ini = ini or Settings()
    supplied = supplied or Supplied()
    setup = resolve_setup(
        gold.settings,
        name=name,
        rootdir=rootdir,
        ini=ini,
        roots=roots,
        loader=loader,
        reference_loader=reference_loader,
        supplied=supplied,
    )
    settings = setup.settings
    retriever = component(
        "retriever",
        gold.settings.retriever,
        supplied.retriever,
        ini.retriever,
        DEFAULT_RETRIEVER,
        settings,
        gold.settings,
    )
    check_component(retriever, "retriever", settings, name)
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
        setup.files,
        setup.documents,
        setup.loader,
        setup.chunker,
        retriever,
        settings,
        k_override,
        length,
        depth,
        reranker=reranker,
        reference_loader=setup.reference_loader,
        every_holder=every_holder,
        repeat=repeat,
    )
    _check_spans(the_plan)
    _check_candidates(the_plan)
    return replace(the_plan, pins=_pins(gold, name=name, rootdir=rootdir, plan=the_plan))


def best_alternative(results: Sequence[CaseResult]) -> CaseResult:
    """The result of a case with ``any_of``, from each alternative's: the first hit, else the
    best verdict among them (reranked_out, ranked_out, split, unparsed, absent: by severity),
    the first of equals; it records which alternative decided, and every one's verdict."""
    chosen = min(range(len(results)), key=lambda index: kind_of(results[index].verdict).severity)
    return replace(
        results[chosen],
        alternative=chosen,
        alternatives=[result.verdict for result in results],
    )


def _check_spans(the_plan: Plan) -> None:
    """Every needle of a case with a text span must lie inside it: the span anchors the hit."""
    for case in (variant for each in the_plan.gold.cases for variant in each.variants()):
        problem = must_not_problem(case, the_plan.matcher(case))
        if problem is not None:
            raise ChunkrecallError(problem, where=f"{the_plan.name}:{case.line}")
        if not isinstance(case.span, str):
            continue
        problem = span_problem(case, the_plan.matcher(case))
        if problem is not None:
            raise ChunkrecallError(problem, where=f"{the_plan.name}:{case.line}")


def span_problem(case: Case, matcher: Matcher) -> str | None:
    """Why a case's text span does not anchor its needles, or ``None`` when it does."""
    if not isinstance(case.span, str):
        return None
    span = matcher.prepare(case.span)
    for needle in case.needles:
        if not matcher.contains(span, matcher.prepare(needle)):
            return (
                f"needle {trimmed(needle)!r} is not inside the span {trimmed(case.span)!r}; "
                "every needle must lie inside its span (the passage that answers the "
                "question): fix the needle or the span, or drop the span"
            )
    return None


def must_not_problem(case: Case, matcher: Matcher) -> str | None:
    """Why a case's ``must_not`` contradicts its needles (a hit would always leak), or
    ``None`` when it does not."""
    for text in case.must_not:
        forbidden = matcher.prepare(text)
        for needle in case.needles:
            prepared = matcher.prepare(needle)
            if matcher.contains(forbidden, prepared) or matcher.contains(prepared, forbidden):
                return (
                    f"must_not {trimmed(text)!r} overlaps the needle {trimmed(needle)!r}: the "
                    "chunk that answers would always leak it; fix the must_not text or the needle"
                )
    return None


def _check_candidates(the_plan: Plan) -> None:
    """A reranker picks k of the candidates: fewer candidates than k is a mistake, said now."""
    settings = the_plan.settings
    if the_plan.reranker is None and settings.candidates is None:
        return
    for case in (None, *the_plan.gold.cases):
        where = settings.where("candidates")
        problem = candidates_problem(the_plan.candidates, the_plan.k(case))
        if problem is not None:
            raise ChunkrecallError(
                f"candidates ({the_plan.candidates}"
                + (f", set at {where}" if where else ", the default")
                + f") {problem}",
                where=f"{the_plan.name}:{case.line}"
                if case is not None and case.k
                else where or the_plan.name,
            )


def _pins(gold: GoldFile, *, name: str, rootdir: Path, plan: Plan) -> dict[str, frozenset[str]]:
    """The documents each ``doc:`` pattern of the gold file names, as corpus document ids."""
    pins: dict[str, frozenset[str]] = {}
    named = [(pattern, case) for case in gold.cases for pattern in (case.doc, *case.must_not_doc)]
    for pattern, case in named:
        if pattern is None or pattern in pins:
            continue
        pins[pattern] = pinned(
            pattern,
            gold_dir=gold.path.parent,
            rootdir=rootdir,
            files=plan.files,
            documents=plan.documents,
            where=f"{name}:{case.line}",
        )
    return pins


def pinned(
    pattern: str,
    *,
    gold_dir: Path,
    rootdir: Path,
    files: tuple[Path, ...],
    documents: tuple[Document, ...] | None,
    where: str,
) -> frozenset[str]:
    """The corpus documents a ``doc:`` pattern names: a path or glob relative to the gold
    file's folder ``gold_dir``, or a document id when a hook supplied ``documents``."""
    if documents is not None:
        ids = [doc.id for doc in documents]
        found = frozenset(
            doc_id for doc_id in ids if doc_id == pattern or fnmatch.fnmatchcase(doc_id, pattern)
        )
    else:
        ids = [document_id(path, rootdir) for path in files]
        named = {
            Path(found_path).resolve()
            for found_path in glob.glob(str(gold_dir / pattern), recursive=True)
        }
        found = frozenset(document_id(path, rootdir) for path in files if path.resolve() in named)
    if not found:
        shown = ", ".join(ids[:5]) + (f", … ({len(ids)} in all)" if len(ids) > 5 else "")
        kind = "relative to the gold file" if documents is None else "a document id"
        meant = None if documents is not None else _from_rootdir(pattern, gold_dir, rootdir, files)
        raise ChunkrecallError(
            f"doc {pattern!r} matches no corpus document (a path or glob {kind}); "
            + (f"did you mean doc: {meant}? " if meant else "")
            + f"the corpus has {shown}",
            where=where,
        )
    return found


def _from_rootdir(
    pattern: str, gold_dir: Path, rootdir: Path, files: tuple[Path, ...]
) -> str | None:
    """``pattern`` rewritten relative to the gold file's folder, when it was written relative
    to the rootdir (``site/a.html`` for ``../site/a.html``) and names corpus files that way."""
    corpus = {path.resolve() for path in files}
    named = glob.glob(str(rootdir / pattern), recursive=True)
    if not any(Path(found).resolve() in corpus for found in named):
        return None
    return Path(os.path.relpath(rootdir / pattern, gold_dir)).as_posix()


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
