"""What configures an evaluation, and how gold file, ini file and defaults combine."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..errors import ChunkrecallError, shown
from .limits import k_problem

MATCH_MODES = ("exact", "normalized", "fuzzy")
SETTING_KEYS = (
    "corpus",
    "chunker",
    "chunker_args",
    "retriever",
    "retriever_args",
    "k",
    "match",
    "fuzzy_threshold",
    "reranker",
    "reranker_args",
    "candidates",
    "loader",
    "reference_loader",
)
# Settings that name a function as "module:attr".
FUNCTION_KEYS = ("chunker", "retriever", "reranker", "loader", "reference_loader")
DEFAULT_CHUNKER = "pytest_chunkrecall.chunkers:fixed_size"
DEFAULT_RETRIEVER = "pytest_chunkrecall.retrievers:bm25"
DEFAULT_K = 5
DEFAULT_DEPTH = 50  # how deep a ranked_out case's holding chunk is looked for
DEFAULT_CANDIDATES = 50  # how many chunks the first stage gives a reranker
DEFAULT_MATCH = "normalized"
DEFAULT_FUZZY_THRESHOLD = 90.0

_ENTRY_POINT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class Settings:
    """The settings one source gives (a gold file, the ini file); ``None`` where it gives none.

    ``corpus`` patterns are relative to ``corpus_base``. ``origins`` maps each
    given key to where it was written (``gold/a.yaml:3``, ``ini option
    chunkrecall_k``), for error messages.
    """

    corpus: tuple[str, ...] | None = None
    chunker: str | None = None
    chunker_args: Mapping[str, Any] | None = None
    retriever: str | None = None
    retriever_args: Mapping[str, Any] | None = None
    k: int | None = None
    match: str | None = None
    fuzzy_threshold: float | None = None
    reranker: str | None = None
    reranker_args: Mapping[str, Any] | None = None
    candidates: int | None = None
    loader: str | None = None
    reference_loader: str | None = None
    corpus_base: Path | None = field(default=None, compare=False)
    origins: Mapping[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # Settings built in code (a notebook's evaluate()) are checked as the gold and
        # ini files' are: a bad value is a ChunkrecallError now, not a traceback later.
        for key in SETTING_KEYS:
            value = getattr(self, key)
            if value is None:
                continue
            if isinstance(value, Mapping):
                value = dict(value)
            elif isinstance(value, tuple):
                value = list(value)  # as a gold file lists corpus patterns
            checked, problem = check_setting(key, value)
            if problem:
                raise ChunkrecallError(
                    f"Settings({key}=...) {problem}", where=self.origins.get(key)
                )
            object.__setattr__(self, key, checked)

    def over(self, other: Settings) -> Settings:
        """These settings, with ``other`` filling in what these leave out.

        Arguments travel with their chunker, retriever or reranker: when these
        settings name another one than ``other`` does, ``other``'s arguments are not its.
        """
        values = {
            setting.name: getattr(other, setting.name)
            if getattr(self, setting.name) is None
            else getattr(self, setting.name)
            for setting in fields(self)
            if setting.name in SETTING_KEYS
        }
        for kind in ("chunker", "retriever", "reranker"):
            mine = getattr(self, kind)
            if (
                mine is not None
                and mine != getattr(other, kind)
                and getattr(self, f"{kind}_args") is None
            ):
                values[f"{kind}_args"] = None
        base = self.corpus_base if self.corpus is not None else other.corpus_base
        return replace(self, **values, corpus_base=base, origins={**other.origins, **self.origins})

    def where(self, key: str) -> str | None:
        """Where ``key`` was set, if anywhere."""
        return self.origins.get(key)


def check_setting(key: str, value: Any) -> tuple[Any, str | None]:
    """Validate one setting value; returns (normalised value, problem or None).

    Gold files and ini options both go through here, so both say the same thing.
    """
    if key in ("k", "candidates"):
        example = 5 if key == "k" else 50
        if isinstance(value, bool) or not isinstance(value, int):
            return value, f"must be a whole number of chunks, e.g. {example}, not {shown(value)}"
        return value, k_problem(value)
    if key == "fuzzy_threshold":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return value, f"must be a number from 0 to 100, not {shown(value)}"
        if not 0 <= value <= 100:
            return value, f"must be from 0 to 100, not {value}"
        return float(value), None
    if key == "match":
        if value not in MATCH_MODES:
            hint = did_you_mean(str(value), MATCH_MODES)
            return value, f"must be one of {', '.join(MATCH_MODES)}, not {shown(value)}{hint}"
        return value, None
    if key in FUNCTION_KEYS:
        if not isinstance(value, str):
            return value, f"must be 'module:attr' text, not {type(value).__name__}"
        if not _ENTRY_POINT.match(value):
            return value, f"must be 'module:attr', e.g. 'shop.ingest:chunk', not {shown(value)}"
        return value, None
    if key in ("chunker_args", "retriever_args", "reranker_args"):
        slips = (
            [
                argument
                for argument, given in value.items()
                if isinstance(argument, str) and ":" in argument and given is None
            ]
            if isinstance(value, dict)
            else []
        )
        if slips:
            name, _, number = slips[0].partition(":")
            return (
                value,
                f"reads {slips[0]!r} as one key: YAML needs a space after the colon, e.g. {{{name}: {number}}}",
            )
        if not isinstance(value, dict) or not all(isinstance(argument, str) for argument in value):
            return (
                value,
                "must be a mapping of argument names to values, e.g. {size: 800, overlap: 200}",
            )
        return dict(value), None
    if key == "corpus":
        patterns = [value] if isinstance(value, str) else value
        if not isinstance(patterns, list) or not patterns:
            return value, "must be a glob pattern or a list of them, e.g. ../docs/*.md"
        if not all(isinstance(pattern, str) and pattern.strip() for pattern in patterns):
            return value, "every corpus pattern must be non-empty text"
        return tuple(patterns), None
    raise AssertionError(key)


def did_you_mean(word: str, choices: tuple[str, ...]) -> str:
    """``; did you mean 'x'?`` when ``word`` looks like a misspelt choice, else nothing."""
    same_letters = [choice for choice in choices if choice.lower() == word.lower()]
    close = same_letters or difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""
