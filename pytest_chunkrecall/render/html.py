"""The lab: one self-contained HTML page of where the chunks fall and what each question got.

``render_page(data) -> str`` returns the whole page: CSS, script and drawings inline,
nothing fetched. ``data`` is a :class:`PageData`::

    {"report": <the JSON report, as --chunkrecall-report writes it>,
     "documents": [{"id": "docs/a.md", "text": "...",
                    "chunks": [{"index": 3, "start": 0, "end": 320}, ...]}, ...]}

``index`` is the chunk's position in its gold file's chunk list (the ``index`` of the
report's chunk ids ``<doc>#<index>``); ``start``/``end`` are character offsets in the
document's text, or ``None`` when they cannot be known. Cases are marked in the text
through their ``span_at`` (``{"doc", "start", "end"}``) and ``cut``; a case without them
is still listed, only not marked.

The page's script reads one JSON value embedded in it, built by :func:`page_model`:
``overview`` (totals, gold files, the hit-rate curve, a comparison and the gate's sentence), ``cases`` (sorted by
gold file, line and node id), ``documents`` (text cut into ``pieces`` ``[start, end,
text, chunk ordinals, mark numbers]`` at every chunk edge, span edge and cut, so the
script never does offset arithmetic on text; past ``EXCERPT_ABOVE`` characters, or
``CORPUS_ABOVE`` in all documents, only excerpts around spans and cuts), ``lab`` (per gold file: chunk size C, effective overlap
V, span lengths, or why offsets are unknown) and ``sweep`` (the report's, each row with
its Holm-adjusted p as the terminal's sweep table writes it). Every value is optional in the
report: what is missing is left out of the page, not guessed.

Hooks for tests and scripts: each case's element has ``data-case="<node id>"`` and
``data-verdict``; each drawn chunk window has ``data-chunk="<doc>#<index>"``; the body
has ``data-ready="1"`` once the views are built.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, TypedDict

from ..evaluation.verdicts import KINDS, LOSSES, STAGE_VERDICTS, VERDICTS
from ..files import MARKER
from .lab_documents import CORPUS_ABOVE, EXCERPT_ABOVE, DocumentView, document_view
from .terminal import holm_cell

__all__ = ["CORPUS_ABOVE", "EXCERPT_ABOVE", "PageData", "embed_json", "page_model", "render_page"]

_ASSETS = resources.files(__package__ or "pytest_chunkrecall.render")
# What cannot stand inside a <script> element, or a JavaScript string, as itself; and
# lone surrogates (text that is not valid Unicode, as a file name of undecodable bytes
# gives), which only a JSON string can hold, as their escapes.
_UNSAFE = re.compile("[<>&\u2028\u2029\ud800-\udfff]")


class ChunkWindow(TypedDict):
    """One chunk of a document: its index and character offsets (``None`` when unknown)."""

    index: int
    start: int | None
    end: int | None


class DocumentData(TypedDict):
    """A corpus document: its id (as in the report's ``doc``), its text and its chunks."""

    id: str
    text: str
    chunks: list[ChunkWindow]


class PageData(TypedDict):
    """What the page is built from: the JSON report and the chunked documents."""

    report: Mapping[str, Any]
    documents: list[DocumentData]


class LabView(TypedDict):
    """One gold file's geometry, for the lab's band and curves."""

    gold_file: str
    unit: str
    known: bool
    reason: str | None
    size: int | None
    overlap: int | None
    configured: int | None
    lengths: list[int]
    observed_whole: float | None
    predicted_whole: float | None
    doc: str | None


def render_page(data: PageData) -> str:
    """The page as one HTML string (the caller writes it, atomically)."""
    report = data["report"]
    totals = report.get("totals") or {}
    title = f"chunkrecall lab: hit-rate {totals.get('hits', 0)}/{totals.get('cases', 0)}"
    incomplete = report.get("incomplete") if report.get("complete") is False else None
    banner = ""
    if isinstance(incomplete, Mapping):
        title += " (incomplete)"
        reason = f"{incomplete.get('reason')}; {incomplete.get('not_run')} selected cases never ran"
        banner = (
            f'<p role="alert" class="incomplete">This run is incomplete: {_escape(reason)}</p>\n'
        )
    return (
        "<!DOCTYPE html>\n"
        f"{MARKER}\n"  # a later run replaces this file only if it finds the marker
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{_escape(title)}</title>\n<style>{_asset('lab.css')}{verdict_colours()}</style>\n"
        "</head>\n"
        f"<body>{banner}<noscript>This page draws its views with JavaScript.</noscript>\n"
        f'<script type="application/json" id="lab-data">{embed_json(page_model(data))}</script>\n'
        f"<script>{_asset('lab.js')}</script>\n</body></html>\n"
    )


def verdict_colours() -> str:
    """The stylesheet's rules that colour each verdict's badge and case, from its member of
    :data:`..evaluation.verdicts.KINDS`."""
    return "".join(
        f".verdict.{kind.name} {{ background: {kind.colour}; }}\n"
        f'article.case[data-verdict="{kind.name}"] {{ border-left-color: {kind.colour}; }}\n'
        for kind in KINDS
    )


def embed_json(value: object) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element and as JavaScript source."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _UNSAFE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


class PageModel(TypedDict):
    """The JSON embedded in the page, one entry per view."""

    chunkrecall_page: int
    overview: dict[str, Any]
    cases: list[Mapping[str, Any]]
    documents: list[DocumentView]
    lab: list[LabView]
    sweep: dict[str, Any] | None
    verdicts: list[str]  # every verdict, in the report's order
    symbols: dict[str, str]  # each verdict's mark
    stage_verdicts: list[str]  # those only a loader's or a reranker's run gives
    losses: list[str]  # the verdicts of a miss, in the order of the stages that lose them


def page_model(data: PageData) -> PageModel:
    """The JSON the page's script reads: one entry per view (see the module docstring)."""
    report = data["report"]
    cases: list[Mapping[str, Any]] = sorted(
        # a case's share of each sweep row is already added up in the report's sweep
        ({k: v for k, v in case.items() if k != "sweep"} for case in report.get("cases") or []),
        key=lambda c: (str(c.get("gold_file") or ""), c.get("line") or 0, str(c.get("nodeid"))),
    )
    excerpts = sum(len(doc["text"]) for doc in data["documents"]) > CORPUS_ABOVE
    documents = [
        document_view(doc, cases, excerpts=excerpts)
        for doc in sorted(data["documents"], key=lambda d: d["id"])
    ]
    overview: dict[str, Any] = {
        "totals": report.get("totals") or {},
        "gold_files": list(report.get("gold_files") or []),
        "curve": curve((report.get("totals") or {}).get("hit_rate_at")),
        "comparison": report.get("comparison"),
        # the gate's sentence as the terminal and the Markdown say it, never reworded here
        "gate": (report.get("baseline") or {}).get("gate"),
        "unevaluated": report.get("unevaluated") or [],
    }
    unstable = [case["nodeid"] for case in cases if case.get("unstable")]
    if unstable:  # cases whose repeats (chunkrecall_repeat) differed, each at its worst
        overview["unstable"] = unstable
    return {
        "chunkrecall_page": 1,
        "overview": overview,
        "cases": cases,
        "documents": documents,
        "lab": [lab_view(gold, cases, documents) for gold in report.get("gold_files") or []],
        "sweep": sweep_view(report.get("sweep")),
        "verdicts": list(VERDICTS),
        "symbols": {kind.name: kind.symbol for kind in KINDS},
        "stage_verdicts": list(STAGE_VERDICTS),
        "losses": list(LOSSES),
    }


def sweep_view(sweep: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The report's sweep, each row with ``p_holm_text``: its evidence as the terminal shows it."""
    if not sweep:
        return None
    rows = [{**row, "p_holm_text": holm_cell(row)} for row in sweep.get("rows") or []]
    return {**sweep, "rows": rows}


def curve(hit_rate_at: Mapping[str, float] | None) -> list[list[float]] | None:
    """``hit_rate_at`` as ``[[r, share], ...]`` in order of r, or ``None`` when absent."""
    if not hit_rate_at:
        return None
    return [
        [int(r), float(share)] for r, share in sorted(hit_rate_at.items(), key=lambda i: int(i[0]))
    ]


def lab_view(
    gold: Mapping[str, Any], cases: Sequence[Mapping[str, Any]], documents: Sequence[DocumentView]
) -> LabView:
    """C, V and the span lengths of one gold file, or the reason they cannot be drawn."""
    path = str(gold.get("path") or "")
    geometry = gold.get("geometry") or {}
    spans = gold.get("spans") or {}
    mine = [case for case in cases if case.get("gold_file") == path]
    lengths = gold.get("span_lengths")
    if lengths is None:
        lengths = [c["span_length"] for c in mine if isinstance(c.get("span_length"), int)]
    # C is the size of the chunks boundaries fall between, as the span arithmetic has it
    size = geometry.get("window_p50", geometry.get("size_p50"))
    overlap = geometry.get("overlap_p50")
    reason = None
    if not geometry.get("placed"):
        reason = (
            "Chunk offsets are unknown: the chunker gives no start offsets and its chunk "
            "text could not be found in the documents, so there is nothing to draw."
        )
    elif not size or overlap is None:
        reason = "No chunk boundary to measure an overlap at: every document is a single chunk."
    # the measured band compares offsets with L: only where both are characters
    drawn = (
        {d["id"] for d in documents if d["chunks"]}
        if gold.get("unit", "chars") == "chars"
        else set()
    )
    docs = [c["span_at"]["doc"] for c in mine if isinstance(c.get("span_at"), Mapping)]
    return {
        "gold_file": path,
        "unit": str(gold.get("unit") or "chars"),
        "known": reason is None,
        "reason": reason,
        "size": size,
        "overlap": max(0, int(overlap)) if overlap is not None else None,
        "configured": geometry.get("configured_overlap"),
        "lengths": sorted(int(n) for n in lengths),
        "observed_whole": spans.get("observed_whole"),
        "predicted_whole": spans.get("predicted_whole"),
        "doc": next((d for d in docs if d in drawn), None),
    }


def _asset(name: str) -> str:
    source = (_ASSETS / name).read_text(encoding="utf-8")
    # an asset is trusted, but a stray closing tag in it would still end its element early
    return source.replace("</", "<\\/")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
