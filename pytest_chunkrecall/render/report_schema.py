"""The JSON report's schema, ``report.schema.json``: generated, never edited by hand.

A case is the case record as its codec writes it, so its part of the schema is
generated from the record's types (:func:`..run.entry.entry_schema`), and the
verdicts and match modes allowed anywhere in the report are those of their one
definition. The rest (the totals, the gold files, the baseline and the paired
comparison) is written here, beside :mod:`.json_report`, which writes those parts.

A test holds the shipped file to :func:`text`. After a change to the record, write it
again::

    python -m pytest_chunkrecall.render.report_schema > pytest_chunkrecall/render/report.schema.json
"""

from __future__ import annotations

import json
from typing import Any, get_args

from ..config.settings import MATCH_MODES
from ..evaluation.verdicts import KINDS
from ..measures.statistics import Decision
from ..run.entry import entry_schema
from ..run.fold import REPORT_FORMAT

WHOLE: dict[str, Any] = {"type": "integer", "minimum": 0}
SHARE: dict[str, Any] = {"$ref": "#/$defs/share"}
NODEIDS: dict[str, Any] = {"$ref": "#/$defs/nodeids"}
TEXTS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


def report_schema() -> dict[str, Any]:
    """The whole schema of a report, as a JSON value."""
    defs: dict[str, Any] = {
        "share": {"type": "number", "minimum": 0, "maximum": 1},
        "nodeids": TEXTS,
        "totals": _totals(),
        "funnel": _funnel(),
        "context": _context(),
        "gold_file": _gold_file(),
        "geometry": _geometry(),
        "spans": _spans(),
        "sweep_row": _sweep_row(),
    }
    defs["case"] = entry_schema(defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pytest-chunkrecall/report.schema.json",
        "title": f"pytest-chunkrecall JSON report, format {REPORT_FORMAT}",
        "description": "Written by --chunkrecall-report. Paths are relative to the rootdir. "
        "Strict JSON: no NaN or infinity. Generated from the case record's types "
        "(pytest_chunkrecall.render.report_schema).",
        "type": "object",
        "required": ["chunkrecall_report", "totals", "gold_files", "cases", "unevaluated"],
        "properties": {
            "chunkrecall_report": {"const": REPORT_FORMAT},
            "totals": {"$ref": "#/$defs/totals"},
            "gold_files": {"type": "array", "items": {"$ref": "#/$defs/gold_file"}},
            "cases": {"type": "array", "items": {"$ref": "#/$defs/case"}},
            "unevaluated": TEXTS,
            **_completeness(),
            "source": _source(),
            "sweep": {
                "type": "object",
                "required": ["spec", "rows"],
                "properties": {
                    "spec": {"type": ["string", "null"]},
                    "rows": {"type": "array", "items": {"$ref": "#/$defs/sweep_row"}},
                    "cheapest": {
                        "type": ["object", "null"],
                        "description": "Of the rows whose hit rate does not differ from the "
                        "best row's (exact two-sided McNemar, Holm), the one with the least "
                        "mean context to the answer.",
                        "properties": {
                            "label": {"type": "string"},
                            "context_to_answer_mean": {"type": "number", "minimum": 0},
                            "best": {"type": "string"},
                            "best_context_to_answer_mean": {"type": ["number", "null"]},
                            "tied": TEXTS,
                            "p_holm": {"oneOf": [{"type": "null"}, SHARE]},
                        },
                    },
                },
            },
            "baseline": _baseline(),
            "comparison": _comparison(),
        },
        "$defs": defs,
    }


def text() -> str:
    """The schema as ``report.schema.json`` holds it."""
    return json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n"


def _completeness() -> dict[str, Any]:
    return {
        "complete": {
            "description": "Whether the run covered every case it selected: false after "
            "Ctrl-C, -x, --maxfail or a crashed worker whose cases never ran (absent in older "
            "reports, which count as whole).",
            "type": "boolean",
        },
        "incomplete": {
            "description": "Why the run is incomplete, and how many selected cases never ran; "
            "only where complete is false.",
            "type": "object",
            "required": ["reason", "not_run"],
            "properties": {"reason": {"type": ["string", "null"]}, "not_run": WHOLE},
        },
        "selection": {
            "description": "What the run selected on purpose (which never makes it "
            "incomplete): how many cases, -k, -m, the paths and node ids named, a pytest-split "
            "group.",
            "type": "object",
            "properties": {
                "cases": WHOLE,
                "keyword": {"type": "string"},
                "markers": {"type": "string"},
                "args": TEXTS,
                "split": {"type": "string"},
            },
        },
    }


