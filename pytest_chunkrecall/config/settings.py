"""What configures an evaluation, and how gold file, ini file and defaults combine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..errors import ChunkrecallError
from .kinds import did_you_mean
from .table import (
    DEFAULT_CANDIDATES,
    DEFAULT_CHUNKER,
    DEFAULT_DEPTH,
    DEFAULT_FUZZY_THRESHOLD,
    DEFAULT_K,
    DEFAULT_MATCH,
    DEFAULT_RETRIEVER,
    FUNCTION_KEYS,
    GOLD_KEYS,
    MATCH_MODES,
    check_setting,
)

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_CHUNKER",
    "DEFAULT_DEPTH",
    "DEFAULT_FUZZY_THRESHOLD",
    "DEFAULT_K",
    "DEFAULT_MATCH",
    "DEFAULT_RETRIEVER",
    "FUNCTION_KEYS",
    "GOLD_KEYS",
    "MATCH_MODES",
    "Settings",
    "check_setting",
    "did_you_mean",
]


@dataclass(frozen=True)
class Settings:
    """The settings one source gives (a gold file, the ini file); ``None`` where it gives none.

    One field for each row of the settings table that a gold file may set (a test holds
    the two together), typed for the code that reads it.

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
    budget: int | None = None
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
        for key in GOLD_KEYS:
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
            if setting.name in GOLD_KEYS
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
