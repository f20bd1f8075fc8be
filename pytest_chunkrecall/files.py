"""Writing the files a run produces so that no reader ever sees half of one.

A path the user names is a place to write a regular file; what it may replace is
:mod:`..guard`'s to decide, before any test runs. A symlink is written through, so the
file it points to is replaced in its own folder and the link stays.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from .errors import ChunkrecallError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no flock; a lone writer needs none
    fcntl = None  # type: ignore[assignment]

LOCK_TIMEOUT = 120.0
MARKER = "<!-- pytest-chunkrecall -->"  # in every Markdown and HTML file a run writes

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(path: Path) -> str | None:
    """Why ``path`` (followed through symlinks) is no regular file, or ``None`` when it is one
    or does not exist yet."""
    try:
        os.lstat(path)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:  # said here, or every later look at it raises
            return "its name is longer than this file system holds"
        return None
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None  # a symlink to a file not made yet: writing makes it
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "it is a symlink loop"
        return f"it cannot be examined: {exc.strerror or exc}"
    if stat.S_ISREG(mode):
        return _magic_link(path)
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"it is {kind}, not a regular file"


def read_json(path: Path, *, what: str, kind: str, missing: str, advice: str) -> Any:
    """The JSON value in the file ``path``, which messages call ``what`` (such as ``baseline b.json``).

    Raises :class:`ChunkrecallError`: ``missing`` when there is no such file; otherwise
    what is wrong with it (no regular file, unreadable, not JSON, nested too deeply to be
    ``kind``, a number too long to read) and, for a damaged file, ``advice`` on what to do.
    A FIFO or a device is refused at once, never waited on.
    """
    try:
        data = read_regular(path)
    except FileNotFoundError:
        raise ChunkrecallError(missing) from None
    except OSError as exc:
        problem = not_regular(path) or f"{exc.strerror or exc}"
        raise ChunkrecallError(f"cannot read {what}: {problem}") from None
    try:
        text = data.decode("utf-8")
        return json.loads(text, parse_int=_integer)
    except UnicodeDecodeError as exc:
        raise ChunkrecallError(f"cannot read {what}: it is not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise ChunkrecallError(
            f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); {advice}"
        ) from None
    except _LongNumber as exc:
        raise ChunkrecallError(
            f"{what} holds a number of {exc.digits:,} digits, too long to be part of {kind}; "
            f"{advice}"
        ) from None
    except RecursionError:
        raise ChunkrecallError(f"{what} is nested too deeply to be {kind}; {advice}") from None


def read_regular(path: Path) -> bytes:
    """The bytes of the regular file ``path`` (followed through symlinks).

    Anything else (a FIFO, a device, a folder, a socket) raises :class:`OSError` at once,
    without waiting: opening a FIFO for reading would wait for a writer for ever.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return handle.read()


def append_text(path: Path, text: str) -> None:
    """Append ``text`` to the regular file ``path`` (made when missing), as a CI step summary is.

    Anything else at ``path`` raises :class:`OSError` saying what it is, at once: a FIFO
    without a reader would make the write wait for ever.
    """
    problem = not_regular(path)
    if problem:
        raise OSError(errno.EINVAL, problem)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags, 0o666)
    with open(fd, "a", encoding="utf-8", errors="backslashreplace") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # it changed since it was looked at
            raise OSError(errno.EINVAL, "it is not a regular file")
        handle.write(text)


