"""Parent-and-children ("small-to-big") chunkers: chunks nested inside earlier ones are placed,
make no boundary, and a span a parent holds whole is a hit when the parent comes back."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_chunkrecall.chunking.placement import place
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


@settings(max_examples=300)
@given(nested_chunkings())
def test_placement_finds_every_slice_of_a_nested_chunker(chunking):
    text, intervals = chunking
    where = placed(text, intervals)
    for (start, end), found in zip(intervals, where, strict=True):
        assert found is not None, f"{text[start:end]!r} at {start} not placed"
        # the slice's own offsets, or text equal to it as the match modes see it
        assert fold_text(text[found[0] : found[1]]) == fold_text(text[start:end])
