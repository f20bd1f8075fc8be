"""Parent-and-children ("small-to-big") chunkers: chunks nested inside earlier ones are placed,
make no boundary, and a span a parent holds whole is a hit when the parent comes back."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.chunking.geometry import Geometry, measure
from pytest_chunkrecall.chunking.placement import place
from pytest_chunkrecall.chunking.survival import SpanFact, analyse
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.chunk_map import ChunkMap
from pytest_chunkrecall.text.folding import fold_text

from .conftest import POLICIES

Interval = tuple[int, int]


def windows(start: int, end: int, size: int) -> list[Interval]:
    return [(s, min(s + size, end)) for s in range(start, end, size)]


def interleaved(length: int, parent: int, child: int) -> list[Interval]:
    """Each parent, then its children (the first sharing the parent's start)."""
    found = []
    for p_start, p_end in windows(0, length, parent):
        found += [(p_start, p_end), *windows(p_start, p_end, child)]
    return found


def by_level(length: int, parent: int, child: int) -> list[Interval]:
    """Every parent, then every child (LlamaIndex's HierarchicalNodeParser's order)."""
    parents = windows(0, length, parent)
    return parents + [c for p in parents for c in windows(*p, child)]


def placed(text: str, intervals: list[Interval]) -> list[Interval | None]:
    return place(text, [(text[s:e], None) for s, e in intervals])


def chunks_at(text: str, intervals: list[Interval]) -> list[Chunk]:
    return [Chunk(text[s:e], "d", i, s, e) for i, (s, e) in enumerate(intervals)]


# ------------------------------------------------------------- placement


def test_a_child_that_shares_its_parents_start_is_placed_there():
    intervals = interleaved(len(POLICIES), 200, 50)
    assert placed(POLICIES, intervals) == intervals


def test_children_given_after_every_parent_are_placed():
    intervals = by_level(len(POLICIES), 200, 50)
    assert placed(POLICIES, intervals) == intervals


def test_a_leaf_as_long_as_its_parent_is_placed_on_it():
    # A last parent too short to split has one child: itself.
    text = POLICIES[:230]
    intervals = [(0, 200), (0, 100), (100, 200), (200, 230), (200, 230)]
    assert placed(text, intervals) == intervals


def test_the_same_text_again_is_still_placed_where_it_next_occurs():
    # An ordinary chunker over repeated paragraphs: the second chunk is not a child.
    text = "Returns are free.\n\nReturns are free.\n\nShipping is 5 euros."
    pieces = [(t, None) for t in text.split("\n\n")]
    assert place(text, pieces) == [(0, 17), (19, 36), (38, 58)]


def test_a_chunk_at_its_predecessors_start_that_reaches_past_it_is_no_child():
    # Periodic text: the next window's text is also at the previous one's start.
    text = "ab " * 4
    assert placed(text, [(0, 3), (3, 9)]) == [(0, 3), (3, 9)]


# -------------------------------------------------------------- geometry


def test_nested_chunks_make_no_boundary_and_no_overlap():
    intervals = interleaved(len(POLICIES), 200, 50)
    geometry = measure([Document("d", POLICIES)], chunks_at(POLICIES, intervals))
    parents = windows(0, len(POLICIES), 200)
    assert geometry["boundaries"] == len(parents) - 1
    assert geometry["overlap_min"] == geometry["overlap_max"] == 0
    assert geometry["no_overlap"] == len(parents) - 1
    assert geometry["gaps"] == 0
    assert geometry["nested"] == len(intervals) - len(parents)
    assert geometry["window_p50"] == 200  # the parents': the windows boundaries fall between


def test_overlapping_parents_are_measured_against_each_other_not_their_children():
    text = POLICIES[:300]
    intervals = [(0, 120), (0, 60), (60, 120), (100, 220), (100, 160), (160, 220), (200, 300)]
    geometry = measure([Document("d", text)], chunks_at(text, intervals))
    assert geometry["boundaries"] == 2
    assert geometry["overlap_min"] == geometry["overlap_max"] == 20


def test_a_span_a_parent_holds_is_whole_and_one_no_chunk_holds_is_cut_at_the_parents_end():
    intervals = interleaved(len(POLICIES), 200, 50)
    chunk_map = ChunkMap(chunks_at(POLICIES, intervals))
    across_children = chunk_map.holder("d", 40, 60)
    assert across_children is not None and (across_children.start, across_children.end) == (0, 200)
    assert chunk_map.holder("d", 190, 210) is None
    cut = chunk_map.cut("d", 190, 210)
    assert cut is not None and cut.offset == 200
    assert cut.left is not None and (cut.left.start, cut.left.end) == (0, 200)
    assert cut.right is not None and cut.right.start == 200


def _all_finite(values: dict[str, object]) -> bool:
    return all(not isinstance(v, float) or math.isfinite(v) for v in values.values())


def test_the_span_arithmetic_on_nested_chunks_is_finite_and_strict_json():
    intervals = interleaved(len(POLICIES), 200, 50)
    geometry = measure([Document("d", POLICIES)], chunks_at(POLICIES, intervals))
    analysis = analyse([SpanFact(f"s{n}", n, n > 40) for n in range(5, 80, 5)], geometry)
    assert _all_finite(dict(analysis))
    json.dumps(analysis, allow_nan=False)
    assert analysis["overlap"] == 0
    assert analysis["recommended_overlap_p90"] is not None


GEOMETRY_NUMBERS = st.integers(-50, 500)


@given(
    size=st.integers(0, 400),
    largest=st.integers(0, 400),
    overlap=st.one_of(st.none(), GEOMETRY_NUMBERS),
    boundaries=st.integers(0, 5),
    lengths=st.lists(st.integers(0, 600), max_size=12),
)
def test_the_span_arithmetic_is_finite_or_null_for_any_geometry(
    size, largest, overlap, boundaries, lengths
):
    geometry: Geometry = {
        "chunks": 10, "placed": 10, "size_p50": size, "size_max": max(size, largest),
        "size_mean": float(size), "index_multiplier": 1.0, "boundaries": boundaries,
        "overlap_min": overlap, "overlap_p50": overlap, "overlap_max": overlap,
        "no_overlap": 0, "gaps": 0, "configured_overlap": None,
    }  # fmt: skip
    facts = [SpanFact(f"s{i}", n, i % 2 == 0) for i, n in enumerate(lengths)]
    analysis = analyse(facts, geometry)
    assert _all_finite(dict(analysis))
    json.dumps(analysis, allow_nan=False)


# -------------------------------------------- against a brute-force oracle


@st.composite
def nested_chunkings(draw: st.DrawFn) -> tuple[str, list[Interval]]:
    """A document and the slices of a parent-and-children chunker, in one of its orders.

    Parents are windows of drawn sizes with a drawn overlap; each parent's
    children are its pieces between drawn cuts, also overlapping by a drawn
    amount. Words drawn from a few make text that repeats.
    """
    words = draw(st.lists(st.sampled_from(["ab", "ba", "abc", "c", "refund", "30"]), min_size=1))
    text = " ".join(words)
    parents: list[Interval] = []
    start = 0
    while True:
        end = min(len(text), start + draw(st.integers(1, 40)))
        parents.append((start, end))
        if end == len(text):
            break
        start = end - draw(st.integers(0, end - start - 1))
    children: dict[Interval, list[Interval]] = {}
    for p_start, p_end in parents:
        cuts = draw(st.lists(st.integers(p_start + 1, p_end), unique=True, max_size=4))
        edges = [p_start, *sorted(c for c in cuts if c < p_end), p_end]
        back = draw(st.integers(0, 3))
        children[(p_start, p_end)] = [
            (max(p_start, a - back) if i else a, b)
            for i, (a, b) in enumerate(itertools.pairwise(edges))
        ]
    order = draw(st.sampled_from(["parents only", "interleaved", "by level"]))
    if order == "parents only":
        return text, parents
    if order == "interleaved":
        return text, [c for p in parents for c in (p, *children[p])]
    return text, parents + [c for p in parents for c in children[p]]


def outermost(intervals: list[Interval]) -> list[Interval]:
    """The chunks no other chunk holds (one of each set of equal ones), by a literal scan."""
    distinct = sorted(set(intervals))
    return [
        (s, e)
        for s, e in distinct
        if not any(o != (s, e) and o[0] <= s and e <= o[1] for o in distinct)
    ]


@given(nested_chunkings())
def test_placement_and_boundaries_agree_with_a_brute_force_scan(chunking):
    text, intervals = chunking
    where = placed(text, intervals)
    for (start, end), found in zip(intervals, where, strict=True):
        assert found is not None, f"{text[start:end]!r} at {start} not placed"
        # the slice's own offsets, or text equal to it as the match modes see it
        assert fold_text(text[found[0] : found[1]]) == fold_text(text[start:end])
    spots = [w for w in where if w is not None]
    geometry = measure([Document("d", text)], chunks_at(text, spots))
    outer = outermost(spots)
    assert geometry["boundaries"] == len(outer) - 1
    assert geometry["nested"] == len(spots) - len(outer)
    shares = []
    for (_, end), (start, _) in itertools.pairwise(outer):
        gap = text[end:start]
        shares.append(end - start if end >= start else -len(gap) if gap.strip() else 0)
    assert geometry["no_overlap"] == sum(1 for v in shares if v <= 0)
    assert geometry["gaps"] == sum(1 for v in shares if v < 0)
    assert geometry["overlap_max"] == max(shares, default=None)


# ------------------------------------------------------- what users see

SMALL_TO_BIG = '''
import re


def chunk(text, parent, child):
    """Each parent window, then the child windows inside it."""
    chunks = []
    for start in range(0, len(text), parent):
        end = min(start + parent, len(text))
        chunks.append(text[start:end])
        chunks += [text[s : min(s + child, end)] for s in range(start, end, child)]
    return chunks


def _words(text):
    return set(re.findall(r"\\w+", text.lower()))


def parents(chunks):
    """Small-to-big retrieval: rank every chunk by the question's words, return their parents."""

    def parent_of(chunk):
        holding = [
            c for c in chunks
            if c.doc == chunk.doc and None not in (c.start, chunk.start)
            and c.start <= chunk.start and chunk.end <= c.end
        ]
        return max(holding, key=lambda c: c.end - c.start, default=chunk)

    def search(question, k):
        wanted = _words(question)
        found = []
        for c in sorted(chunks, key=lambda c: (-len(wanted & _words(c.text)), c.index)):
            if parent_of(c) not in found:
                found.append(parent_of(c))
        return found[:k]

    return search
'''

NESTED_GOLD = """\
corpus: ../docs/*.md
CHUNKER
retriever: small_to_big:parents
k: 1
cases:
  - id: refund-window
    question: What is the refund window after delivery?
    span: The refund window is 30 days from the delivery date
    needle: 30 days
  - id: express
    question: How long does express shipping take?
    span: Express shipping takes 2 business days
    needle: 2 business days
  - id: restocking
    question: What is the restocking fee?
    span: A restocking fee of 15 percent
    needle: 15 percent
  - id: customs
    question: How much is customs clearance?
    needle: 9 dollars
    span: {from: Customs clearance, to: 9 dollars}
"""


def nested_project(pytester: pytest.Pytester, chunker: str) -> pytest.Pytester:
    pytester.makeini("[pytest]\npythonpath = .\n")
    pytester.makepyfile(small_to_big=SMALL_TO_BIG)
    pytester.mkdir("docs")
    pytester.path.joinpath("docs", "policies.md").write_text(POLICIES)
    pytester.mkdir("gold")
    pytester.path.joinpath("gold", "policies.yaml").write_text(
        NESTED_GOLD.replace("CHUNKER", chunker)
    )
    return pytester


@pytest.mark.parametrize(
    "workers",
    [
        pytest.param((), id="one process"),
        pytest.param(("-n", "2"), id="xdist", marks=pytest.mark.slow),
    ],
)
def test_a_small_to_big_chunker_is_placed_measured_and_judged(
    pytester: pytest.Pytester, workers: tuple[str, ...]
):
    if workers:
        pytest.importorskip("xdist", reason="needs pytest-xdist")
    # Parents of 200 characters, each followed by its children of 50: 3 parents, 11 children.
    nested_project(pytester, "chunker: small_to_big:chunk\nchunker_args: {parent: 200, child: 50}")
    result = pytester.runpytest("--chunkrecall-report=r.json", *workers)
    # The spans across a child boundary inside a parent are hits: the parent came back.
    result.assert_outcomes(passed=3, failed=1)
    assert "offsets unknown" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    (gold,) = report["gold_files"]
    geometry = gold["geometry"]
    assert geometry["placed"] == geometry["chunks"] == 14
    assert (geometry["boundaries"], geometry["nested"], geometry["window_p50"]) == (2, 11, 200)
    assert (geometry["no_overlap"], geometry["overlap_p50"]) == (2, 0)
    # the cut falls between two parents; a child of the next one is on its far side
    (cut,) = [case["cut"] for case in report["cases"] if case["cut"]]
    assert cut["offset"] == 400
    assert [cut["left"][key] for key in ("index", "start", "end")] == [5, 200, 400]
    assert [cut["right"][key] for key in ("index", "start", "end")] == [11, 400, 450]
    assert "11 of 14 chunks lie inside another (no boundary)" in result.stdout.str()
    cases = {case["id"]: case for case in report["cases"]}
    assert {i: c["verdict"] for i, c in cases.items()} == {
        "refund-window": "hit", "express": "hit", "restocking": "hit", "customs": "split",
    }  # fmt: skip
    assert cases["express"]["retrieved_ids"] == ["docs/policies.md#0"]
    assert cases["restocking"]["retrieved_ids"] == ["docs/policies.md#5"]
    assert cases["customs"]["span_split"] is True


HIERARCHY_ARGS = {"chunk_sizes": [64, 24], "chunk_overlap": 8}
HIERARCHY = f"""
from llama_index.core.node_parser import HierarchicalNodeParser

parser = HierarchicalNodeParser.from_defaults(**{HIERARCHY_ARGS!r})
"""


def test_llamaindex_hierarchical_node_parser_is_placed_measured_and_judged(
    pytester: pytest.Pytester,
):
    pytest.importorskip("llama_index.core", reason="needs llama-index-core (the integration extra)")
    from llama_index.core.node_parser import (
        HierarchicalNodeParser,
        get_leaf_nodes,
        get_root_nodes,
    )
    from llama_index.core.schema import Document as LlamaDocument

    # What the library itself says: its roots (offsets in the document) and its
    # leaves (offsets in their root), every root followed by every leaf.
    parser = HierarchicalNodeParser.from_defaults(**HIERARCHY_ARGS)
    nodes = parser.get_nodes_from_documents([LlamaDocument(text=POLICIES)])
    by_id = {root.node_id: root for root in get_root_nodes(nodes)}
    roots = [(r.start_char_idx, r.end_char_idx) for r in by_id.values()]
    leaves = []
    for leaf in get_leaf_nodes(nodes):
        start = by_id[leaf.parent_node.node_id].start_char_idx + leaf.start_char_idx
        assert POLICIES[start : start + len(leaf.text)] == leaf.text
        leaves.append((start, start + len(leaf.text)))
    assert len(roots) >= 2
    (first_start, first_end), (second_start, _) = roots[0], roots[1]
    # A span whole in the first root but in none of its leaves, and one across the roots.
    inside = next(
        (end - 12, end + 12)
        for _, end in leaves
        if first_start < end - 12
        and end + 12 <= first_end
        and not any(s <= end - 12 and end + 12 <= e for s, e in leaves)
    )
    across = (first_end - 12, second_start + 12)
    pytester.makepyfile(hierarchy=HIERARCHY)
    nested_project(pytester, "chunker: hierarchy:parser")
    # The cases drawn from the library's own nodes, in place of the storefront's.
    pytester.path.joinpath("gold", "policies.yaml").write_text(
        "corpus: ../docs/*.md\nchunker: hierarchy:parser\nretriever: small_to_big:parents\n"
        "k: 1\ncases:\n"
        + "".join(
            f"  - id: {name}\n    question: {json.dumps(POLICIES[s:e])}\n"
            f"    needle: {json.dumps(POLICIES[s:e])}\n"
            for name, (s, e) in (("inside", inside), ("across", across))
        )
    )
    result = pytester.runpytest("--chunkrecall-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    nested = len(nodes) - len(roots)
    apart = sum(1 for (_, end), (start, _) in itertools.pairwise(roots) if start >= end)
    assert "offsets unknown" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    geometry = report["gold_files"][0]["geometry"]
    assert geometry["placed"] == geometry["chunks"] == len(nodes)
    assert (geometry["boundaries"], geometry["nested"]) == (len(roots) - 1, nested)
    assert geometry["no_overlap"] == apart
    cut = next(case["cut"] for case in report["cases"] if case["cut"])
    assert cut["offset"] == first_end
    assert [cut["left"][key] for key in ("index", "start", "end")] == [0, first_start, first_end]
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["inside"]["verdict"] == "hit"
    assert cases["inside"]["retrieved_ids"] == ["docs/policies.md#0"]
    assert cases["across"]["verdict"] == "split"
