"""What a sweep can set on a chunker — its size and overlap — under each library's own names.

A sweep writes ``size`` and ``overlap`` (or a library's ``chunk_size`` and
``chunk_overlap``); each chunker gets them under the name it takes. A chunker
named as a class, function or factory gets them as arguments; an object that
is configured already is copied with its attribute changed, where its library
keeps the setting in one.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..callables import is_function
from ..config.settings import did_you_mean
from ..errors import USER_FAULTS, ChunkrecallError, describe
from ..libraries import (
    CHONKIE_CHUNKER,
    LANGCHAIN_SPLITTER,
    LLAMAINDEX_PARSER,
    SEMCHUNK_CHUNKER,
    Family,
)

ALIASES: Mapping[str, tuple[str, ...]] = {
    "size": ("size", "chunk_size"),
    "overlap": ("overlap", "chunk_overlap"),
}
"""The names a sweep may write for each of its own: its name first, then the libraries'."""


@dataclass(frozen=True)
class Knob:
    """Where a library keeps one setting: the keyword its class takes, the attribute it keeps."""

    keyword: str
    attribute: str | None  # None: an argument of each call, never kept on the object


LIBRARY_KNOBS: tuple[tuple[Family, Mapping[str, Knob]], ...] = (
    (
        LANGCHAIN_SPLITTER,
        {
            "size": Knob("chunk_size", "_chunk_size"),
            "overlap": Knob("chunk_overlap", "_chunk_overlap"),
        },
    ),
    (
        LLAMAINDEX_PARSER,
        {
            "size": Knob("chunk_size", "chunk_size"),
            "overlap": Knob("chunk_overlap", "chunk_overlap"),
        },
    ),
    (
        CHONKIE_CHUNKER,
        {
            "size": Knob("chunk_size", "chunk_size"),
            "overlap": Knob("chunk_overlap", "chunk_overlap"),
        },
    ),
    # chunkerify() fixes the size; the overlap is an argument of every call
    (
        SEMCHUNK_CHUNKER,
        {"size": Knob("chunk_size", "chunk_size"), "overlap": Knob("overlap", None)},
    ),
)
"""The one table of what each known library calls the sweep's ``size`` and ``overlap``."""


@dataclass(frozen=True)
class Target:
    """Where one sweep argument goes on one chunker."""

    name: str  # as the sweep spec writes it
    keyword: str  # the chunker's own name for it
    attribute: str | None = None  # set on a copy of a configured object; None: an argument


def sweep_name(name: str) -> str:
    """The sweep's own name for ``name`` (``chunk_overlap`` → ``overlap``), else ``name``."""
    return next((own for own, names in ALIASES.items() if name in names), name)


def targets(obj: Any, names: Iterable[str], *, chunker: str) -> tuple[Target, ...]:
    """Where each sweep argument in ``names`` goes on chunker ``obj`` (named ``chunker``).

    Raises :class:`ChunkrecallError` saying, as a sentence, why one cannot be swept
    and what the chunker takes instead.
    """
    return tuple(_target(obj, name, chunker=chunker) for name in names)


