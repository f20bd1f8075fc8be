"""The code made fast for large suites, against the simple definitions it replaced.

Benchmarks measure the speed (``python benchmarks/run.py``); these tests only
check that the fast code computes exactly what the plain version would.
"""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_chunkrecall import evaluate
from pytest_chunkrecall.evaluation.results import (
    BaselineMark,
    CaseResult,
    ChunkView,
    CutView,
    Held,
    NearestText,
    preview,
)
from pytest_chunkrecall.text.folding import fold, fold_passage, widened
from pytest_chunkrecall.text.index import SCANS_BEFORE_INDEXING, WordIndex

from .conftest import QUIET

# ---------------------------------------------------------------- locating

# A rare word, a word that is everywhere, words that are prefixes and suffixes
# of each other, and separators: patterns whose cheapest anchor is any of their words.
WORDS = st.sampled_from(["of", "the", "a", "ab", "ba", "quxa", "qux", "xa"])
SEPARATORS = st.sampled_from([" ", " ", ", ", "-", "\n"])


@st.composite
def texts_and_pattern(draw: st.DrawFn) -> tuple[list[str], str]:
    def text() -> str:
        parts = draw(st.lists(st.tuples(WORDS, SEPARATORS), max_size=30))
        return "".join(word + separator for word, separator in parts)

    texts = [text() for _ in range(draw(st.integers(1, 3)))]
    joined = [t for t in texts if t]
    if joined and draw(st.booleans()):
        source = draw(st.sampled_from(joined))
        start = draw(st.integers(0, len(source) - 1))
        end = draw(st.integers(start + 1, min(len(source), start + 20)))
        return texts, source[start:end]  # any slice: mid-word at either end
    return texts, text() or "of"


def scan(texts: list[str], pattern: str) -> list[tuple[int, int]]:
    return [
        (number, at)
        for number, text in enumerate(texts)
        for at in range(len(text) - len(pattern) + 1)
        if text.startswith(pattern, at)
    ]


@given(texts_and_pattern())
@example((["the weight of quxa is 5 ab. the depth of qux is 7."], "weight of quxa"))
@example((["of of of quxa of"], "f of quxa o"))
@example((["aba ab, ba ab"], "ab, b"))
def test_find_through_the_rarest_anchor_equals_a_literal_scan(case):
    texts, pattern = case
    assert list(WordIndex(texts, scans_before_indexing=0).find(pattern)) == scan(texts, pattern)
    assert list(WordIndex(texts).find(pattern)) == scan(texts, pattern)


def test_patterns_are_scanned_for_until_the_scans_have_read_the_corpus_enough_times():
    texts = ["the weight of quxa is 5 ab.", "the depth of qux is 7."]
    index = WordIndex(texts, scans_before_indexing=2)
    for pattern in ("qux", "of qux", "the"):
        assert (index.indexed, list(index.find(pattern))) == (False, scan(texts, pattern))
    # three scans have read the corpus three times: the next search builds the index
    assert list(index.find("is 7")) == scan(texts, "is 7")
    assert index.indexed
    assert list(index.find("qux")) == scan(texts, "qux")


def test_a_few_misses_explained_by_default_never_build_the_index():
    # a miss is located (a scan up to the chunk that holds it) and then every chunk
    # holding it is listed (a whole scan): a run with a few misses only scans
    texts = [f"the weight of qu{number} is {number} grams. " * 50 for number in range(20)]
    index = WordIndex(texts)
    for number in range(15):
        pattern = f"is {number} grams"
        assert next(index.find(pattern)) == scan(texts, pattern)[0]
        assert list(index.find(pattern)) == scan(texts, pattern)
    assert not index.indexed


def test_as_many_searches_known_to_come_as_the_scans_build_the_index_at_once():
    texts = ["the weight of quxa is 5 ab.", "the depth of qux is 7."]
    index = WordIndex(texts, scans_before_indexing=2, known_searches=2)
    assert index.indexed
    assert list(index.find("of qux")) == scan(texts, "of qux")
    fewer = WordIndex(texts, scans_before_indexing=2, known_searches=1)
    assert (list(fewer.find("of qux")), fewer.indexed) == (scan(texts, "of qux"), False)


