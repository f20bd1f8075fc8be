"""The lab page's embedded data, view by view, checked in Python against a real run."""

from __future__ import annotations

import copy
import json
import random
import re
import time
from typing import Any

import pytest

from pytest_chunkrecall.evaluation.verdicts import KINDS, VERDICTS
from pytest_chunkrecall.render import html
from pytest_chunkrecall.render.html import (
    EXCERPT_ABOVE,
    PageData,
    embed_json,
    page_model,
    render_page,
)
from pytest_chunkrecall.render.terminal import holm_cell

from .html_pages import SHARED_DATA, Run, example_page, page_of, pubmed_page

SPLIT_CASE = "gold/service.yaml::alaska-hawaii-surcharge"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return example_page(
        tmp_path_factory.mktemp("example"), "--chunkrecall-sweep", "overlap=0,32,64"
    )


@pytest.fixture(scope="module")
def model(example: Run) -> dict[str, Any]:
    return embedded(render_page(page_of(example)))


def embedded(page: str) -> dict[str, Any]:
    """The JSON the page's script reads, taken back out of the page."""
    found = re.search(r'<script type="application/json" id="lab-data">(.*?)</script>', page, re.S)
    assert found, "no embedded data"
    value: dict[str, Any] = json.loads(found.group(1))
    return value


def test_overview_has_the_report_totals_and_gold_files(example, model):
    report = example["report"]
    assert model["overview"]["totals"] == report["totals"]
    assert [g["path"] for g in model["overview"]["gold_files"]] == [
        g["path"] for g in report["gold_files"]
    ]
    assert (
        sum(g["totals"]["cases"] for g in model["overview"]["gold_files"])
        == report["totals"]["cases"]
    )


def test_hit_rate_curve_is_the_reports_hit_rate_at_in_rank_order(example, model):
    assert model["overview"]["curve"] == [
        [int(r), share]
        for r, share in sorted(
            example["report"]["totals"]["hit_rate_at"].items(), key=lambda i: int(i[0])
        )
    ]


def test_cases_are_sorted_whatever_the_report_order(example, model):
    shuffled = copy.deepcopy(example)
    random.Random(7).shuffle(shuffled["report"]["cases"])  # type: ignore[arg-type]
    assert [c["nodeid"] for c in page_model(page_of(shuffled))["cases"]] == [
        c["nodeid"] for c in model["cases"]
    ]
    keys = [(c["gold_file"], c["line"]) for c in model["cases"]]
    assert keys == sorted(keys)
    assert {c["nodeid"] for c in model["cases"]} == {
        c["nodeid"] for c in example["report"]["cases"]
    }


def test_pieces_tile_each_document_and_know_their_chunks_and_spans(example, model):
    texts = {d["id"]: d for d in example["documents"]}
    for doc in model["documents"]:
        source = texts[doc["id"]]
        assert not doc["excerpted"]
        assert "".join(p[2] for p in doc["pieces"]) == source["text"]
        assert [p[0] for p in doc["pieces"][1:]] == [p[1] for p in doc["pieces"][:-1]]
        windows = doc["chunks"]
        assert sorted(w[0] for w in windows) == sorted(c["index"] for c in source["chunks"])
        for start, end, _, cover, inside in doc["pieces"]:
            # against a literal scan of every window and every mark
            assert cover == [n for n, (_, a, b) in enumerate(windows) if a <= start and end <= b]
            marks = doc["marks"]
            assert inside == [
                n for n, m in enumerate(marks) if m["start"] <= start and end <= m["end"]
            ]


def test_every_located_span_is_marked_once_in_its_document(example, model):
    marks = {m["case"]: (d["id"], m) for d in model["documents"] for m in d["marks"]}
    located = [c for c in example["report"]["cases"] if c.get("span_at")]
    assert len(located) >= 50
    for case in located:
        doc, mark = marks[case["nodeid"]]
        at = case["span_at"]
        assert (doc, mark["start"], mark["end"]) == (at["doc"], at["start"], at["end"])
        assert mark["split"] is case["span_split"]
    assert sum(len(d["marks"]) for d in model["documents"]) == len(located)


def test_a_split_span_is_marked_with_its_cut_inside_it(model):
    (mark,) = [m for d in model["documents"] for m in d["marks"] if m["case"] == SPLIT_CASE]
    assert mark["split"] is True
    assert mark["start"] < mark["cut"] < mark["end"]
    (doc,) = [d for d in model["documents"] if any(m["case"] == SPLIT_CASE for m in d["marks"])]
    assert mark["cut"] in {p[0] for p in doc["pieces"]}, "the cut is a piece boundary"


def test_lab_has_measured_size_overlap_and_span_lengths(example, model):
    for lab, gold in zip(model["lab"], example["report"]["gold_files"], strict=True):
        assert lab["known"] is True and lab["reason"] is None
        assert (lab["size"], lab["overlap"]) == (
            gold["geometry"]["size_p50"],
            gold["geometry"]["overlap_p50"],
        )
        assert lab["configured"] == gold["geometry"]["configured_overlap"]
        mine = [
            c["span_length"]
            for c in example["report"]["cases"]
            if c["gold_file"] == gold["path"] and c["verdict"] not in (None, "absent", "unparsed")
        ]
        assert lab["lengths"] == sorted(mine)
        assert len(mine) == gold["spans"]["spans"]
        assert (lab["length_p50"], lab["length_p90"]) == (
            gold["spans"]["length_p50"],
            gold["spans"]["length_p90"],
        )
        assert lab["observed_whole"] == gold["spans"]["observed_whole"]
        assert lab["predicted_whole"] == gold["spans"]["predicted_whole"]
        assert lab["doc"] in {d["id"] for d in model["documents"]}


