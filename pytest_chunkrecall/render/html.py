"""The lab: one self-contained HTML page of where the chunks fall and what each question got.

``render_page(data) -> str`` returns the whole page: CSS, script and drawings inline,
nothing fetched. ``data`` is a :class:`PageData`: the run's summary (:mod:`.summary`),
the one model the terminal and the Markdown print too, its case entries as the JSON
report lists them, and the chunked documents::

    [{"id": "docs/a.md", "text": "...", "chunks": [{"index": 3, "start": 0, "end": 320}, ...]}, ...]

``index`` is the chunk's position in its gold file's chunk list (the ``index`` of the
report's chunk ids ``<doc>#<index>``); ``start``/``end`` are character offsets in the
document's text, or ``None`` when they cannot be known. Cases are marked in the text
through their ``span_at`` (``{"doc", "start", "end"}``) and ``cut``; a case without them
is still listed, only not marked.

The page's script reads one JSON value embedded in it, built by :func:`page_model`:
``overview`` (totals, gold files, the hit-rate curve, the funnel, a comparison and the
gate's sentence), ``cases`` (sorted by gold file, line and node id), ``documents`` (text
cut into ``pieces`` ``[start, end, text, chunk ordinals, mark numbers]`` at every chunk
edge, span edge and cut, so the script never does offset arithmetic on text; past
``EXCERPT_ABOVE`` characters, or ``CORPUS_ABOVE`` in all documents, only excerpts around
spans and cuts), ``lab`` (per gold file: chunk size C, effective overlap V, the span
lengths and their statistics, or why offsets are unknown) and ``sweep`` (each row with
its Holm-adjusted p as the terminal's sweep table writes it). Every number the summary
has is the summary's: the script counts and computes no statistic of its own.

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

from ..chunking.geometry import Geometry
from ..evaluation.verdicts import KINDS, STAGE_VERDICTS, VERDICTS
from ..files import MARKER
from .json_report import gold_file_json, paired_json, sweep_json, totals_json
from .lab_documents import CORPUS_ABOVE, EXCERPT_ABOVE, DocumentView, document_view
from .summary import GoldFileSummary, StagedFunnel, Summary
from .terminal import cheapest_line, context_line, holm_cell

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
    """What the page is built from: the run's summary, its case entries (as the JSON report
    lists them) and the chunked documents."""

    summary: Summary
    cases: Sequence[Mapping[str, Any]]
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
    length_p50: int | None
    length_p90: int | None
    observed_whole: float | None
    predicted_whole: float | None
    doc: str | None


def render_page(data: PageData) -> str:
    """The page as one HTML string (the caller writes it, atomically)."""
    summary = data["summary"]
    totals = summary.run.totals
    title = f"chunkrecall lab: hit-rate {totals.hits}/{totals.cases}"
    incomplete = summary.context.incomplete
    banner = ""
    if incomplete is not None:
        title += " (incomplete)"
        # the terminal's sentence, addressed to the page's reader
        said = "This run is incomplete: " + incomplete.removeprefix("the run is incomplete: ")
        banner = f'<p role="alert" class="incomplete">{_escape(said)}</p>\n'
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


def page_model(data: PageData) -> PageModel:
    """The JSON the page's script reads: one entry per view (see the module docstring)."""
    summary = data["summary"]
    cases: list[Mapping[str, Any]] = sorted(
        # a case's share of each sweep row is already added up in the summary's sweep
        ({k: v for k, v in case.items() if k != "sweep"} for case in data["cases"]),
        key=lambda c: (str(c.get("gold_file") or ""), c.get("line") or 0, str(c.get("nodeid"))),
    )
    excerpts = sum(len(doc["text"]) for doc in data["documents"]) > CORPUS_ABOVE
    documents = [
        document_view(doc, cases, excerpts=excerpts)
        for doc in sorted(data["documents"], key=lambda d: d["id"])
    ]
    return {
        "chunkrecall_page": 1,
        "overview": overview(summary),
        "cases": cases,
        "documents": documents,
        "lab": [lab_view(gold, cases, documents) for gold in summary.gold_files],
        "sweep": sweep_view(summary),
        "verdicts": list(VERDICTS),
        "symbols": {kind.name: kind.symbol for kind in KINDS},
        "stage_verdicts": list(STAGE_VERDICTS),
    }


