"""Every chunk shape and result shape the contract lists, and where chunk offsets come from."""

from __future__ import annotations

import pytest

from .conftest import POLICIES, dedent, lines

SHAPES = '''
"""Chunkers and retrievers in the shapes other libraries give them."""

from types import SimpleNamespace

from pytest_chunkrecall import Chunk


def windows(text, size=80):
    return [(s, text[s : s + size]) for s in range(0, len(text), size)]


def strings(text, size=80):
    return [t for _, t in windows(text, size)]


def mappings(text, size=80):
    return [{"text": t, "start": s} for s, t in windows(text, size)]


def mappings_without_start(text, size=80):
    return [{"text": t} for _, t in windows(text, size)]


def mappings_with_wrong_starts(text, size=80):
    return [{"text": t, "start": 0} for _, t in windows(text, size)]


def chunks(text, size=80):
    return [Chunk(t, "ignored", 0, s, s + len(t)) for s, t in windows(text, size)]


def chonkie_like(text, size=80):
    return [SimpleNamespace(text=t, start_index=s) for s, t in windows(text, size)]


def llamaindex_like(text, size=80):
    return [SimpleNamespace(text=t, start_char_idx=s) for s, t in windows(text, size)]


def langchain_like(text, size=80):
    return [
        SimpleNamespace(page_content=t, metadata={"start_index": s}) for s, t in windows(text, size)
    ]


def page_content_only(text, size=80):
    return (SimpleNamespace(page_content=t, metadata={}) for _, t in windows(text, size))


class TextSplitter:
    """Instantiated with chunker_args, used through split_text."""

    def __init__(self, size=80):
        self.size = size

    def split_text(self, text):
        return strings(text, self.size)


class Chonkie:
    """Instantiated with chunker_args, used through chunk."""

    def __init__(self, size=80):
        self.size = size

    def chunk(self, text):
        return chonkie_like(text, self.size)


def make_splitter(*, size=80):
    """A factory: called once with chunker_args, returns the splitter."""
    return TextSplitter(size)


def shouting(text, size=80):
    """Rewrites its text (a header, upper case): no chunk can be found in the document."""
    return [f"PAGE: {t.upper()}" for t in strings(text, size)]


def ranking(chunks, question):
    words = question.lower().split()
    score = [sum(w in c.text.lower() for w in words) for c in chunks]
    return sorted(range(len(chunks)), key=lambda i: (-score[i], i))


def results(chunks, shape="int"):
    """The keyword ranking, returned in the result shape named."""

    def make(i):
        c = chunks[i]
        return {
            "int": i,
            "chunk": c,
            "str": c.text,
            "text": SimpleNamespace(text=c.text),
            "page_content": SimpleNamespace(page_content=c.text, metadata={}),
            "int-score": (i, 1.0 / (i + 1)),
            "chunk-score": (c, 0.5),
            "text-score": (SimpleNamespace(page_content=c.text), 3),
        }[shape]

    return lambda question, k: [make(i) for i in ranking(chunks, question)[:k]]


class Index:
    """A retriever object with retrieve(question, k)."""

    def __init__(self, chunks):
        self.chunks = chunks

    def retrieve(self, question, k):
        return ranking(self.chunks, question)[:k]


class Runnable:
    """A LangChain-style retriever: invoke(question), k fixed when built."""

    def __init__(self, chunks, k=2):
        self.chunks, self.k = chunks, k

    def invoke(self, question):
        return [self.chunks[i] for i in ranking(self.chunks, question)[: self.k]]


class Searcher:
    def __init__(self, chunks):
        self.chunks = chunks

    def search(self, question, k):
        return [self.chunks[i].text for i in ranking(self.chunks, question)[:k]]


def summaries(chunks):
    """Returns text that is no chunk: a summary of the best chunk."""
    return lambda question, k: ["Summary: " + chunks[ranking(chunks, question)[0]].text]
'''

CASES = """
    cases:
      - id: fee
        question: restocking fee
        needle: 15 percent
      - id: refund
        question: refund window
        needle: 30 days
        span: The refund window is 30 days
        k: 1
      - id: away
        question: support knowledge base storefront
        needle: 9 dollars
"""


@pytest.fixture
def shapes(shop):
    shop.write("shapes.py", SHAPES)

    def gold(chunker: str = "shapes:strings", retriever: str = "shapes:results", **extra):
        head = f"corpus: ../docs/policies.md\nchunker: {chunker}\nretriever: {retriever}\nk: 2\n"
        head += "".join(f"{key}: {value}\n" for key, value in extra.items())
        shop.gold(head + dedent(CASES))
        return shop.cases()

    return gold


WINDOWS = [(s, min(s + 80, len(POLICIES))) for s in range(0, len(POLICIES), 80)]
FEE = POLICIES.index("15 percent") // 80