def test_lab_says_when_offsets_are_unknown(example):
    data = copy.deepcopy(example)
    data["report"]["gold_files"][1]["geometry"]["placed"] = 0
    lab = page_model(page_of(data))["lab"]
    assert lab[0]["known"] is True
    assert lab[1]["known"] is False and "offsets are unknown" in lab[1]["reason"]


def test_sweep_rows_are_passed_to_the_page_with_the_terminals_holm_cell(example, model):
    sweep = example["report"]["sweep"]
    said = ("rows", "cheapest_text")  # what the page adds: the terminal's words
    assert {k: v for k, v in model["sweep"].items() if k not in said} == {
        k: v for k, v in sweep.items() if k != "rows"
    }
    assert model["sweep"]["cheapest_text"].startswith(
        f"least context: {sweep['cheapest']['label']} ("
    )
    shown = [row["p_holm_text"] for row in model["sweep"]["rows"]]
    assert [
        {k: v for k, v in row.items() if k != "p_holm_text"} for row in model["sweep"]["rows"]
    ] == sweep["rows"]
    assert shown == [holm_cell(row) for row in sweep["rows"]]
    assert shown[0] == "" and all(
        re.fullmatch(r"(<0\.001|[01]\.\d{3})( \*)?", s) for s in shown[1:]
    )
    assert [r["label"] for r in model["sweep"]["rows"]][1:] == [
        "overlap=0",
        "overlap=32",
        "overlap=64",
    ]


def test_embedded_json_cannot_end_its_script_or_break_javascript():
    hostile = "</script><script>alert(1)</script> <!-- & \u2028\u2029 \U0001d518 >"
    text = embed_json({"text": hostile})
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(text) == {"text": hostile}


def test_the_page_fetches_nothing(model, example):
    page = render_page(page_of(example))
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page and "url(http" not in page
    assert "default-src 'none'" in page


def shown_ranges(doc: dict[str, Any]) -> list[list[int]]:
    """The stretches of text a document view keeps, its contiguous pieces joined."""
    ranges: list[list[int]] = []
    for start, end, *_ in doc["pieces"]:
        if ranges and ranges[-1][1] == start:
            ranges[-1][1] = end
        else:
            ranges.append([start, end])
    return ranges


def test_a_large_corpus_is_shown_as_excerpts_in_every_document(example, monkeypatch):
    corpus = sum(len(d["text"]) for d in example["documents"])
    monkeypatch.setattr(html, "CORPUS_ABOVE", corpus - 1)
    texts = {d["id"]: d["text"] for d in example["documents"]}
    model = page_model(page_of(example))
    assert all(doc["excerpted"] for doc in model["documents"])
    assert sum(p[1] - p[0] for d in model["documents"] for p in d["pieces"]) < corpus
    for doc in model["documents"]:
        ranges = shown_ranges(doc)
        for mark in doc["marks"]:
            assert any(a <= mark["start"] and mark["end"] <= b for a, b in ranges), mark
        for start, end, text, *_ in doc["pieces"]:
            assert texts[doc["id"]][start:end] == text
    assert (
        sum(len(d["chunks"]) for d in model["documents"])
        == example["report"]["gold_files"][0]["chunks"]
    )


def test_a_run_without_cases_and_odd_case_values_still_makes_a_page():
    bare: PageData = page_of({"report": {"chunkrecall_report": 1, "cases": []}, "documents": []})
    model = page_model(bare)
    assert model["cases"] == [] and model["lab"] == [] and model["sweep"] is None
    assert model["overview"]["curve"] is None and model["overview"]["funnel"] is None
    odd = {"nodeid": "g.yaml::a", "span_at": {"doc": "d", "start": None}, "cut": {"doc": "d"}}
    data: PageData = {
        **bare,
        "cases": [odd],
        "documents": [
            {"id": "d", "text": "some text", "chunks": [{"index": 0, "start": None, "end": None}]}
        ],
    }
    (doc,) = page_model(data)["documents"]
    assert doc["marks"] == [] and doc["unplaced"] == [0] and doc["chunks"] == []
    assert "data-ready" in render_page(data)


def test_a_large_document_is_shown_as_excerpts_around_its_spans_and_cuts(tmp_path):
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    data = pubmed_page(tmp_path)
    started = time.perf_counter()
    page = render_page(page_of(data))
    took = time.perf_counter() - started
    (doc,) = embedded(page)["documents"]
    (source,) = data["documents"]
    assert len(source["text"]) > EXCERPT_ABOVE and doc["excerpted"]
    for start, end, text, _, _ in doc["pieces"]:
        assert source["text"][start:end] == text
    shown = sum(p[1] - p[0] for p in doc["pieces"])
    assert shown < len(source["text"]) / 2
    ranges = shown_ranges(doc)
    for mark in doc["marks"]:
        assert any(a <= mark["start"] and mark["end"] <= b for a, b in ranges), mark
    assert len(doc["chunks"]) == len(source["chunks"]), "the strip keeps the full chunk map"
    assert len(page.encode()) < 6_000_000
    assert took < 5, f"rendering took {took:.1f} s"


def test_the_page_marks_each_verdict_as_its_member_says(example, model):
    """Colours and marks come from the verdicts' one definition."""
    page = render_page(page_of(example))
    for kind in KINDS:
        assert f".verdict.{kind.name} {{ background: {kind.colour}; }}" in page
        assert model["symbols"][kind.name] == kind.symbol
    assert model["verdicts"] == list(VERDICTS)
    assert model["stage_verdicts"] == ["unparsed", "reranked_out", "leaked"]