def _source() -> dict[str, Any]:
    return {
        "description": "Where the run was made: the plugin's version and the rootdir's git "
        "commit (null outside a git work tree, or where merged shards differ).",
        "type": "object",
        "required": ["version", "commit"],
        "additionalProperties": False,
        "properties": {
            "version": {"type": ["string", "null"]},
            "commit": {"type": ["string", "null"], "pattern": "^[0-9a-f]{40,64}$"},
        },
    }


def _baseline() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["path", "regressions", "improvements", "known_misses", "new", "removed"],
        "properties": {
            "path": {"type": "string"},
            "regressions": NODEIDS,
            "improvements": NODEIDS,
            "known_misses": NODEIDS,
            "new": NODEIDS,
            "stage_changes": NODEIDS,
            "removed": NODEIDS,
            "common_cases": WHOLE,
            "baseline_hits": WHOLE,
            "hits": WHOLE,
            "drop_points": {"type": "number"},
            "gate_failures": TEXTS,
        },
    }


def _comparison() -> dict[str, Any]:
    return {
        "type": "object",
        "required": [
            "cases",
            "regressions",
            "improvements",
            "hit_rate_before",
            "hit_rate_after",
            "delta_points",
            "ci95_points",
            "p_value",
            "decision",
        ],
        "additionalProperties": False,
        "properties": {
            "cases": WHOLE,
            "regressions": WHOLE,
            "improvements": WHOLE,
            "hit_rate_before": SHARE,
            "hit_rate_after": SHARE,
            "delta_points": {"type": "number", "minimum": -100, "maximum": 100},
            "ci95_points": {
                "type": "array",
                "items": {"type": "number"},
                "minItems": 2,
                "maxItems": 2,
            },
            "p_value": SHARE,
            "decision": {"enum": list(get_args(Decision))},
            "context": {
                "type": "object",
                "description": "The mean context_to_answer over the cases hit in both runs, "
                "before and after; change_percent = 100 (after - before) / before; p_value, "
                "the exact two-sided sign test on the per-case differences.",
                "required": ["before", "after", "change_percent", "p_value"],
                "additionalProperties": False,
                "properties": {
                    "cases": WHOLE,
                    "before": {"type": ["number", "null"], "minimum": 0},
                    "after": {"type": ["number", "null"], "minimum": 0},
                    "change_percent": {"type": ["number", "null"]},
                    "p_value": SHARE,
                },
            },
        },
    }


def _totals() -> dict[str, Any]:
    return {
        "type": "object",
        "required": [
            "cases",
            "hits",
            "hit_rate",
            "hit_rate_ci95",
            "mrr",
            "hit_rate_at",
            "split_spans",
            "verdicts",
        ],
        "properties": {
            "cases": WHOLE,
            "hits": WHOLE,
            "hit_rate": SHARE,
            "hit_rate_ci95": {"type": "array", "items": SHARE, "minItems": 2, "maxItems": 2},
            "mrr": SHARE,
            "hit_rate_at": {
                "type": "object",
                "propertyNames": {"pattern": "^[1-9][0-9]*$"},
                "additionalProperties": SHARE,
            },
            "split_spans": WHOLE,
            "pieces_retrieved": WHOLE,
            "verdicts": {
                "type": "object",
                # a stage's verdicts came later: older reports do not count them
                "required": [kind.name for kind in KINDS if not kind.staged],
                "additionalProperties": False,
                "properties": {kind.name: WHOLE for kind in KINDS},
            },
            "funnel": {"$ref": "#/$defs/funnel"},
            "context": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/context"}]},
        },
    }


