"""The one error type the core raises: a problem the user can fix."""

from __future__ import annotations

import builtins
import os
import re
import traceback
from pathlib import Path

import pluggy

_PACKAGE_DIR = str(Path(__file__).parent)
# Hooks reach user code through pluggy; its frames are no more the user's than ours.
# Folders, with their separator: a user package named pytest_chunkrecall_contrib is no frame of ours.
_HIDDEN = (_PACKAGE_DIR + os.sep, str(Path(pluggy.__file__).parent) + os.sep)


# What user code may raise that is reported as its error: everything but
# KeyboardInterrupt (the user stopping the run) and pytest's own outcomes
# (pytest.skip/fail/exit, and pytest-timeout's failure), which derive from
# BaseException and must reach pytest as they are. sys.exit() in a chunker is a
# bug in the chunker, not a request to end the test run.
USER_FAULTS: tuple[type[BaseException], ...] = tuple(
    kind
    for kind in (
        Exception,
        SystemExit,
        GeneratorExit,
        getattr(builtins, "BaseExceptionGroup", None),  # Python 3.11+
    )
    if kind is not None
)


class ChunkrecallError(Exception):
    """Something in the user's gold files, settings or code that stops an evaluation.

    ``where`` names the place to look (``gold/policies.yaml:12``, ``ini option
    chunkrecall_k``); the message says what is wrong and how to fix it.
    """

    def __init__(self, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class GoldError(ChunkrecallError):
    """A gold file that cannot be read as the schema describes."""


def user_traceback(exc: BaseException, *, root: Path | None = None) -> str:
    """The traceback of an exception raised by user code, without this package's frames;
    files inside ``root`` (the rootdir) are named relative to it, as pytest names them."""
    lines = traceback.format_list(_user_frames(exc, root))
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


def raised(exc: BaseException, *, root: Path | None = None) -> str:
    """``ValueError: message``, followed by the user's own frames where there are any
    (files inside ``root`` named relative to it).

    An error raised inside this package (a built-in) shows no frames, which
    would only repeat the one line.
    """
    if not _user_frames(exc, None):
        return describe(exc)
    return f"{describe(exc)}:\n{user_traceback(exc, root=root)}"


def _user_frames(exc: BaseException, root: Path | None) -> list[traceback.FrameSummary]:
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if not frame.filename.startswith(_HIDDEN)
    ]
    if root is not None:
        for frame in frames:
            _ = frame.line  # the source line is read by the file's full name, before it changes
            path = Path(frame.filename)
            if path.is_absolute() and path.is_relative_to(root):
                frame.filename = path.relative_to(root).as_posix()
    return frames


def describe(exc: BaseException) -> str:
    """``TypeError: message`` — one line for an exception raised by user code."""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r})"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


SHOWN_CHARS = 200


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)``, trimmed to about ``limit`` characters with its full length said.

    Messages quote what the user wrote; a 2 MB needle or scalar must not become a 2 MB
    line in a CI log.
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        return f"{text[:limit]}… ({len(value):,} characters)"
    return f"{text[:limit]}… ({len(text):,} characters written out)"


def trimmed(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` as it is, or its first ``limit`` characters and its full length when longer."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


# What printable() escapes: the control characters (Unicode category Cc, which is
# exactly these two ranges), which move the cursor, and the bidirectional controls,
# which re-order the text shown after them.
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069]"
)


def printable(text: str) -> str:
    """``text`` with its control characters written as escapes, as ``repr`` writes them.

    A question or document name is shown as it is, but for these: an escape
    sequence or a carriage return in gold text would clear or rewrite the
    terminal (``\\x1b[2J``, ``\\rOK passed``), and a bidirectional override
    would reverse the text after it.
    """
    return _UNPRINTABLE.sub(lambda found: repr(found[0])[1:-1], text)


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 case``, ``2 cases``, ``1,204 known misses``: a count with its noun agreeing.

    ``plural`` is the noun's plural where adding an ``s`` does not make it
    (``counted(n, "miss", "misses")``). Every message that counts something says
    it through this one function, so singular and plural never disagree.
    """
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
