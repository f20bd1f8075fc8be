"""The kinds of value a setting takes, each with the one check that every source goes through.

A gold file gives YAML values, pytest 9's native ``[tool.pytest]`` table TOML values,
code a notebook writes Python values; an ini file gives text, which the pytest face
turns into a value the way :attr:`Kind.written` says before it reaches the same check.
So a setting says the same thing wherever it was written.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import shown
from .limits import k_problem

Checked = tuple[Any, str | None]
"""A value as the settings keep it, and the problem with it (``None``: it is fine)."""

Written = Literal["text", "whole", "number", "switch", "inline", "lines"]
"""How an ini file's text is read before the check: as it is, as a whole number, a number,
true or false, an inline YAML or JSON mapping, or a list of lines."""

_ENTRY_POINT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class Kind:
    """What values one setting takes. ``native`` is the TOML type that pytest 9's native
    table hands over as it is (``None``: text, or a list of lines when ``written`` says so)."""

    written: Written = "text"
    native: type | None = None

    def check(self, value: Any) -> Checked:
        """The value as the settings keep it, or why it is wrong."""
        raise NotImplementedError


@dataclass(frozen=True)
class Chunks(Kind):
    """A number of chunks: k, or a first stage's candidates."""

    example: int
    written: Written = "whole"
    native: type | None = int

    def check(self, value: Any) -> Checked:
        if isinstance(value, bool) or not isinstance(value, int):
            return (
                value,
                f"must be a whole number of chunks, e.g. {self.example}, not {shown(value)}",
            )
        return value, k_problem(value)


@dataclass(frozen=True)
class Whole(Kind):
    """A whole number from ``low`` to ``high``."""

    low: int
    high: int
    written: Written = "whole"
    native: type | None = int

    def check(self, value: Any) -> Checked:
        whole = not isinstance(value, bool) and isinstance(value, int)
        if not whole or not self.low <= value <= self.high:
            return (
                value,
                f"must be a whole number from {self.low} to {self.high:,}, not {shown(value)}",
            )
        return value, None


@dataclass(frozen=True)
class Number(Kind):
    """A number from ``low`` to ``high`` (above ``low`` when ``above_low``)."""

    low: float
    high: float
    above_low: bool = False
    written: Written = "number"
    native: type | None = float

    def check(self, value: Any) -> Checked:
        bounds = (
            f"above {self.low:g} and at most {self.high:g}"
            if self.above_low
            else f"from {self.low:g} to {self.high:g}"
        )
        if isinstance(value, bool) or not isinstance(value, int | float):
            return value, f"must be a number {bounds}, not {shown(value)}"
        low_ok = value > self.low if self.above_low else value >= self.low
        if not (low_ok and value <= self.high) or value != value:  # NaN is in no range
            return value, f"must be {bounds}, not {value:g}"
        return float(value), None


@dataclass(frozen=True)
class Choice(Kind):
    """One word of ``choices``."""

    choices: tuple[str, ...]

    def check(self, value: Any) -> Checked:
        if value not in self.choices:
            hint = did_you_mean(str(value), self.choices)
            return value, f"must be one of {', '.join(self.choices)}, not {shown(value)}{hint}"
        return value, None


@dataclass(frozen=True)
class Switch(Kind):
    """True or false."""

    written: Written = "switch"
    native: type | None = bool

    def check(self, value: Any) -> Checked:
        if not isinstance(value, bool):
            return value, f"must be true or false, not {shown(value)}"
        return value, None


@dataclass(frozen=True)
class Function(Kind):
    """A function or class named as ``module:attr``."""

    def check(self, value: Any) -> Checked:
        if not isinstance(value, str):
            return value, f"must be 'module:attr' text, not {type(value).__name__}"
        if not _ENTRY_POINT.match(value):
            return value, f"must be 'module:attr', e.g. 'shop.ingest:chunk', not {shown(value)}"
        return value, None


@dataclass(frozen=True)
class Arguments(Kind):
    """Keyword arguments: a mapping of argument names to values."""

    written: Written = "inline"
    native: type | None = dict

    def check(self, value: Any) -> Checked:
        slips = (
            [
                argument
                for argument, given in value.items()
                if isinstance(argument, str) and ":" in argument and given is None
            ]
            if isinstance(value, Mapping)
            else []
        )
        if slips:
            name, _, number = slips[0].partition(":")
            return (
                value,
                f"reads {slips[0]!r} as one key: YAML needs a space after the colon, "
                f"e.g. {{{name}: {number}}}",
            )
        if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
            return (
                value,
                "must be a mapping of argument names to values, e.g. {size: 800, overlap: 200}",
            )
        return dict(value), None


@dataclass(frozen=True)
class Patterns(Kind):
    """Glob patterns or folders: one text, or a list of them."""

    example: str
    written: Written = "lines"

    def check(self, value: Any) -> Checked:
        patterns = [value] if isinstance(value, str) else value
        if isinstance(patterns, tuple):
            patterns = list(patterns)
        if not isinstance(patterns, list) or not patterns:
            return value, f"must be a glob pattern or a list of them, e.g. {self.example}"
        if not all(isinstance(pattern, str) and pattern.strip() for pattern in patterns):
            return value, "every pattern must be non-empty text"
        return tuple(patterns), None


@dataclass(frozen=True)
class FilePath(Kind):
    """A path to a file, relative to the rootdir."""

    def check(self, value: Any) -> Checked:
        if not isinstance(value, str) or not value.strip():
            return value, f"must be a path relative to the rootdir, not {shown(value)}"
        return value.strip(), None


def did_you_mean(word: str, choices: tuple[str, ...]) -> str:
    """``; did you mean 'x'?`` when ``word`` looks like a misspelt choice, else nothing."""
    same_letters = [choice for choice in choices if choice.lower() == word.lower()]
    close = same_letters or difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""