def overview(summary: Summary) -> dict[str, Any]:
    """The overview: the totals, each gold file, the hit-rate curve, the funnel, the
    comparison with the baseline and the gate's sentence, as the summary has them."""
    run, outcome = summary.run, summary.outcome
    found: dict[str, Any] = {
        "totals": totals_json(run.totals, run.funnel),
        "gold_files": [gold_file_json(gold.run) for gold in summary.gold_files],
        "curve": curve(run.totals.hit_rate_at) if run.totals.cases else None,
        "funnel": funnel_view(summary.funnel) if summary.funnel is not None else None,
        "comparison": paired_json(outcome),
        # the gate's sentence as the terminal and the Markdown say it, never reworded here
        "gate": outcome.gate_line,
        # what the answers cost, as the terminal's context line says it
        "context": context_line(summary.cost) if summary.cost is not None else None,
        "unevaluated": list(run.unevaluated),
    }
    if run.unstable_count:  # cases whose repeats (chunkrecall_repeat) differed
        found["unstable"] = [case.nodeid for case in run.unstable]
        found["unstable_count"] = run.unstable_count
    return found


def funnel_view(staged: StagedFunnel) -> dict[str, Any]:
    """The funnel's steps and losses, as the terminal's funnel line says them."""
    return {"steps": [list(step) for step in staged.steps()], "lost": staged.lost()}


def sweep_view(summary: Summary) -> dict[str, Any] | None:
    """The run's sweep, each row with ``p_holm_text``: its evidence as the terminal shows it."""
    sweep = sweep_json(summary.run)
    if sweep is None:
        return None
    cheapest = summary.run.sweep_cheapest
    # the sweep's choice as the terminal says it, never reworded here
    said = (
        cheapest_line(cheapest, unit=summary.run.totals.unit, alpha=summary.context.alpha).strip()
        if cheapest is not None
        else None
    )
    rows = [{**row, "p_holm_text": holm_cell(row)} for row in sweep["rows"]]
    return {**sweep, "rows": rows, "cheapest_text": said}


def curve(hit_rate_at: Mapping[str, float]) -> list[list[float]]:
    """``hit_rate_at`` as ``[[r, share], ...]`` in order of r."""
    return [
        [int(r), float(share)] for r, share in sorted(hit_rate_at.items(), key=lambda i: int(i[0]))
    ]


def lab_view(
    gold: GoldFileSummary, cases: Sequence[Mapping[str, Any]], documents: Sequence[DocumentView]
) -> LabView:
    """C, V and the span lengths of one gold file, or the reason they cannot be drawn.

    The span lengths and their statistics are the summary's, which the terminal prints.
    """
    info = gold.run.info if gold.run.info is not None and "error" not in gold.run.info else None
    spans = gold.run.analysis
    geometry = info["geometry"] if info is not None else None
    unit = info["unit"] if info is not None else "chars"
    reason = _unknown(geometry)
    size, overlap, configured = _window(geometry)
    # the measured band compares offsets with L: only where both are characters
    drawn = {d["id"] for d in documents if d["chunks"]} if unit == "chars" else set()
    mine = [case for case in cases if case.get("gold_file") == gold.path]
    docs = [c["span_at"]["doc"] for c in mine if isinstance(c.get("span_at"), Mapping)]
    return {
        "gold_file": gold.path,
        "unit": unit,
        "known": reason is None,
        "reason": reason,
        "size": size,
        "overlap": overlap,
        "configured": configured,
        "lengths": list(gold.span_lengths),
        "length_p50": spans["length_p50"] if spans is not None else None,
        "length_p90": spans["length_p90"] if spans is not None else None,
        "observed_whole": spans["observed_whole"] if spans is not None else None,
        "predicted_whole": spans["predicted_whole"] if spans is not None else None,
        "doc": next((d for d in docs if d in drawn), None),
    }


def _window(geometry: Geometry | None) -> tuple[int | None, int | None, int | None]:
    """The measured chunk size C, effective overlap V (never below 0) and configured overlap."""
    if geometry is None:
        return None, None, None
    # C is the size of the chunks boundaries fall between, as the span arithmetic has it
    size = geometry.get("window_p50", geometry["size_p50"])
    overlap = geometry["overlap_p50"]
    return size, max(0, overlap) if overlap is not None else None, geometry["configured_overlap"]


def _unknown(geometry: Geometry | None) -> str | None:
    """Why a gold file's geometry cannot be drawn, or ``None``: it can."""
    if geometry is None or not geometry["placed"]:
        return (
            "Chunk offsets are unknown: the chunker gives no start offsets and its chunk "
            "text could not be found in the documents, so there is nothing to draw."
        )
    size = geometry.get("window_p50", geometry["size_p50"])
    if not size or geometry["overlap_p50"] is None:
        return "No chunk boundary to measure an overlap at: every document is a single chunk."
    return None


def _asset(name: str) -> str:
    source = (_ASSETS / name).read_text(encoding="utf-8")
    # an asset is trusted, but a stray closing tag in it would still end its element early
    return source.replace("</", "<\\/")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
