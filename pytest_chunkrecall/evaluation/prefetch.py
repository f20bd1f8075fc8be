"""Questions asked before their cases run: in batches, and with several retriever calls in flight.

A case still takes exactly the result its own question got: the answers are
kept by question and k until every case that asked for them has taken them,
so verdicts do not depend on how the questions were sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..errors import USER_FAULTS, ChunkrecallError
from ..retrieval.adapters import BatchFunction, SearchFunction

Key = tuple[str, int]  # (question, k)
# What one call gave: (True, the results) or (False, the exception it raised).
Outcome = tuple[bool, Any]


class Prefetch:
    """The retriever's answers to the questions of cases that will run soon, kept until taken."""

    def __init__(
        self,
        search: SearchFunction,
        batch: BatchFunction | None,
        *,
        name: str,
        batch_size: int,
        concurrency: int,
    ) -> None:
        self._search = search
        self._batch = batch
        self.name = name
        self.unit = batch_size if batch is not None else 1
        # How many questions are asked ahead: a batch (or one question) for each call in flight.
        self.window = self.unit * concurrency
        self._pool = (
            ThreadPoolExecutor(concurrency, thread_name_prefix="chunkrecall")
            if concurrency > 1
            else None
        )
        self._pending: dict[Key, Future[Outcome]] = {}
        self._takers: dict[Key, int] = {}  # how many claimed cases have yet to take each answer
        self._claimed: set[str] = set()

    def claimed(self, case: str) -> bool:
        """Whether the case ``case`` (a node id) has an answer asked for it."""
        return case in self._claimed

    def wants_more(self) -> bool:
        """Whether a whole batch (or call) more could be in flight."""
        return len(self._pending) <= self.window - self.unit

    def ask(self, claims: Iterable[tuple[str, Key]]) -> None:
        """Claim an answer for each ``(case, key)``, asking the retriever for keys not asked yet."""
        new: dict[int, list[str]] = {}
        for case, key in claims:
            if case in self._claimed:
                continue
            self._claimed.add(case)
            self._takers[key] = self._takers.get(key, 0) + 1
            if key not in self._pending:
                self._pending[key] = Future()
                new.setdefault(key[1], []).append(key[0])
        for k, questions in new.items():
            for start in range(0, len(questions), self.unit):
                chunk = questions[start : start + self.unit]
                futures = [self._pending[(question, k)] for question in chunk]
                if self._pool is None:
                    self._run(chunk, k, futures)
                else:
                    self._pool.submit(self._run, chunk, k, futures)

    def holds(self, key: Key) -> bool:
        """Whether an answer for ``key`` is asked for (and not yet taken by every case)."""
        return key in self._pending

    def take(self, key: Key) -> Outcome:
        """The answer for ``key``, waiting for it if it is still in flight."""
        outcome = self._pending[key].result()
        self._takers[key] -= 1
        if self._takers[key] <= 0:
            del self._pending[key], self._takers[key]
        return outcome

    def close(self) -> None:
        """Drop the questions not yet sent; calls in flight finish on their own."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, questions: list[str], k: int, futures: list[Future[Outcome]]) -> None:
        # Every future gets its answer, whatever happens: a case waits on it.
        try:
            outcomes = self._answers(questions, k)
        except BaseException as exc:  # SystemExit or the like, from the retriever's thread
            outcomes = [(False, exc)] * len(questions)
        for future, outcome in zip(futures, outcomes, strict=True):
            future.set_result(outcome)

    def _answers(self, questions: list[str], k: int) -> list[Outcome]:
        if self._batch is None or len(questions) == 1:
            return [self._one(question, k) for question in questions]
        try:
            answers = self._batch(questions, k)
            answers = list(answers) if _listable(answers) else answers
        except USER_FAULTS:
            # Asked again question by question, so that each case reports its own error.
            return [self._one(question, k) for question in questions]
        if not isinstance(answers, list) or len(answers) != len(questions):
            got = f"{len(answers)} result lists" if isinstance(answers, list) else repr(answers)
            error = ChunkrecallError(
                f"retriever {self.name}: search_batch returned {got} for {len(questions)} "
                "questions; it must return one result list per question, in the questions' order"
            )
            return [(False, error)] * len(questions)
        return [(True, answer) for answer in answers]

    def _one(self, question: str, k: int) -> Outcome:
        try:
            return True, self._search(question, k)
        except USER_FAULTS as exc:
            return False, exc


def _listable(value: Any) -> bool:
    if value is None or isinstance(value, str | bytes | dict):
        return False
    try:
        iter(value)
    except TypeError:
        return False
    return True
