"""The collection tree: a gold file is a ``pytest.File``, each case a ``pytest.Item``."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..baseline.case_outcome import case_outcome, quarantined
from ..baseline.drift import span_documents
from ..baseline.saved import mark as baseline_mark
from ..chunking import sweepable
from ..corpus import check_roots, fingerprint, from_mapping
from ..errors import USER_FAULTS, ChunkrecallError, printable, raised, trimmed
from ..evaluation.gold_facts import GoldInfo
from ..evaluation.plan import Plan, plan
from ..evaluation.repeat import ranks_text
from ..evaluation.results import CaseResult
from ..evaluation.setup import Supplied
from ..evaluation.suite import Suite, SuiteCache
from ..gold import Case, load
from ..render.failure import explain
from ..retrieval.duplicates import RetrievalWarning
from ..run import sweep
from . import ahead
from ._compat import failure
from .options import OPTIONS

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

SUITES = pytest.StashKey[SuiteCache]()
SHOWN_ERRORS = pytest.StashKey["dict[str, str]"]()
SWEEP_PROBLEMS = pytest.StashKey["dict[str, list[str]]"]()  # why -> the gold files


class CaseFailed(Exception):
    """A case whose needles did not come back; carries its result for the failure message."""

    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.verdict)
        self.result = result


def plan_gold_file(config: pytest.Config, hook: Any, path: Path, name: str) -> Plan:
    """Read the gold file at ``path`` and resolve everything it needs; ``hook`` calls its conftests.

    Raises :class:`ChunkrecallError` naming the file and line, or the option, at fault.
    """
    gold = load(path, name=name)
    opts = config.stash[OPTIONS]
    the_plan = plan(
        gold,
        name=name,
        rootdir=config.rootpath,
        ini=opts.ini,
        loader=opts.loader,
        reference_loader=opts.reference_loader,
        supplied=_supplied(config, hook, path, name),
        k_override=opts.k_override,
        length=opts.length,
        depth=opts.depth,
        every_holder=opts.shows_every_holder,
        repeat=opts.repeat,
    )
    check_roots(the_plan.files, opts.corpus_roots, where=the_plan.settings.where("corpus") or name)
    return the_plan


def note_selection(items: Sequence[pytest.Item]) -> None:
    """Tell each gold file's plan how many of its cases the run selected (``-k``, ``--lf``,
    a shard): the corpus searches known to come (:attr:`Plan.known_searches`)."""
    chosen: dict[int, list[CaseItem]] = {}
    for item in items:
        if isinstance(item, CaseItem):
            chosen.setdefault(id(item.plan), []).append(item)
    for cases in chosen.values():
        narrowed = replace(cases[0].plan, selected=len(cases))
        for item in cases:
            item.plan = narrowed


def sweep_problem(config: pytest.Config, the_plan: Plan) -> str | None:
    """Why ``--chunkrecall-sweep`` cannot be applied to the gold file's chunker, or ``None``."""
    opts = config.stash[OPTIONS]
    if not opts.sweep:
        return None
    chunker = the_plan.chunker
    try:
        sweepable.targets(chunker.obj, sweep.chunker_setting(opts.sweep[0]), chunker=chunker.name)
    except ChunkrecallError as exc:
        return exc.message
    return sweep.stage_problem(the_plan, opts.sweep[0])


def sweep_usage_error(config: pytest.Config) -> pytest.UsageError | None:
    """The usage error for every gold file the sweep cannot be applied to, once per reason."""
    problems = config.stash.get(SWEEP_PROBLEMS, None)
    if not problems:
        return None
    spec = config.stash[OPTIONS].sweep_spec
    return pytest.UsageError(
        "\n".join(
            f"--chunkrecall-sweep {spec!r}: {', '.join(names)}: {why}"
            for why, names in problems.items()
        )
    )


def _supplied(config: pytest.Config, hook: Any, path: Path, name: str) -> Supplied:
    found = {}
    for kind in ("chunker", "retriever", "documents"):
        hook_name = f"pytest_chunkrecall_{kind}"
        try:
            found[kind] = getattr(hook, hook_name)(config=config, gold_path=path)
        except USER_FAULTS as exc:
            raise ChunkrecallError(f"{hook_name} raised {raised(exc)}", where=name) from None
    documents = found["documents"]
    return Supplied(
        chunker=found["chunker"],
        retriever=found["retriever"],
        documents=from_mapping(documents, where=f"{name} (pytest_chunkrecall_documents)")
        if documents is not None
        else None,
    )