def _scans_of_hits(tmp_path, monkeypatch, cases: int) -> int:
    """How many times the corpus is scanned for a gold file of ``cases`` hits, each of which
    lists every chunk holding its needle (as for the JSON report)."""
    scans = []
    scan_texts = WordIndex._scan

    def counted(self, pattern):
        scans.append(pattern)
        return scan_texts(self, pattern)

    monkeypatch.setattr(WordIndex, "_scan", counted)
    gold = "chunker_args: {size: 40, overlap: 0}\nk: 1\nmatch: exact\ncases:\n"
    gold += "".join(f"  - {{id: c{n}, question: q{n}, needle: fact {n}.}}\n" for n in range(cases))
    (tmp_path / "gold.yaml").write_text(gold, encoding="utf-8")
    documents = {"facts": "".join(f"fact {n}. ".ljust(40) for n in range(cases))}
    results = evaluate(
        tmp_path / "gold.yaml",
        rootdir=tmp_path,
        documents=documents,
        retriever=lambda chunks: lambda question, k: [int(question[1:])],
    )
    assert [result.verdict for result in results] == ["hit"] * cases
    assert [result.holding_ids for result in results] == [[f"facts#{n}"] for n in range(cases)]
    return len(scans)


def test_a_gold_file_that_lists_every_holder_of_many_hits_indexes_at_once(tmp_path, monkeypatch):
    assert _scans_of_hits(tmp_path, monkeypatch, SCANS_BEFORE_INDEXING) == 0


def test_a_gold_file_that_lists_every_holder_of_a_few_hits_scans(tmp_path, monkeypatch):
    assert _scans_of_hits(tmp_path, monkeypatch, 5) == 5


def test_a_scan_stopped_at_the_first_occurrence_reads_only_the_texts_it_reached():
    texts = ["rare", "common " * 1000, "common " * 1000]
    index = WordIndex(texts, scans_before_indexing=1)
    for _ in range(100):
        assert next(index.find("rare")) == (0, 0)
    assert not index.indexed


# ---------------------------------------------------------------- folding


def folded_by_hand(text: str) -> tuple[str, list[tuple[int, int]]]:
    """ASCII folding, character by character: each folded character and its original range."""
    chars, ranges = [], []
    for m in re.finditer(r"\s+|\S", text):
        chars.append(" " if m.group().isspace() else m.group().lower())
        ranges.append((m.start(), m.end()))
    return "".join(chars), ranges


@given(st.text(alphabet="aB. \n\t\r\x0b\x0c", max_size=60))
@example("  a \n\n b\t")
def test_folding_ascii_maps_every_character_back_to_its_original_range(text):
    folded = fold(text)
    expected, ranges = folded_by_hand(text)
    assert folded.text == expected
    for position, (start, end) in enumerate(ranges):
        assert folded.original_start(position) == start
        assert folded.original_end(position + 1) == end


# Letters that folding composes with the marks after them, case that it folds, ß and a
# ligature that it lengthens, and whitespace runs that it collapses.
FOLDED_TEXT = st.text(alphabet="aeB\u0301\u0308\xdf\ufb01. \n\t\u3000", max_size=60)


@given(FOLDED_TEXT, st.data())
@example("e\u0301 a  b", None)
@example("ab\u0301", None)
@example("a  \n b", None)
def test_a_passage_widened_to_whitespace_folds_as_it_does_inside_its_whole_text(text, data):
    if data is None:  # the examples: a passage that starts on a mark, one cut from its letter
        start, end = 1, 2
    else:
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
    whole = fold(text)
    low, high = widened(text, start, end)
    passage = fold_passage(text, low, high)
    assert low <= start <= end <= high
    shift = whole.folded_start(low)
    assert passage.text == whole.text[shift : shift + len(passage.text)]
    for position in range(len(passage.text)):
        assert passage.original_start(position) == whole.original_start(shift + position)
        assert passage.original_end(position + 1) == whole.original_end(shift + position + 1)
    for offset in range(start, end + 1):
        assert passage.folded_start(offset) + shift == whole.folded_start(offset)


# ---------------------------------------------------------------- results as JSON


REPEAT_KEYS = ("unstable", "ranks_seen", "varied")
# keys only a case with must_not, must_not_doc, filter or any_of has
CASE_KEYS = ("must_not", "must_not_docs", "leaks", "filter", "alternative", "alternatives")


