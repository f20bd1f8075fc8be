"""The arithmetic of spans and windows: which spans chunking can keep whole, and at what cost.

A blind window of size C, sliding with overlap V, keeps a span of length L
whole with probability min(1, (C - L) / (C - V)): certain when V >= L,
impossible when L > C. Overlap V grows the index by C / (C - V).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

from .geometry import Geometry, percentile

# A gap between predicted and observed shares that is worth a sentence, and the
# fewest spans for which such a gap says anything.
NOTABLE_GAP = 0.10
FEWEST_SPANS = 10


@dataclass(frozen=True)
class SpanFact:
    """One evaluated case as the arithmetic sees it: its span's length and whether it was split."""

    case_id: str
    length: int
    split: bool


class SpanAnalysis(TypedDict):
    """A gold file's spans against its chunk geometry: lengths, the ceiling, what overlap buys."""

    spans: int
    length_p50: int
    length_p90: int
    length_max: int
    largest_chunk: int
    size: int  # the median chunk size C, of the chunks not nested in another
    overlap: int | None  # the median effective overlap V, when boundaries were measured
    longer_than_every_chunk: list[str]  # case ids no overlap can keep whole
    observed_whole: float | None
    predicted_whole: float | None  # the mean of min(1, (C - L) / (C - V)) over span lengths
    recommended_overlap_p90: int | None
    recommended_overlap_all: int | None
    growth_p90: float | None  # index growth the recommended overlap costs, relative to today
    growth_all: float | None


def kept_whole(size: int, overlap: int, length: int) -> float:
    """The share of positions at which a blind window keeps a span of ``length`` whole."""
    if length > size:
        return 0.0
    if overlap >= length or size <= overlap:
        return 1.0
    return max(0.0, min(1.0, (size - length) / (size - overlap)))


def growth(size: int, overlap: int) -> float:
    """Index size with ``overlap`` relative to no overlap: C / (C - V)."""
    return size / (size - overlap) if size > overlap else float("inf")


def analyse(spans: Iterable[SpanFact], geometry: Geometry) -> SpanAnalysis:
    """Span lengths, the ceiling, the overlap to recommend, and predicted vs observed, JSON-safe."""
    facts = list(spans)
    lengths = [fact.length for fact in facts]
    largest = geometry["size_max"]
    # The windows are the chunks boundaries fall between: a parent's children
    # keep no span whole that the parent does not (reports written before
    # nesting was measured have only the median of all chunks).
    size = geometry.get("window_p50", geometry["size_p50"])
    measured = geometry["overlap_p50"]
    overlap = max(0, measured) if geometry["boundaries"] and measured is not None else None
    result: SpanAnalysis = {
        "spans": len(facts),
        "length_p50": percentile(lengths, 0.5),
        "length_p90": percentile(lengths, 0.9),
        "length_max": max(lengths, default=0),
        "largest_chunk": largest,
        "size": size,
        "overlap": overlap,
        "longer_than_every_chunk": [f.case_id for f in facts if largest and f.length > largest],
        "observed_whole": round(sum(not f.split for f in facts) / len(facts), 4) if facts else None,
        "predicted_whole": None,
        "recommended_overlap_p90": None,
        "recommended_overlap_all": None,
        "growth_p90": None,
        "growth_all": None,
    }
    if not facts or not size or overlap is None:
        return result
    result["predicted_whole"] = round(
        sum(kept_whole(size, overlap, n) for n in lengths) / len(lengths), 4
    )
    # An overlap as large as the chunks (nested, small-to-big chunks) leaves no
    # window arithmetic to recommend from: C / (C - V) is infinite there.
    if overlap >= size:
        return result
    if result["length_p90"] < size:
        wanted = max(result["length_p90"], overlap)
        result["recommended_overlap_p90"] = wanted
        result["growth_p90"] = round(growth(size, wanted) / growth(size, overlap), 3)
    if result["length_max"] < size:
        wanted = max(result["length_max"], overlap)
        result["recommended_overlap_all"] = wanted
        result["growth_all"] = round(growth(size, wanted) / growth(size, overlap), 3)
    return result


def finding(analysis: SpanAnalysis) -> str | None:
    """What a large gap between the predicted and observed kept-whole shares means, if there is one."""
    predicted, observed = analysis["predicted_whole"], analysis["observed_whole"]
    if predicted is None or observed is None or analysis["spans"] < FEWEST_SPANS:
        return None
    if observed - predicted >= NOTABLE_GAP:
        return "more spans survive than blind windows would keep: boundaries fall on structure (words, sentences, paragraphs)"
    if predicted - observed >= NOTABLE_GAP:
        return "fewer spans survive than blind windows would keep: boundaries cut where spans are; check the effective overlap"
    return None
