"""Case entries as a run keeps them: compact JSON, compressed, unpacked where they are read.

A run keeps every case's report entry from its test's report to the run's end,
for the gates, the summary and the files; pytest keeps every report as long.
As dicts, the entries of 10,000 cases take about 50 MB; packed, under 10. A
test report carries its case's entry packed (from an xdist worker too), and the
run's record unpacks an entry each time it reads it, into a dict of its own.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import is_dataclass
from typing import Any, Generic, TypeVar, overload

from ..evaluation.results import field_names

T = TypeVar("T")

# What every entry spells the same way, as zlib's preset dictionary: an entry is
# too short to teach the compressor its own keys (a sixth smaller with them).
_KEYS = (
    b'{"nodeid":"gold_file":"id":"line":"question":"needles":"span":"verdict":"rank":'
    b'"span_split":"k":"match":"normalized","needle_lengths":"span_length":"unit":"chars",'
    b'"top":[{"doc":"index":"start":"end":"preview":"rank":"size":}],"held":[],"cut":null,'
    b'"closest":null,"missing":[],"outside":[],"baseline":null,"holding_rank":"depth":null,'
    b'"depth_error":null,"pieces_retrieved":null,"retrieved_ids":["holding_ids":["span_at":'
    b'{"doc":"start":"end":},"docs":null,"elsewhere":[],"xfail":null,"sweep":"hit","split",'
    b'"ranked_out","absent",false,true'
)


def pack(entry: Mapping[str, Any]) -> bytes:
    """``entry`` as compressed compact JSON: its values JSON-safe, or dataclasses of such
    values, written as what ``CaseResult.to_json`` makes of them (an object of their fields)."""
    text = json.dumps(
        entry, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=fields_of
    )
    packer = zlib.compressobj(1, zdict=_KEYS)  # the fastest level: a tenth larger than the best
    return packer.compress(text.encode("utf-8")) + packer.flush()


def fields_of(value: object) -> dict[str, Any]:
    """A dataclass instance's fields by name, in order (not copied: its values as they are)."""
    # also what the encoder asks for what JSON has no type for
    if not is_dataclass(value) or isinstance(value, type):
        raise TypeError(f"a {type(value).__name__} has no JSON form")
    return {name: getattr(value, name) for name in field_names(type(value))}


def unpack(packed: bytes) -> dict[str, Any]:
    """The entry :func:`pack` made, as JSON reads it back (tuples become lists)."""
    unpacker = zlib.decompressobj(zdict=_KEYS)
    entry: dict[str, Any] = json.loads(unpacker.decompress(packed) + unpacker.flush())
    return entry


class Entries(Sequence[Mapping[str, Any]], Generic[T]):
    """``read(item)`` for each of ``items``, made each time it is asked for.

    A caller that keeps what it reads holds that much, and one that walks the
    entries holds one at a time.
    """

    __slots__ = ("_items", "_read")

    def __init__(self, items: Sequence[T], read: Callable[[T], Mapping[str, Any]]) -> None:
        self._items = items
        self._read = read

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Mapping[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> Entries[T]: ...

    def __getitem__(self, index: int | slice) -> Mapping[str, Any] | Entries[T]:
        if isinstance(index, slice):
            return Entries(self._items[index], self._read)
        return self._read(self._items[index])

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return map(self._read, self._items)


def packed_entries(items: Sequence[tuple[bytes, str]]) -> Entries[tuple[bytes, str]]:
    """Packed entries, each with its test's outcome, read as entries with ``outcome`` set."""
    return Entries(items, _with_outcome)


def _with_outcome(item: tuple[bytes, str]) -> dict[str, Any]:
    packed, outcome = item
    entry = unpack(packed)
    entry["outcome"] = outcome
    return entry