def _context() -> dict[str, Any]:
    figures = ["unit", "mean", "to_answer_mean", "hits_per_1k"]
    maybe = {"type": ["number", "null"], "minimum": 0}
    return {
        "type": "object",
        "description": "What the answers cost, in unit (chars, or the chunkrecall_length "
        "function's units): mean, the mean context per case (the length of its top-k "
        "chunks); to_answer_mean, the mean length from rank 1 through the hit's rank, over "
        "the hits; hits_per_1k, hits per 1,000 units of context over all cases.",
        "required": figures,
        "additionalProperties": False,
        "properties": {
            "unit": {"type": "string"},
            "mean": maybe,
            "to_answer_mean": maybe,
            "hits_per_1k": maybe,
        },
    }


def _funnel() -> dict[str, Any]:
    steps = ["cases", "loaded", "whole", "candidates", "top_k"]
    return {
        "type": "object",
        "description": "Where recall goes, stage by stage, over the same cases: cases, loaded "
        "(cases - unparsed), whole (loaded - split - absent), candidates (whole - ranked_out), "
        "top_k (candidates - reranked_out, the hits).",
        "required": steps,
        "additionalProperties": False,
        "properties": dict.fromkeys(steps, WHOLE),
    }


def _gold_file() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["path", "chunks", "corpus_chars", "totals"],
        "properties": {
            "path": {"type": "string"},
            "chunks": {"type": ["integer", "null"], "minimum": 0},
            "corpus_chars": {"type": ["integer", "null"], "minimum": 0},
            "error": {"type": "string"},
            "corpus": {"type": "string"},
            "documents": WHOLE,
            "chunker": {"type": "string"},
            "chunker_args": {"type": "object"},
            "retriever": {"type": "string"},
            "retriever_args": {"type": "object"},
            "reranker": {"type": "string"},
            "reranker_args": {"type": "object"},
            "candidates": {"type": "integer", "minimum": 1},
            "k": {"type": "integer", "minimum": 1},
            "match": {"enum": list(MATCH_MODES)},
            "unit": {"type": "string"},
            "geometry": {"$ref": "#/$defs/geometry"},
            "spans": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/spans"}]},
            "totals": {"$ref": "#/$defs/totals"},
        },
    }


def _geometry() -> dict[str, Any]:
    maybe = {"type": ["integer", "null"]}
    return {
        "type": "object",
        "required": [
            "chunks",
            "placed",
            "size_p50",
            "size_max",
            "size_mean",
            "index_multiplier",
            "boundaries",
            "overlap_min",
            "overlap_p50",
            "overlap_max",
            "no_overlap",
            "gaps",
            "configured_overlap",
        ],
        "properties": {
            "chunks": WHOLE,
            "placed": WHOLE,
            "size_p50": {"type": "integer"},
            "size_max": {"type": "integer"},
            "size_mean": {"type": "number"},
            "index_multiplier": {"type": "number", "minimum": 0},
            "boundaries": WHOLE,
            "overlap_min": maybe,
            "overlap_p50": maybe,
            "overlap_max": maybe,
            "no_overlap": WHOLE,
            "gaps": WHOLE,
            "configured_overlap": maybe,
            "nested": WHOLE,
            "window_p50": WHOLE,
        },
    }


def _spans() -> dict[str, Any]:
    share_or_null = {"oneOf": [{"type": "null"}, SHARE]}
    return {
        "type": "object",
        "required": [
            "spans",
            "length_p50",
            "length_p90",
            "length_max",
            "observed_whole",
            "predicted_whole",
        ],
        "properties": {
            "spans": WHOLE,
            "observed_whole": share_or_null,
            "predicted_whole": share_or_null,
            "longer_than_every_chunk": TEXTS,
            "growth_p90": {"type": ["number", "null"]},
            "growth_all": {"type": ["number", "null"]},
        },
    }


def _sweep_row() -> dict[str, Any]:
    return {
        "type": "object",
        "required": [
            "setting",
            "label",
            "chunks",
            "index_multiplier",
            "split_spans",
            "cases",
            "hits",
            "hit_rate",
            "change_points",
            "errors",
        ],
        "properties": {
            "setting": {"type": ["object", "null"]},
            "label": {"type": "string"},
            "hit_rate": SHARE,
            "change_points": {"type": ["number", "null"]},
            "errors": TEXTS,
            "context_mean": {"type": ["number", "null"], "minimum": 0},
            "context_to_answer_mean": {"type": ["number", "null"], "minimum": 0},
        },
    }


if __name__ == "__main__":
    print(text(), end="")