def test_a_result_as_json_is_what_asdict_gives():
    view = ChunkView("docs/a.md", 3, 100, 180, "The refund w…", rank=2, size=80)
    result = CaseResult(
        gold_file="gold/a.yaml", id="refund", line=4, question="Refund window?",
        needles=["30 days"], span="The refund window is 30 days", verdict="split", rank=None,
        span_split=True, k=5, match="normalized", needle_lengths=[7], span_length=28,
        unit="chars", top=[view, dataclasses.replace(view, rank=1, size=None)],
        held=[Held("30 days", view)],
        cut=CutView("docs/a.md", 180, "refund w", "indow", view, None, overlap=None),
        closest=NearestText("30 dayz", "30 days", 92.3, "docs/a.md", 3), missing=["x"],
        baseline=BaselineMark("hit", 1, False, "regression"),
    )  # fmt: skip
    as_json = result.to_json()
    # asked once, a case has no repeats to speak of: the report's keys stay as they were
    optional = (*REPEAT_KEYS, *CASE_KEYS)
    once = {k: v for k, v in dataclasses.asdict(result).items() if k not in optional}
    assert as_json == once
    fields = [f.name for f in dataclasses.fields(CaseResult)]
    assert list(as_json) == [name for name in fields if name not in optional]
    assert CaseResult.from_json(as_json) == result
    repeated = dataclasses.replace(result, unstable=True, ranks_seen=[None, 2], varied="")
    every = dataclasses.asdict(repeated)
    assert repeated.to_json() == {k: v for k, v in every.items() if k not in CASE_KEYS}
    assert CaseResult.from_json(repeated.to_json()) == repeated
    as_json["needles"].append("changed")
    as_json["top"][0]["preview"] = "changed"
    assert result.needles == ["30 days"] and result.top[0].preview == "The refund w…"


@given(st.text(alphabet="ab \n\t", max_size=400), st.integers(1, 80))
@example("a" * 71 + " " * 300 + "b", 72)
@example(" " * 288 + "abc", 72)
def test_a_preview_is_the_whole_text_flattened_and_trimmed(text, width):
    flat = " ".join(text.split())
    expected = flat if len(flat) <= width else flat[: width - 1] + "…"
    assert preview(text, width) == expected


# ---------------------------------------------------------------- a run that lists every holder

FACTS_RETRIEVER = """
def build(chunks):
    return lambda question, k: [int(question[1:])]
"""


@pytest.fixture
def counted_scans(pytester, monkeypatch):
    """A project of 128 hits, each fact a chunk of its own, and the list of the patterns
    the corpus was scanned for (rather than looked up in its index) in a run of it."""
    count = SCANS_BEFORE_INDEXING
    pytester.makefile(
        ".md", **{"docs/facts": "".join(f"fact {n}. ".ljust(40) for n in range(count))}
    )
    pytester.makepyfile(facts=FACTS_RETRIEVER)
    pytester.makeini("[pytest]\npythonpath = .\n")
    cases = "".join(
        f"  - {{id: n{n:03d}, question: q{n}, needle: fact {n}.}}\n" for n in range(count)
    )
    pytester.makefile(
        ".yaml",
        **{
            "gold/facts": "corpus: ../docs/*.md\nchunker_args: {size: 40, overlap: 0}\n"
            "retriever: facts:build\nk: 1\nmatch: exact\ncases:\n" + cases
        },
    )
    scans: list[str] = []
    scan_texts = WordIndex._scan

    def counted(self, pattern):
        scans.append(pattern)
        return scan_texts(self, pattern)

    monkeypatch.setattr(WordIndex, "_scan", counted)
    return scans


def test_a_report_of_a_large_gold_file_looks_every_holder_up_in_the_index(pytester, counted_scans):
    report = pytester.path / "report.json"
    result = pytester.runpytest(*QUIET, "--chunkrecall-report", str(report))
    result.assert_outcomes(passed=SCANS_BEFORE_INDEXING)
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    assert [case["holding_ids"] for case in cases] == [
        [f"docs/facts.md#{n}"] for n in range(SCANS_BEFORE_INDEXING)
    ]
    assert counted_scans == []


def test_a_report_of_a_few_cases_selected_from_a_large_gold_file_scans(pytester, counted_scans):
    report = pytester.path / "report.json"
    result = pytester.runpytest(*QUIET, "--chunkrecall-report", str(report), "-k", "n007 or n100")
    result.assert_outcomes(passed=2)
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    assert [case["holding_ids"] for case in cases] == [["docs/facts.md#7"], ["docs/facts.md#100"]]
    assert counted_scans == ["fact 7.", "fact 100."]
