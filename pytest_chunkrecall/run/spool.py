"""The cases' entry texts, kept on disk from their report to the run's end.

pytest keeps every test report until the run ends; a run of many cases would
hold every entry as long. The spool appends each entry's text to a temporary
file as it arrives and keeps only where it is and where it goes in the report.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import Any


class Spool:
    """Entry texts by node id, written as they come and read back in report order.

    A case reported twice (a plugin that runs a test again) keeps its last text.
    The file is deleted when the spool is closed, or when the process ends.
    """

    def __init__(self) -> None:
        # open as long as the spool is: closed by close()
        self._file = tempfile.TemporaryFile(prefix="chunkrecall-")  # noqa: SIM115
        self._end = 0
        self._slots: dict[str, tuple[Any, int, int]] = {}  # order key, offset, length

    def add(self, nodeid: str, key: Any, text: str) -> None:
        """Keep ``text``, the entry of case ``nodeid``, for its place ``key`` in the report."""
        data = text.encode("utf-8", "surrogatepass")  # an entry's text is ASCII (see .entry)
        # The file's position is kept at its end (texts() puts it back there), so
        # that an entry is a buffered write, not a seek that flushes the buffer each time.
        self._file.write(data)
        self._slots[nodeid] = (key, self._end, len(data))
        self._end += len(data)

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, nodeid: object) -> bool:
        return nodeid in self._slots

    def texts(self) -> Iterator[str]:
        """Every entry's text, in the order of the keys given (then of node ids)."""
        order = sorted(self._slots.items(), key=lambda item: (item[1][0], item[0]))
        if not order:
            return  # nothing kept, or closed
        self._file.flush()
        try:
            for _, (_, offset, length) in order:
                self._file.seek(offset)
                yield self._file.read(length).decode("utf-8", "surrogatepass")
        finally:
            if not self._file.closed:  # a reader left unfinished may end after close()
                self._file.seek(self._end)

    def close(self) -> None:
        """Delete the file; the spool is empty then."""
        self._slots.clear()
        self._file.close()
