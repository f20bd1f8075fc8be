"""The arithmetic of spans and windows: which spans chunking can keep whole, and at what cost.

A blind window of size C, sliding with overlap V, keeps a span of length L
whole with probability min(1, (C - L) / (C - V)): certain when V >= L,
impossible when L > C. Overlap V grows the index by C / (C - V).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .geometry import percentile

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


def analyse(spans: Iterable[SpanFact], geometry: Mapping[str, Any]) -> dict[str, Any]:
    """Span lengths, the ceiling, the overlap to recommend, and predicted vs observed, JSON-safe."""
    facts = list(spans)
    lengths = [fact.length for fact in facts]
    largest = int(geometry.get("size_max") or 0)
    size = int(geometry.get("size_p50") or 0)
    measured = geometry.get("boundaries") and geometry.get("overlap_p50") is not None
    overlap = max(0, int(geometry["overlap_p50"])) if measured else None
    result: dict[str, Any] = {
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
    for name, needed in (("p90", result["length_p90"]), ("all", result["length_max"])):
        if needed < size:
            wanted = max(needed, overlap)
            result[f"recommended_overlap_{name}"] = wanted
            result[f"growth_{name}"] = round(growth(size, wanted) / growth(size, overlap), 3)
    return result


def finding(analysis: Mapping[str, Any]) -> str | None:
    """What a large gap between the predicted and observed kept-whole shares means, if there is one."""
    predicted, observed = analysis.get("predicted_whole"), analysis.get("observed_whole")
    if predicted is None or observed is None or analysis.get("spans", 0) < FEWEST_SPANS:
        return None
    if observed - predicted >= NOTABLE_GAP:
        return "more spans survive than blind windows would keep: boundaries fall on structure (words, sentences, paragraphs)"
    if predicted - observed >= NOTABLE_GAP:
        return "fewer spans survive than blind windows would keep: boundaries cut where spans are; check the effective overlap"
    return None