class _LongNumber(Exception):
    """A JSON integer longer than Python converts (``sys.get_int_max_str_digits``)."""

    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _integer(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:
        raise _LongNumber(len(digits.lstrip("-"))) from None


def _magic_link(path: Path) -> str | None:
    # /proc/self/fd/1 and its kin stat as the open file they lead to, but the
    # path they resolve to is no name of it: writing "through" them would make
    # a stray file beside a deleted one, or replace what a stream goes to.
    real = real_target(path)
    try:
        same = os.path.samefile(path, real)
    except OSError:
        same = False
    return None if same else "it is a link to an open stream, not a file with a name"


def real_target(path: Path) -> Path:
    """The file a write to ``path`` replaces: a symlink's target, not the link."""
    return Path(os.path.realpath(path))


def write_atomically(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces, one after another) to ``path`` through a temporary file
    in the same folder, then rename it.

    A symlink is written through. An existing file keeps its mode; a new one gets the
    mode the umask gives. Raises :class:`OSError` (the old file intact) on failure.
    """
    target = real_target(path)
    problem = not_regular(target)
    if problem:
        raise OSError(errno.EEXIST, f"{problem}; nothing was written")
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temporaries(target)
    fd, temporary = _temporary(target)
    try:
        try:
            existing = os.stat(target)
        except FileNotFoundError:
            pass
        else:
            os.fchmod(fd, stat.S_IMODE(existing.st_mode))
            if (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid()):
                _keep_owner(fd, existing)
        # text that is not valid Unicode (lone surrogates) is written escaped, never refused
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                handle.writelines(text)
            handle.flush()
            os.fsync(handle.fileno())  # a full disk shows here, not after the rename
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _keep_owner(fd: int, existing: os.stat_result) -> None:
    # Only root may give a file away; anyone else's replacement is theirs, as
    # any editor's save would make it.
    with suppress(PermissionError, AttributeError):
        os.fchown(fd, existing.st_uid, existing.st_gid)


def _temporary(target: Path) -> tuple[int, str]:
    # Made by hand rather than by tempfile.mkstemp, which makes files 0600: the
    # umask decides a new file's mode, as it does for any other program's output.
    for _ in range(100):
        name = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), str(name)
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, f"cannot make a temporary file next to {target}")


def clean_stale_temporaries(target: Path) -> list[Path]:
    """Remove the temporary files a killed writer of ``target`` left behind; returns them.

    A temporary file names the process that made it; one whose process is gone is stale.
    """
    removed = []
    for candidate in target.parent.glob(f".{target.name}.*.tmp"):
        pid_text = candidate.name[len(target.name) + 2 :].split(".", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        try:
            candidate.unlink()
        except OSError:
            continue
        removed.append(candidate)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, and belongs to someone else
    return True


@contextmanager
def locked(path: Path, *, timeout: float = LOCK_TIMEOUT) -> Iterator[Path]:
    """Hold the lock of ``path`` (a lock file beside the file it protects) while reading,
    merging and writing it, so that two runs never lose each other's work.

    Waits up to ``timeout`` seconds for another holder; raises :class:`TimeoutError` with
    a message naming the lock file after that. Yields the lock file's path, which is
    removed again on release.
    """
    lock = lock_path(path)
    if fcntl is None:  # pragma: no cover
        yield lock
        return
    deadline = time.monotonic() + timeout
    while True:
        fd = _open_lock(lock)
        if _acquire(fd, deadline):
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(lock))
            except FileNotFoundError:
                same = False
            if same:
                break
        os.close(fd)  # a lock file its holder removed: take the next one
        if time.monotonic() >= deadline:
            raise TimeoutError(
                errno.ETIMEDOUT,
                f"another run has held the lock {lock} for {timeout:g} seconds; "
                "wait for it to finish, or remove the lock file if no run is writing",
            )
    try:
        yield lock
    finally:
        # Removed while still held: a waiter that then locks the removed file
        # sees that it is no longer the one at this path, and tries again.
        Path(lock).unlink(missing_ok=True)
        os.close(fd)


def lock_path(path: Path) -> Path:
    """The lock file of ``path``: beside the file a write to ``path`` replaces."""
    target = real_target(path)
    return target.parent / f".{target.name}.lock"


def _open_lock(lock: Path) -> int:
    try:
        return os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        # said of the lock file: the file it protects may be fine
        problem = not_regular(lock) or exc.strerror or str(exc)
        raise OSError(
            exc.errno, f"cannot open its lock file {lock}: {problem}; remove it"
        ) from None


def _acquire(fd: int, deadline: float) -> bool:
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
