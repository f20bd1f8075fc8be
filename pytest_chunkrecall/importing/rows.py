"""Reading an importer's input: text, JSON, JSON Lines and CSV, each value with its line."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import ChunkrecallError
from ..files import not_regular


@dataclass(frozen=True)
class Row:
    """One input row: its fields as text, and the line where it starts (``where``)."""

    fields: dict[str, str]
    where: str


def read_text(path: Path, *, what: str = "input file", shown: str | None = None) -> str:
    """The UTF-8 text of ``path``; an error naming the line of the first byte that is not UTF-8.

    ``shown`` is how errors name the file (default: ``path`` as given).
    """
    shown = shown or str(path)
    try:
        data = _read_bytes(path)
    except OSError as exc:
        raise ChunkrecallError(f"cannot read the {what}: {exc.strerror}", where=shown) from None
    if data is None:
        problem = not_regular(path) or "it is not a regular file"
        raise ChunkrecallError(f"cannot read the {what}: {problem}", where=shown)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ChunkrecallError(
            f"the {what} is not UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "convert it to UTF-8, e.g. with iconv",
            where=f"{shown}:{line}",
        ) from None


def _read_bytes(path: Path) -> bytes | None:
    """The bytes of the regular file ``path``; ``None`` for anything else (a FIFO, a device,
    a folder), which is refused at once: reading a FIFO would wait for a writer for ever."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return file.read()


class _Unreadable(Exception):
    """JSON that parses, but holds what no row can: said by :func:`loads` with its place."""


ROW_NUMBERS = "write it as text, in quotes"  # what to do with a number too long to read


def _integer(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:  # longer than Python converts (sys.get_int_max_str_digits)
        raise _Unreadable(f"holds a number of {len(digits.lstrip('-')):,} digits") from None


def loads(
    text: str, *, what: str, where: str, nested: str = "read", numbers: str = ROW_NUMBERS
) -> object:
    """``text`` parsed as JSON, which messages call ``what`` (``this line``, ``the SQuAD file``).

    Too deep a nesting is an error that says it is too deep to be ``nested``; a number
    too long to read one that says ``numbers`` (what to do instead). A syntax error is
    raised as :class:`json.JSONDecodeError`, for the caller to place.
    """
    try:
        return json.loads(text, parse_int=_integer)
    except _Unreadable as exc:
        raise ChunkrecallError(f"{what} {exc}; {numbers}", where=where) from None
    except RecursionError:
        raise ChunkrecallError(f"{what} is nested too deeply to be {nested}", where=where) from None


def read_json(path: Path, *, what: str = "input file") -> object:
    """``path`` parsed as JSON; a syntax error names its line and column."""
    text = read_text(path, what=what)
    try:
        return loads(text, what=f"the {what}", where=str(path))
    except json.JSONDecodeError as exc:
        raise ChunkrecallError(
            f"the {what} is not valid JSON: {exc.msg} (column {exc.colno})",
            where=f"{path}:{exc.lineno}",
        ) from None


def read_rows(path: Path) -> list[Row]:
    """The rows of a CSV file (with a header) or a JSON Lines file, chosen by the file's suffix."""
    text = read_text(path)
    if path.suffix.lower() == ".json" and text.lstrip().startswith("["):
        return list(_json_array(text, path))
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        return list(_json_lines(text, path))
    if path.suffix.lower() in (".csv", ".tsv"):
        return list(_csv_rows(text, path, "\t" if path.suffix.lower() == ".tsv" else ","))
    raise ChunkrecallError(
        "cannot tell the format from the file name: name it *.jsonl (one JSON object a line) "
        "or *.csv (a header row, then one row per question)",
        where=str(path),
    )


def _json_lines(text: str, path: Path) -> Iterator[Row]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            value = loads(line, what="this line", where=where, nested="a JSON object of one row")
        except json.JSONDecodeError as exc:
            raise ChunkrecallError(
                f"this line is not a JSON object: {exc.msg} (column {exc.colno})", where=where
            ) from None
        if not isinstance(value, dict):
            raise ChunkrecallError(
                f'this line must be a JSON object such as {{"question": …, "answer": …}}, '
                f"not {type(value).__name__}",
                where=where,
            )
        yield Row({str(k): _scalar(v, str(k), where) for k, v in value.items()}, where)


def _json_array(text: str, path: Path) -> Iterator[Row]:
    try:
        items = loads(text, what="the file", where=str(path))
    except json.JSONDecodeError as exc:
        raise ChunkrecallError(
            f"not valid JSON: {exc.msg} (column {exc.colno})", where=f"{path}:{exc.lineno}"
        ) from None
    if not isinstance(items, list):  # text after the array's opening '[' ... ']'
        raise ChunkrecallError("the file must be one JSON array of objects", where=str(path))
    for number, value in enumerate(items, start=1):
        where = f"{path}: item {number}"
        if not isinstance(value, dict):
            raise ChunkrecallError(
                f"each item must be an object, not {type(value).__name__}", where=where
            )
        yield Row({str(k): _scalar(v, str(k), where) for k, v in value.items()}, where)


def _scalar(value: object, key: str, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ChunkrecallError(f"'{key}' must be text, not {type(value).__name__}", where=where)
    if isinstance(value, float) and not math.isfinite(value):
        # JSON has no NaN; Python's reader accepts it (and 1e999 as infinity), and str() writes 'nan'
        written = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
        raise ChunkrecallError(f"'{key}' must be text, not the number {written}", where=where)
    return str(value)


def _csv_rows(text: str, path: Path, delimiter: str) -> Iterator[Row]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    start = 1
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ChunkrecallError(f"malformed CSV: {exc}", where=f"{path}:{start}") from None
        where = f"{path}:{start}"
        start = reader.line_num + 1
        if header is None:
            header = [name.strip().lower() for name in values]  # "Question" is "question"
            continue
        if not any(value.strip() for value in values):
            continue
        if len(values) != len(header):
            raise ChunkrecallError(
                f"this row has {len(values)} fields, the header has {len(header)} "
                f"({', '.join(header)}); quote a field that holds the delimiter",
                where=where,
            )
        yield Row(dict(zip(header, values, strict=True)), where)


def require(row: Row, key: str) -> str:
    """The non-empty field ``key`` of ``row``, stripped; an error naming the row otherwise."""
    value = row.fields.get(key, "").strip()
    if not value:
        present = ", ".join(sorted(row.fields)) or "none"
        raise ChunkrecallError(f"this row has no '{key}' (its fields: {present})", where=row.where)
    return value
