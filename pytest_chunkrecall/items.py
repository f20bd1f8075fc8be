"""The collection tree: a gold file is a ``pytest.File``, each case a ``pytest.Item``."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import report
from .corpus import from_mapping
from .engine import Engine
from .errors import ChunkrecallError, describe, user_traceback
from .evaluation import Plan, Supplied, plan
from .gold import Case, load
from .results import CaseResult
from .settings import Settings

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

ENGINE = pytest.StashKey[Engine]()
INI = pytest.StashKey[Settings]()
LOADER = pytest.StashKey["str | None"]()
K_OVERRIDE = pytest.StashKey["int | None"]()
SHOWN_ERRORS = pytest.StashKey["dict[str, str]"]()


class CaseFailed(Exception):
    """A case whose needles did not come back; carries its result for the failure message."""

    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.verdict)
        self.result = result


class GoldFile(pytest.File):
    """A gold YAML file; collects one :class:`CaseItem` per case."""

    def collect(self) -> Iterator[CaseItem]:
        config = self.config
        try:
            gold = load(self.path, name=self.nodeid)
            the_plan = plan(
                gold,
                name=self.nodeid,
                rootdir=config.rootpath,
                ini=config.stash[INI],
                loader=config.stash[LOADER],
                supplied=self._supplied(),
                k_override=config.stash[K_OVERRIDE],
            )
        except ChunkrecallError as exc:
            raise self.CollectError(f"chunkrecall: {exc}") from None
        for case in gold.cases:
            item = CaseItem.from_parent(self, name=case.id, case=case, plan=the_plan)
            if case.xfail is not None:
                item.add_marker(pytest.mark.xfail(reason=case.xfail))
            if case.skip is not None:
                item.add_marker(pytest.mark.skip(reason=case.skip))
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

    def _supplied(self) -> Supplied:
        where = f"{self.nodeid} (pytest_chunkrecall_documents)"
        documents = self._ask("pytest_chunkrecall_documents")
        return Supplied(
            chunker=self._ask("pytest_chunkrecall_chunker"),
            retriever=self._ask("pytest_chunkrecall_retriever"),
            documents=from_mapping(documents, where=where) if documents is not None else None,
        )

    def _ask(self, name: str) -> Any:
        """Call a conftest hook; its failure is the user's, shown with the user's frames only."""
        try:
            return getattr(self.ihook, name)(config=self.config, gold_path=self.path)
        except Exception as exc:
            raise ChunkrecallError(
                f"{name} raised {describe(exc)}:\n{user_traceback(exc)}", where=self.nodeid
            ) from None


class CaseItem(pytest.Item):
    """One gold case: passes when every needle is whole in one of the top-k chunks."""

    def __init__(self, *, case: Case, plan: Plan, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.plan = plan
        self.result: CaseResult | None = None
        self.suite_error: ChunkrecallError | None = None

    def runtest(self) -> None:
        engine = self.config.stash[ENGINE]
        try:
            suite = self.plan.suite(engine)
        except ChunkrecallError as exc:
            self.suite_error = exc
            raise
        case = self.case
        self.result = suite.evaluate(
            case, gold_file=self.plan.name, k=self.plan.k(case), matcher=self.plan.matcher(case)
        )
        self.user_properties += [
            ("verdict", self.result.verdict),
            ("rank", self.result.rank),
            ("span_split", self.result.span_split),
        ]
        if not self.result.hit:
            raise CaseFailed(self.result)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed):
            return report.explain(excinfo.value.result)
        if isinstance(excinfo.value, ChunkrecallError):
            return self._once(excinfo.value)
        return super().repr_failure(excinfo)

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

    def gold_info(self) -> dict[str, Any]:
        """The facts of this case's gold file for the summary: corpus, chunker, retriever."""
        if self.suite_error is not None:
            return {"error": str(self.suite_error)}
        return self.plan.facts(self.plan.suite(self.config.stash[ENGINE]))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.line - 1, f"{self.case.id}: {self.case.question}"