class GoldFile(pytest.File):
    """A gold YAML file; collects one :class:`CaseItem` per case."""

    def collect(self) -> Iterator[CaseItem]:
        if printable(self.nodeid) != self.nodeid:
            # its cases' node ids would carry the characters into every summary, Markdown
            # page and CI annotation
            raise self.CollectError(
                f"chunkrecall: {printable(self.nodeid)}: the gold file's path holds control "
                "characters; rename the file"
            )
        try:
            the_plan = plan_gold_file(self.config, self.ihook, self.path, self.nodeid)
        except ChunkrecallError as exc:
            raise self.CollectError(f"chunkrecall: {exc}") from None
        problem = sweep_problem(self.config, the_plan)
        if problem is not None:
            if hasattr(self.config, "workerinput"):
                # an xdist worker cannot stop the run with a usage error; a collection error does
                spec = self.config.stash[OPTIONS].sweep_spec
                raise self.CollectError(
                    f"chunkrecall: --chunkrecall-sweep {spec!r}: {self.nodeid}: {problem}"
                )
            self.config.stash.setdefault(SWEEP_PROBLEMS, {}).setdefault(problem, []).append(
                self.nodeid
            )
            return  # the run stops before any test, at the end of collection
        for case in the_plan.gold.cases:
            item = CaseItem.from_parent(self, name=case.id, case=case, plan=the_plan)
            if case.xfail is not None:
                item.add_marker(pytest.mark.xfail(reason=case.xfail))
            if case.skip is not None:
                # skipif, not skip: pytest drops the line of a test skipped by a 'skip'
                # mark from its SKIPPED line, and the case's line is where to look
                item.add_marker(pytest.mark.skipif(True, reason=case.skip))
            for mark in case.marks:
                item.add_marker(self._mark(mark, case.line))
            yield item

    def _mark(self, name: str, line: int) -> pytest.MarkDecorator:
        """``pytest.mark.<name>``; a complaint about an unregistered name points at the case.

        pytest attributes its warning (or, with --strict-markers, its error) to
        the line that looked the mark up, which is here, not in the gold file.
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                decorator: pytest.MarkDecorator = getattr(pytest.mark, name)
            except pytest.fail.Exception as exc:
                raise self.CollectError(
                    f"chunkrecall: {self.nodeid}:{line}: mark {exc.msg}; register it "
                    "in the 'markers' ini option"
                ) from None
        for warning in caught:
            warnings.warn_explicit(warning.message, warning.category, str(self.path), line)
        return decorator


class CaseItem(pytest.Item):
    """One gold case: passes when every needle is whole in one of the top-k chunks."""

    def __init__(self, *, case: Case, plan: Plan, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.plan = plan
        self.result: CaseResult | None = None
        self.suite: Suite | None = None
        self.suite_error: ChunkrecallError | None = None
        self.sweep: list[dict[str, Any]] | None = None

    def runtest(self) -> None:
        suites = self.config.stash[SUITES]
        try:
            self.suite = self.plan.suite(suites)
        except ChunkrecallError as exc:
            self.suite_error = exc
            raise
        self._ask_ahead(self.suite)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RetrievalWarning)
            result = self.plan.evaluate(self.suite, self.case)
        for warning in caught:
            # what the retriever's answer to this case's question needed is said at the case
            at_case = issubclass(warning.category, RetrievalWarning)
            warnings.warn_explicit(
                warning.message,
                warning.category,
                str(self.path) if at_case else warning.filename,
                self.case.line if at_case else warning.lineno,
            )
        setup = self.config.stash[OPTIONS].baseline
        entry = setup.loaded.get(result.gold_file, result.id) if setup.loaded else None
        if entry is not None:
            measured = result  # the result as evaluated, for the documents its span lies in
            marked = baseline_mark(
                entry, result, document_changed=lambda: self._document_changed(measured)
            )
            result = replace(result, baseline=marked)
        self.result = result
        settings = self.config.stash[OPTIONS].sweep
        if settings:
            self.sweep = sweep.contributions(
                self.plan, self.case, self.suite, result, settings, suites
            )
        self.user_properties += [
            ("verdict", result.verdict),
            ("rank", "" if result.rank is None else result.rank),
            ("span_split", result.span_split),
            ("context", "" if result.context is None else result.context),
            (
                "context_to_answer",
                "" if result.context_to_answer is None else result.context_to_answer,
            ),
        ]
        if result.reranker is not None:
            self.user_properties.append(
                ("candidate_rank", "" if result.candidate_rank is None else result.candidate_rank)
            )
        if result.ranks_seen is not None:
            self.user_properties += [
                ("unstable", bool(result.unstable)),
                ("ranks_seen", ranks_text(result.ranks_seen)),
            ]
        decided = case_outcome(
            result,
            entry,
            xfail=self.case.xfail,
            gate=setup.gates.gate,
            updating=setup.update,
            quarantined=quarantined(
                result.unstable, result.ranks_seen, self.config.stash[OPTIONS].unstable
            ),
        )
        if decided.outcome in ("passed", "xpassed"):
            return  # pytest makes an xpass of a pass under the YAML xfail mark
        if decided.reason is not None:
            pytest.xfail(decided.reason)
        raise CaseFailed(result)  # a failure, or an expected one under the YAML xfail mark

    def _document_changed(self, result: CaseResult) -> bool:
        """Whether the missed span lies in a document whose text the baseline knew otherwise."""
        setup = self.config.stash[OPTIONS].baseline
        known = setup.loaded.documents.get(result.gold_file) if setup.loaded else None
        if not known or self.suite is None:
            return False
        docs = span_documents(result)
        return any(
            doc.id in docs and doc.id in known and known[doc.id] != fingerprint(doc.text)
            for doc in self.suite.documents
        )

    def _ask_ahead(self, suite: Suite) -> None:
        """Ask the retriever, in batches or several calls at once, for the next cases' questions.

        Only this gold file's cases that this process will run next are asked
        for (see :mod:`.ahead`); each case then takes its own question's answer.
        """
        opts = self.config.stash[OPTIONS]
        prefetch = suite.ahead(batch_size=opts.batch_size, concurrency=opts.concurrency)
        if prefetch is None or (prefetch.claimed(self.nodeid) and not prefetch.wants_more()):
            return
        claims = [(self.nodeid, self.plan.keys(self.case, suite))]
        for other in ahead.upcoming(self, 4 * prefetch.window):
            if len(claims) * self.plan.repeat >= prefetch.window:
                break
            if (
                isinstance(other, CaseItem)
                and other.plan is self.plan
                and other.case.skip is None
                and not prefetch.claimed(other.nodeid)
            ):
                claims.append((other.nodeid, self.plan.keys(other.case, suite)))
        prefetch.ask(claims)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed):
            return self._failure(excinfo.value.result)
        if isinstance(excinfo.value, pytest.xfail.Exception) and self.result is not None:
            # An expected failure that runtest declared (a known miss, a quarantined case)
            # carries its miss explained, as a failure does. pytest would otherwise format
            # the traceback of its own raising, parsing the source of every module in it,
            # for each such case.
            result = self.result
            if result.hit:
                return self._failure(f"chunkrecall: {excinfo.value.msg}")
            return self._failure(result)
        if isinstance(excinfo.value, ChunkrecallError):
            return self._failure(self._once(excinfo.value))
        return super().repr_failure(excinfo)

    def _failure(self, what: CaseResult | str) -> str | TerminalRepr:
        # The full explanation for the failures section, and its first line as
        # the crash message: the short summary, JUnit's message and the CI log
        # (where pytest does not trim the summary) get one line, not all of it.
        # A miss is explained from its result each time it is shown: pytest keeps
        # every failure until the run ends, and a result weighs less than its text.
        return failure(_explained, what, path=str(self.path), line=self.case.line)  # type: ignore[no-any-return]

    def _once(self, error: ChunkrecallError) -> str:
        # A configuration shared by a whole gold file fails every case the same
        # way: say it in full once, then point back to it. The suite's error is
        # one object for every case; a retriever that raises for every question
        # gives a new error each time, alike but for its first line (the
        # question), so the rest of its text is what repeats.
        shown = self.config.stash.setdefault(SHOWN_ERRORS, {})
        head, _, rest = str(error).partition("\n")
        if error is self.suite_error:
            first = shown.setdefault(str(error), self.nodeid)
            if first != self.nodeid:
                return (
                    f"chunkrecall: not evaluated: the error reported for {first} (above):\n  {head}"
                )
        elif rest:
            first = shown.setdefault(rest, self.nodeid)
            if first != self.nodeid:
                return f"chunkrecall: {head}\n  (the same traceback as for {first}, above)"
        return f"chunkrecall: {error}"

    def gold_info(self) -> GoldInfo | None:
        """The facts of this case's gold file for the summary, once its suite was built (or failed)."""
        if self.suite_error is not None:
            return {"error": str(self.suite_error)}
        if self.suite is None:
            return None
        try:
            return self.plan.facts(self.suite)
        except ChunkrecallError as exc:  # the user's length function failed on a chunk
            return {"error": str(exc)}

    def reportinfo(self) -> tuple[Path, int, str]:
        # the failure's heading: gold text in it must not drive the terminal
        return (
            self.path,
            self.case.line - 1,
            printable(f"{self.case.id}: {trimmed(self.case.question)}"),
        )


def _explained(what: CaseResult | str) -> str:
    """The failure message of a case's result (or a message already written)."""
    text = explain(what) if isinstance(what, CaseResult) else what
    # Text that is not valid Unicode (a document named with undecodable bytes) is
    # shown escaped: no terminal, xdist channel or JUnit file can carry it as it is.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
