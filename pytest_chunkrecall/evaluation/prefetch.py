"""Questions asked before their cases run: in batches, and with several retriever calls in flight.

A case still takes exactly the result its own question got: the answers are
kept by question and k until every case that asked for them has taken them,
so verdicts do not depend on how the questions were sent.

The calls in flight run in daemon threads of their own, not in a
``ThreadPoolExecutor``, whose threads the interpreter waits for at exit: a
retriever call that never returns must not keep the process alive once the
run has ended (after a timeout, ``-x`` or Ctrl-C). Such a call is abandoned,
and :meth:`Prefetch.close` says how many there were.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from ..errors import USER_FAULTS, ChunkrecallError
from ..gold import Filter
from ..retrieval.adapters import BatchFunction, SearchFunction

# (question, k, repeat, filter): with chunkrecall_repeat above 1 each repeat is its own
# answer, and a question asked with another filter is another question
Key = tuple[str, int, int, Filter | None]
# What one call gave: (True, the results) or (False, the exception it raised).
Outcome = tuple[bool, Any]
POLL = 0.2  # seconds a case's thread waits for an answer before it looks for signals


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
        self._pool = _Callers(concurrency) if concurrency > 1 else None
        self._pending: dict[Key, Future[Outcome]] = {}
        self._takers: dict[Key, int] = {}  # how many claimed cases have yet to take each answer
        self._claimed: set[str] = set()

    def claimed(self, case: str) -> bool:
        """Whether the case ``case`` (a node id) has an answer asked for it."""
        return case in self._claimed

    def wants_more(self) -> bool:
        """Whether a whole batch (or call) more could be in flight."""
        return len(self._pending) <= self.window - self.unit

    def ask(self, claims: Iterable[tuple[str, Sequence[Key]]]) -> None:
        """Claim the answers for each ``(case, keys)``, asking the retriever for keys not asked
        yet: a batch holds questions of one k, one repeat and one filter."""
        new: dict[tuple[int, int, Filter | None], list[str]] = {}
        for case, keys in claims:
            if case in self._claimed:
                continue
            self._claimed.add(case)
            for key in keys:
                self._takers[key] = self._takers.get(key, 0) + 1
                if key not in self._pending:
                    self._pending[key] = Future()
                    new.setdefault(key[1:], []).append(key[0])
        for (k, repeat, where_filter), questions in new.items():
            for start in range(0, len(questions), self.unit):
                chunk = questions[start : start + self.unit]
                futures = [self._pending[(question, k, repeat, where_filter)] for question in chunk]
                if self._pool is None:
                    self._run(chunk, k, futures, where_filter)
                else:
                    self._pool.submit(self._run, chunk, k, futures, where_filter)

    def holds(self, key: Key) -> bool:
        """Whether an answer for ``key`` is asked for (and not yet taken by every case)."""
        return key in self._pending

    def take(self, key: Key) -> Outcome:
        """The answer for ``key``, waiting for it if it is still in flight.

        What the retriever raised that is no fault of its own (KeyboardInterrupt,
        pytest's outcomes) is raised here, in the case's thread, as it was.
        """
        outcome = _waited(self._pending[key])
        self._takers[key] -= 1
        if self._takers[key] <= 0:
            del self._pending[key], self._takers[key]
        ok, value = outcome
        if not ok and not isinstance(value, USER_FAULTS):
            raise value
        return outcome

    def close(self) -> int:
        """Drop the questions not yet sent; the number of calls still in flight, abandoned."""
        if self._pool is None:
            return 0
        return self._pool.close()

    def _run(
        self,
        questions: list[str],
        k: int,
        futures: list[Future[Outcome]],
        where_filter: Filter | None,
    ) -> None:
        # Every future gets its answer, whatever happens: a case waits on it.
        try:
            outcomes = self._answers(questions, k, where_filter)
        except BaseException as exc:  # SystemExit or the like, from the retriever's thread
            for future in futures:
                future.set_result((False, exc))
            if self._pool is None and not isinstance(exc, USER_FAULTS):
                raise  # asked in the case's own thread: Ctrl-C stops the run here and now
            return
        for future, outcome in zip(futures, outcomes, strict=True):
            future.set_result(outcome)

    def _answers(self, questions: list[str], k: int, where_filter: Filter | None) -> list[Outcome]:
        if self._batch is None or len(questions) == 1:
            return [self._one(question, k, where_filter) for question in questions]
        mapping = where_filter.mapping if where_filter is not None else None
        try:
            answers = self._batch(questions, k, mapping)
            answers = list(answers) if _listable(answers) else answers
        except ChunkrecallError as exc:
            return [(False, exc)] * len(questions)
        except USER_FAULTS:
            # Asked again question by question, so that each case reports its own error.
            return [self._one(question, k, where_filter) for question in questions]
        if not isinstance(answers, list) or len(answers) != len(questions):
            got = f"{len(answers)} result lists" if isinstance(answers, list) else repr(answers)
            error = ChunkrecallError(
                f"retriever {self.name}: search_batch returned {got} for {len(questions)} "
                "questions; it must return one result list per question, in the questions' order"
            )
            return [(False, error)] * len(questions)
        return [(True, answer) for answer in answers]

    def _one(self, question: str, k: int, where_filter: Filter | None) -> Outcome:
        mapping = where_filter.mapping if where_filter is not None else None
        try:
            return True, self._search(question, k, mapping)
        except USER_FAULTS as exc:
            return False, exc


class _Callers:
    """Daemon threads that make the retriever calls in flight, as many as ``concurrency``."""

    def __init__(self, count: int) -> None:
        self._count = count
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._running = 0
        self._closed = False

    def submit(self, call: Callable[..., None], *args: Any) -> None:
        """Make ``call(*args)`` in one of the threads, once one is free."""
        with self._lock:
            if self._closed:
                return
            if len(self._threads) < self._count:
                thread = threading.Thread(
                    target=self._work, name=f"chunkrecall-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
        self._jobs.put(lambda: call(*args))

    def close(self) -> int:
        """Drop the calls not started; how many are still running (their threads are left)."""
        with self._lock:
            self._closed = True
            running = self._running
        for _ in self._threads:
            self._jobs.put(None)  # an idle thread ends; a busy one ends after its call
        return running

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            with self._lock:
                if job is None or self._closed:
                    return
                self._running += 1
            try:
                job()
            finally:
                with self._lock:
                    self._running -= 1


def _waited(future: Future[Outcome]) -> Outcome:
    """The outcome of ``future``, waited for in slices of :data:`POLL` seconds.

    One wait without end could outlast Ctrl-C: a signal that arrives just before
    the case's thread blocks (a retriever call sending it, or a Ctrl-C at that
    instant) is noted by the handler but wakes nobody, and a call that never
    returns never ends the wait. Between two slices the thread runs Python again,
    and the noted KeyboardInterrupt is raised there.
    """
    while True:
        try:
            return future.result(timeout=POLL)
        except FutureTimeout:
            continue


def _listable(value: Any) -> bool:
    if value is None or isinstance(value, str | bytes | dict):
        return False
    try:
        iter(value)
    except TypeError:
        return False
    return True
