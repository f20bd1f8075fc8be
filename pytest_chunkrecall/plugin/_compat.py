"""The private pytest classes a case's failure is built from, and what to do without them.

pytest has no public way to give a failure both a full explanation (for the
FAILURES section) and a one-line crash message (for the short summary, JUnit's
``message=`` and ``--tb=line``): a ``repr_failure`` that returns a string gets
that whole string everywhere. ``ReprExceptionInfo`` with a ``ReprFileLocation``
does it, and pytest-xdist carries that shape between processes as it is; but
it lives in ``_pytest._code.code``, which may move. Should it, failures fall
back to the plain string: the full explanation everywhere, still correct.

pytest keeps every report, and so every failure's representation, until the
run ends. A case's explanation is made from its result whenever it is shown
(see :class:`Failure`), so that a run of many misses keeps each miss's result,
not its text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

try:
    from _pytest._code import code as _code
except ImportError:  # pragma: no cover - a pytest that moved its private classes
    _code = None  # type: ignore[assignment]

_NEEDED = ("ReprExceptionInfo", "ReprFileLocation", "ReprTracebackNative")
T = TypeVar("T")


def failure(explain: Callable[[T], str], subject: T, *, path: str, line: int) -> Any:
    """What ``repr_failure`` returns: the text ``explain(subject)`` in full, its first line
    as the crash message; the text is made each time it is shown, never kept."""
    if _code is None or not all(hasattr(_code, name) for name in _NEEDED):
        return explain(subject)
    return Failure(explain, subject, path=path, line=line)


def _headline(text: str) -> str:
    return text.partition("\n")[0].removesuffix(":")


if _code is not None and all(hasattr(_code, name) for name in _NEEDED):

    class Failure(_code.ReprExceptionInfo):
        """A ``ReprExceptionInfo`` whose traceback (the explanation) and crash message are made
        by ``explain(subject)`` when pytest, a plugin or xdist's serialization reads them.

        It is one (``isinstance``), so every reader of pytest's failures treats it as one.
        """

        def __init__(
            self, explain: Callable[[Any], str], subject: object, *, path: str, line: int
        ) -> None:
            # not the dataclass's __init__: its two fields are made on demand below
            self._explain = explain
            self._subject = subject
            self._path = path
            self._line = line
            self.sections = []

        @property
        def reprtraceback(self) -> _code.ReprTraceback:  # type: ignore[override]
            return _code.ReprTracebackNative([self._explain(self._subject) + "\n"])

        @property
        def reprcrash(self) -> _code.ReprFileLocation:  # type: ignore[override]
            headline = _headline(self._explain(self._subject))
            return _code.ReprFileLocation(self._path, self._line, headline)
