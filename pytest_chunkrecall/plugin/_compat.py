"""The private pytest classes a case's failure is built from, and what to do without them.

pytest has no public way to give a failure both a full explanation (for the
FAILURES section) and a one-line crash message (for the short summary, JUnit's
``message=`` and ``--tb=line``): a ``repr_failure`` that returns a string gets
that whole string everywhere. ``ReprExceptionInfo`` with a ``ReprFileLocation``
does it, and pytest-xdist carries that shape between processes as it is; but
it lives in ``_pytest._code.code``, which may move. Should it, failures fall
back to the plain string: the full explanation everywhere, still correct.
"""

from __future__ import annotations

from typing import Any

try:
    from _pytest._code import code as _code
except ImportError:  # pragma: no cover - a pytest that moved its private classes
    _code = None  # type: ignore[assignment]


def failure(text: str, *, path: str, line: int) -> Any:
    """What ``repr_failure`` returns: ``text`` in full, its first line as the crash message."""
    needed = ("ReprExceptionInfo", "ReprFileLocation", "ReprTracebackNative")
    if _code is None or not all(hasattr(_code, name) for name in needed):
        return text
    headline = text.partition("\n")[0].removesuffix(":")
    return _code.ReprExceptionInfo(
        reprtraceback=_code.ReprTracebackNative([text + "\n"]),
        reprcrash=_code.ReprFileLocation(path, line, headline),
    )