def apply(
    obj: Any, args: Mapping[str, Any], setting: Mapping[str, Any], found: Sequence[Target]
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The chunker at ``setting``: its object, its arguments, and the attributes set on a copy.

    Raises :class:`ChunkrecallError` when the copy cannot be made or changed.
    """
    new_args = dict(args)
    attributes: dict[str, Any] = {}
    for target in found:
        if target.attribute is None:
            new_args[target.keyword] = setting[target.name]
        else:
            attributes[target.attribute] = setting[target.name]
    if not attributes:
        return obj, new_args, attributes
    try:
        if LLAMAINDEX_PARSER.describes(obj) and callable(getattr(obj, "model_copy", None)):
            copied = obj.model_copy(update=attributes)  # a pydantic model: its own copy
        else:
            copied = copy.copy(obj)
            for attribute, value in attributes.items():
                setattr(copied, attribute, value)
    except USER_FAULTS as exc:  # the library's object refused the copy or the change
        shown = ", ".join(f"{attribute}={value!r}" for attribute, value in attributes.items())
        raise ChunkrecallError(
            f"cannot copy the chunker, a {type(obj).__name__}, with {shown}: {describe(exc)}"
        ) from None
    _check_copy(copied)
    return copied, new_args, attributes


def _check_copy(copied: Any) -> None:
    """What the library's constructor would have refused, since a copy is not built again."""
    family = _family(copied)
    if family is None:
        return
    knobs = dict(LIBRARY_KNOBS)[family]
    kept = {
        name: getattr(copied, knob.attribute, None)
        for name, knob in knobs.items()
        if knob.attribute
    }
    size, overlap = kept.get("size"), kept.get("overlap")
    if isinstance(size, int) and isinstance(overlap, int) and overlap > size:
        raise ChunkrecallError(
            f"an overlap of {overlap} is larger than the chunk size {size}, which a "
            f"{family.library} {family.what} refuses"
        )


def configured(obj: Any, args: Mapping[str, Any], found: Sequence[Target]) -> dict[str, Any]:
    """Each sweep argument's configured value, by its name in the spec; ``None``: the default.

    Read from the chunker's arguments under the chunker's own name, or from the
    attribute of a configured object.
    """
    values: dict[str, Any] = {}
    for target in found:
        value = args.get(target.keyword)
        if value is None and target.attribute is not None:
            value = getattr(obj, target.attribute, None)
        values[target.name] = value if isinstance(value, str | int | float | bool) else None
    return values


def _target(obj: Any, name: str, *, chunker: str) -> Target:
    family = _family(obj)
    knobs = dict(LIBRARY_KNOBS)[family] if family is not None else {}
    knob = knobs.get(sweep_name(name))
    if inspect.isclass(obj) or is_function(obj):
        return _argument(obj, name, knob, family, chunker=chunker)
    what = f"a {type(obj).__name__}"
    if family is None:
        raise _refusal(
            name,
            chunker,
            f", {what}: it is an object that is configured already, and "
            "pytest-chunkrecall knows where only LangChain, LlamaIndex, chonkie and semchunk "
            f"chunkers keep their settings; {_instead(chunker)}",
        )
    what += f" (a {family.library} {family.what})"
    if knob is None:
        raise _refusal(
            name,
            chunker,
            f", {what}: pytest-chunkrecall sets only {', '.join(knobs)} on a "
            f"{family.library} {family.what}; {_instead(chunker)}",
        )
    if knob.attribute is None or hasattr(obj, knob.attribute):
        return Target(name, knob.keyword, knob.attribute)
    has = [
        own
        for own, other_knob in knobs.items()
        if other_knob.attribute is None or hasattr(obj, other_knob.attribute)
    ]
    other = f"; it has {', '.join(has)}: sweep that" if has else ""
    raise _refusal(
        name, chunker, f", {what}: it has no {knob.attribute} attribute{other}; {_instead(chunker)}"
    )


def _argument(
    obj: Any, name: str, knob: Knob | None, family: Family | None, *, chunker: str
) -> Target:
    """Where sweep argument ``name`` goes among the arguments of a class, function or factory."""
    takes, open_ended = _keywords(obj)
    own = knob is not None and family is not None and inspect.isclass(obj)
    wanted = (knob.keyword,) if own and knob is not None else _candidates(name)
    for keyword in wanted:
        if keyword in takes:
            return Target(name, keyword)
    if open_ended:
        return Target(name, wanted[0])
    called = (
        f" ({family.library}'s name for {name})" if own and family and wanted[0] != name else ""
    )
    raise _refusal(
        name,
        chunker,
        f": it takes no argument {' or '.join(map(repr, wanted))}{called}; "
        f"it takes {', '.join(takes) or 'none'}{_suggestion(name, takes)}",
    )


def _suggestion(name: str, takes: list[str]) -> str:
    """``; did you mean 'overlap'?``: the sweep's documented names first (``overlap`` reaches
    every library's keyword for it), then what the chunker takes."""
    documented = tuple(alias for names in ALIASES.values() for alias in names)
    known = name in documented  # a documented name the chunker lacks: no alias would help
    return (not known and did_you_mean(name, documented)) or did_you_mean(name, tuple(takes))


def _refusal(name: str, chunker: str, why: str) -> ChunkrecallError:
    return ChunkrecallError(f"cannot sweep {name} over {_chunker_phrase(chunker)}{why}")


def _chunker_phrase(chunker: str) -> str:
    hook = " (from pytest_chunkrecall_chunker)"
    if chunker.endswith(hook):
        return "the chunker the conftest hook pytest_chunkrecall_chunker returned"
    return f"chunker {chunker}"


def _instead(chunker: str) -> str:
    where = "return" if chunker.endswith("(from pytest_chunkrecall_chunker)") else "name"
    return f"{where} its class or a factory instead, which the sweep calls with its arguments"


def _family(obj: Any) -> Family | None:
    return next((family for family, _ in LIBRARY_KNOBS if family.describes(obj)), None)


def _candidates(name: str) -> tuple[str, ...]:
    """``name``, then the other names of the same setting (``overlap``, ``chunk_overlap``)."""
    others = ALIASES.get(sweep_name(name), ())
    return (name, *(other for other in others if other != name))


def _keywords(obj: Any) -> tuple[list[str], bool]:
    """The keywords ``obj`` names, and whether it takes others (``**kwargs`` to the end).

    A class's ``**kwargs`` are followed up its bases' ``__init__`` (a LangChain
    splitter passes its sizes on to ``TextSplitter``).
    """
    takes: list[str] = []
    signatures = [obj]
    if inspect.isclass(obj):
        signatures += [
            base.__dict__["__init__"] for base in obj.__mro__[1:] if "__init__" in base.__dict__
        ]
    for function in signatures:
        if function is object.__init__:
            return takes, False
        try:
            parameters = list(inspect.signature(function).parameters.values())
        except (TypeError, ValueError):
            return takes, True  # no signature to read: let the call itself say
        takes += [
            parameter.name
            for parameter in parameters
            if parameter.name not in ("self", "text", *takes)
            and parameter.kind
            not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY)
        ]
        if not any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters):
            return takes, False
        if not inspect.isclass(obj):
            return takes, True
    return takes, True
