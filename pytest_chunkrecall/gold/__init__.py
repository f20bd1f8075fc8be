"""Gold files: YAML read into validated values that remember their source lines."""

from ..errors import GoldError
from .reading import load, parse
from .values import (
    CASE_KEYS,
    FILE_KEYS,
    Alternative,
    Case,
    Filter,
    GoldFile,
    Span,
    SpanRange,
    slug,
)

__all__ = [
    "CASE_KEYS",
    "FILE_KEYS",
    "Alternative",
    "Case",
    "Filter",
    "GoldError",
    "GoldFile",
    "Span",
    "SpanRange",
    "load",
    "parse",
    "slug",
]