@pytest.mark.parametrize(
    "chunker",
    [
        "shapes:strings",
        "shapes:mappings",
        "shapes:mappings_without_start",
        "shapes:mappings_with_wrong_starts",
        "shapes:chunks",
        "shapes:chonkie_like",
        "shapes:llamaindex_like",
        "shapes:langchain_like",
        "shapes:page_content_only",
        "shapes:TextSplitter",
        "shapes:Chonkie",
        "shapes:make_splitter",
    ],
)
def test_every_chunk_shape_gives_the_same_chunks_and_verdicts(shapes, chunker):
    cases = shapes(chunker)
    assert {i: c["verdict"] for i, c in cases.items()} == {
        "fee": "hit",
        "refund": "split",
        "away": "ranked_out",
    }
    (top, _) = cases["fee"]["top"]
    assert (top["doc"], top["index"], top["start"], top["end"]) == (
        "docs/policies.md",
        FEE,
        *WINDOWS[FEE],
    )
    assert cases["refund"]["cut"]["offset"] == 80
    assert cases["away"]["held"][0]["chunk"]["start"] == POLICIES.index("9 dollars") // 80 * 80


def test_chunker_args_reach_a_splitter_class(shapes):
    cases = shapes("shapes:TextSplitter", chunker_args="{size: 100}")
    (top, _) = cases["fee"]["top"]
    start = POLICIES.index("15 percent") // 100 * 100
    assert (top["start"], top["end"]) == (start, start + 100)


@pytest.mark.parametrize(
    "retriever, args",
    [
        ("shapes:results", "{shape: int}"),
        ("shapes:results", "{shape: chunk}"),
        ("shapes:results", "{shape: str}"),
        ("shapes:results", "{shape: text}"),
        ("shapes:results", "{shape: page_content}"),
        ("shapes:results", "{shape: int-score}"),
        ("shapes:results", "{shape: chunk-score}"),
        ("shapes:results", "{shape: text-score}"),
        ("shapes:Index", "{}"),
        ("shapes:Runnable", "{k: 2}"),
        ("shapes:Searcher", "{}"),
    ],
)
def test_every_result_shape_gives_the_same_ranking(shapes, retriever, args):
    cases = shapes(retriever=retriever, retriever_args=args)
    assert {i: (c["verdict"], c["rank"]) for i, c in cases.items()} == {
        "fee": ("hit", 1),
        "refund": ("split", None),
        "away": ("ranked_out", None),
    }
    top = cases["fee"]["top"]
    assert [(t["rank"], t["index"]) for t in top] == [(1, FEE), (2, 0)]
    assert (top[0]["start"], top[0]["end"]) == WINDOWS[FEE]


def test_a_chunker_that_rewrites_text_leaves_offsets_unknown_but_verdicts_work(shapes, shop):
    cases = shapes("shapes:shouting")
    assert {i: c["verdict"] for i, c in cases.items()} == {
        "fee": "hit",
        "refund": "split",
        "away": "ranked_out",
    }
    assert {(t["start"], t["end"]) for t in cases["fee"]["top"]} == {(None, None)}
    assert cases["away"]["held"][0]["chunk"]["index"] == POLICIES.index("9 dollars") // 80
    result = shop.run()
    result.stdout.fnmatch_lines(
        lines(
            "chunkrecall: ranked_out — *",
            "  * is held whole by docs/policies.md [offsets unknown] chunk 5: '*', which is not in the top 2",
            "    1. docs/policies.md [offsets unknown] chunk 0: 'PAGE: SUPPORT KNOWLEDGE BASE*",
        )
    )


def test_results_that_are_no_chunk_are_shown_as_such(shapes, shop):
    cases = shapes(retriever="shapes:summaries")
    assert cases["fee"]["verdict"] == "hit"
    assert cases["fee"]["top"][0]["doc"] is None
    result = shop.run()
    result.stdout.fnmatch_lines(
        lines("    1. (text that is no chunk of the corpus) 'Summary: Support knowledge*")
    )


NUMPY = '''
import numpy as np


def ranked(chunks, question):
    words = question.lower().split()
    score = np.array([sum(w in c.text.lower() for w in words) for c in chunks], dtype=np.float32)
    return np.argsort(-score, kind="stable"), score


def argsort(chunks):
    """What a hand-written vector search returns: an array of numpy integers."""
    return lambda question, k: ranked(chunks, question)[0][:k]


def scored(chunks):
    """(numpy index, numpy float32 score) pairs."""

    def search(question, k):
        order, score = ranked(chunks, question)
        return [(i, score[i]) for i in order[:k]]

    return search
'''


try:  # imported here, before any in-process run: numpy cannot be imported twice
    import numpy
except ImportError:  # pragma: no cover
    numpy = None


@pytest.mark.skipif(numpy is None, reason="numpy is not installed")
@pytest.mark.parametrize("retriever", ["vectors:argsort", "vectors:scored"])
def test_numpy_indexes_and_scores_are_ints_and_scores(shapes, shop, retriever):
    shop.write("vectors.py", NUMPY)
    cases = shapes(retriever=retriever)
    assert {i: (c["verdict"], c["rank"]) for i, c in cases.items()} == {
        "fee": ("hit", 1),
        "refund": ("split", None),
        "away": ("ranked_out", None),
    }
    assert cases["fee"]["top"][0]["index"] == FEE
