"""Chunk geometry: the window arithmetic, effective overlap, span lengths, what the summary and
a split failure say about them, and the sweep. (Whole-in-a-chunk and cuts against a literal
scan: test_chunk_map.py.)"""

from __future__ import annotations

import json
import random
import textwrap

import pytest

from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.chunking.geometry import measure
from pytest_chunkrecall.chunking.survival import SpanFact, analyse, kept_whole
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.suite import Component, Suite, chunk_corpus
from pytest_chunkrecall.retrievers import bm25

from .conftest import POLICIES, STOREFRONT_CASES


def _suite(text: str, size: int, overlap: int) -> Suite:
    docs = (Document("doc.md", text),)
    chunker = Component.of("fixed_size", fixed_size, {"size": size, "overlap": overlap})
    chunks = chunk_corpus(docs, chunker)
    return Suite(docs, chunks, chunker, Component.of("bm25", bm25))


# ----------------------------------------------------------- arithmetic


def test_sliding_windows_keep_spans_whole_as_the_arithmetic_says():
    rng = random.Random(7)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(200_000))
    size, span_length = 512, 200
    starts = [rng.randrange(0, len(text) - span_length) for _ in range(3000)]

    shares = {}
    for overlap in (0, 200):
        suite = _suite(text, size, overlap)
        kept = [suite.chunk_map.holder("doc.md", s, s + span_length) is not None for s in starts]
        shares[overlap] = sum(kept) / len(kept)

    assert kept_whole(size, 0, span_length) == pytest.approx(1 - 200 / 512)
    assert abs(shares[0] - (1 - span_length / size)) < 0.03  # 60.9 % in theory
    assert shares[200] == 1.0


def test_kept_whole_limits():
    assert kept_whole(512, 0, 0) == 1.0
    assert kept_whole(512, 256, 256) == 1.0  # V >= L: certain
    assert kept_whole(512, 500, 600) == 0.0  # L > C: impossible
    assert kept_whole(512, 192, 200) == pytest.approx(312 / 320)


def test_analysis_names_spans_longer_than_every_chunk_and_recommends_overlap():
    geometry = {"size_p50": 100, "size_max": 100, "boundaries": 9, "overlap_p50": 0}
    spans = [SpanFact(f"c{n}", n, False) for n in (10, 20, 30, 40, 50, 60, 70, 80, 90)]
    spans.append(SpanFact("long", 150, True))
    result = analyse(spans, geometry)
    assert result["longer_than_every_chunk"] == ["long"]
    assert result["length_p90"] == 90
    assert result["recommended_overlap_p90"] == 90
    assert result["growth_p90"] == pytest.approx(10.0)  # 100 / (100 - 90)
    assert result["recommended_overlap_all"] is None  # 150 > 100: no overlap can
    assert result["observed_whole"] == 0.9


def test_effective_overlap_of_fixed_windows_is_the_configured_overlap():
    rng = random.Random(1)
    text = " ".join(
        rng.choice(["refund", "window", "days", "ship", "fee", "order"]) for _ in range(300)
    )
    suite = _suite(text, 80, 24)
    facts = measure(suite.documents, suite.chunks, configured_overlap=24)
    # the last window may be short, lying wholly inside the one before it
    assert facts["overlap_p50"] == facts["overlap_max"] == 24
    assert facts["overlap_min"] == min(24, len(suite.chunks[-1].text))
    assert facts["no_overlap"] == facts["gaps"] == 0
    assert facts["boundaries"] == len(suite.chunks) - 1
    assert facts["index_multiplier"] == pytest.approx(
        sum(len(c.text) for c in suite.chunks) / len(text), abs=1e-3
    )


def test_a_boundary_next_to_an_unplaced_chunk_is_not_measured():
    # The middle chunk was rewritten: what it covers is unknown, so neither of
    # its boundaries is measured, and its neighbours are not taken for a gap.
    text = "aaaa bbbb cccc dddd eeee"
    chunks = [
        Chunk("aaaa bbbb", "d", 0, 0, 9),
        Chunk("Note: bbbb cccc", "d", 1),
        Chunk("cccc dddd", "d", 2, 10, 19),
        Chunk("dddd eeee", "d", 3, 15, 24),
    ]
    facts = measure([Document("d", text)], chunks)
    assert facts["boundaries"] == 1
    assert facts["overlap_min"] == facts["overlap_max"] == 4
    assert facts["gaps"] == 0


def test_a_chunk_inside_its_neighbours_overlap_leaves_no_gap_after_it():
    # LangChain can emit a one-character chunk inside the previous chunk's
    # overlap; the next chunk follows the farthest text already covered, and
    # the nested chunk itself divides nothing: it is no boundary.
    text = "aaaa bbbb 2 cccc dddd"
    chunks = [
        Chunk("aaaa bbbb 2 cccc", "d", 0, 0, 16),
        Chunk("2", "d", 1, 10, 11),
        Chunk("cccc dddd", "d", 2, 12, 21),
    ]
    facts = measure([Document("d", text)], chunks)
    assert facts["boundaries"] == 1
    assert (facts["overlap_min"], facts["overlap_max"]) == (4, 4)
    assert facts["gaps"] == facts["no_overlap"] == 0


def test_boundaries_are_measured_in_document_order_whatever_the_chunkers_order():
    text = "aaaa bbbb cccc dddd"
    chunks = [Chunk("cccc dddd", "d", 0, 10, 19), Chunk("aaaa bbbb", "d", 1, 0, 9)]
    facts = measure([Document("d", text)], chunks)
    assert facts["boundaries"] == 1
    assert facts["overlap_max"] == 0  # one space between them: nothing shared, nothing lost


def test_gaps_are_measured_and_whitespace_gaps_count_as_no_overlap():
    text = "aaaa bbbb\ncccc dddd"
    chunks = [
        Chunk("aaaa", "d", 0, 0, 4),
        Chunk("bbbb", "d", 1, 5, 9),  # a one-space gap: nothing lost
        Chunk("dddd", "d", 2, 15, 19),  # "\ncccc " is in no chunk
    ]
    facts = measure([Document("d", text)], chunks)
    assert facts["overlap_min"] == -6
    assert facts["no_overlap"] == 2
    assert facts["gaps"] == 1


# ------------------------------------------------------- what users see

CORPUS = POLICIES

GOLD = (
    "corpus: ../docs/*.md\nchunker_args: {size: 80, overlap: OVERLAP}\nk: 1\n"
    + STOREFRONT_CASES
    + "    xfail: anchor and value sit farther apart than one chunk\n"
)


@pytest.fixture
def storefront(pytester: pytest.Pytester):
    def make(overlap: int) -> pytest.Pytester:
        pytester.mkdir("docs")
        pytester.path.joinpath("docs", "policies.md").write_text(CORPUS)
        pytester.mkdir("gold")
        pytester.path.joinpath("gold", "policies.yaml").write_text(
            GOLD.replace("OVERLAP", str(overlap))
        )
        return pytester

    return make


def test_split_failure_shows_the_geometry_of_the_cut(storefront):
    pytester = storefront(0)
    result = pytester.runpytest("--chunkrecall-report=r.json")
    result.assert_outcomes(passed=1, failed=3, xfailed=1)
    cases = {c["id"]: c for c in json.loads((pytester.path / "r.json").read_text())["cases"]}
    refund = cases["refund-window"]
    assert (refund["verdict"], refund["span_length"]) == ("split", 28)
    cut = refund["cut"]
    assert (cut["offset"], cut["overlap"]) == (80, 0)
    assert (
        cut["left"]["start"],
        cut["left"]["end"],
        cut["right"]["start"],
        cut["right"]["end"],
    ) == (
        0,
        80,
        80,
        160,
    )
    # the advice follows from the span's length: an overlap that long keeps it whole anywhere
    assert (
        "    an overlap of at least 28 chars (the span's length) keeps a span this long whole"
        " wherever the cut falls"
    ) in result.outlines


def test_summary_shows_overlap_span_lengths_ceiling_and_prediction(storefront):
    pytester = storefront(24)
    result = pytester.runpytest("--chunkrecall-report=report.json")
    result.assert_outcomes(passed=4, xfailed=1)
    report = json.loads((pytester.path / "report.json").read_text())
    (gold,) = report["gold_files"]
    assert (gold["totals"]["hits"], gold["totals"]["split_spans"]) == (4, 1)
    geometry = gold["geometry"]
    assert (geometry["configured_overlap"], geometry["overlap_p50"]) == (24, 24)
    assert (geometry["chunks"], geometry["boundaries"], geometry["no_overlap"]) == (9, 8, 0)
    assert geometry["index_multiplier"] == pytest.approx(1.38, abs=0.005)
    assert gold["spans"]["length_max"] == 114
    assert gold["spans"]["longer_than_every_chunk"] == ["customs"]
    assert gold["spans"]["observed_whole"] == 0.8
    assert 0 < gold["spans"]["predicted_whole"] <= 1
    assert any(line.startswith("  ! 1 span longer than every chunk") for line in result.outlines)


def test_a_chunker_that_adds_text_has_unknown_offsets(pytester: pytest.Pytester):
    pytester.makepyfile(
        headed="""
        def chunk(text):
            return [f"POLICY: {part}" for part in text.split(". ")]
        """
    )
    pytester.makeini("[pytest]\npythonpath = .\n")
    pytester.mkdir("docs")
    pytester.path.joinpath("docs", "a.md").write_text(
        "The refund window is 30 days. Shipping is free."
    )
    pytester.mkdir("gold")
    pytester.path.joinpath("gold", "a.yaml").write_text(
        textwrap.dedent(
            """\
            corpus: ../docs/*.md
            chunker: headed:chunk
            cases:
              - question: refund window
                needle: 30 days
            """
        )
    )
    result = pytester.runpytest("--chunkrecall-report=r.json")
    result.assert_outcomes(passed=1)
    geometry = json.loads((pytester.path / "r.json").read_text())["gold_files"][0]["geometry"]
    assert (geometry["chunks"], geometry["placed"]) == (2, 0)
    assert "offsets unknown for 2 of 2 chunks (not measured)" in result.stdout.str()


def test_line_splitter_drops_configured_overlap_and_the_summary_says_so(pytester: pytest.Pytester):
    pytest.importorskip("langchain_text_splitters", reason="needs langchain-text-splitters")
    rng = random.Random(3)
    lines = []
    for number in range(60):
        width = rng.choice([12, 20, 35, 60, 90])
        lines.append(f"line {number} is here, padded with words {'x' * width}"[: width + 10])
    pytester.mkdir("docs")
    pytester.path.joinpath("docs", "lines.md").write_text("\n".join(lines))
    pytester.makeconftest(
        """
        from langchain_text_splitters import CharacterTextSplitter

        def chunk(text, chunk_size, chunk_overlap):
            splitter = CharacterTextSplitter(
                separator="\\n", chunk_size=chunk_size, chunk_overlap=chunk_overlap
            )
            return splitter.split_text(text)

        def pytest_chunkrecall_chunker(config, gold_path):
            return chunk
        """
    )
    pytester.mkdir("gold")
    pytester.path.joinpath("gold", "lines.yaml").write_text(
        textwrap.dedent(
            """\
            corpus: ../docs/*.md
            chunker_args: {chunk_size: 120, chunk_overlap: 40}
            cases:
              - question: line 7
                needle: line 7
            """
        )
    )
    result = pytester.runpytest("--chunkrecall-report=r.json")
    warned = [line for line in result.outlines if line.startswith("  ! configured overlap 40")]
    assert len(warned) == 1 and "is not delivered" in warned[0], result.stdout.str()
    # chunk_overlap is the splitter's own unit, the effective overlap is measured in chars
    result.stdout.fnmatch_lines(
        ["  geometry: overlap configured 40 in the chunker's units, effective overlap * chars*"]
    )
    geometry = json.loads((pytester.path / "r.json").read_text())["gold_files"][0]["geometry"]
    assert geometry["configured_overlap"] == 40
    assert 0 < geometry["no_overlap"] < geometry["boundaries"]
    assert geometry["placed"] == geometry["chunks"]


# ------------------------------------------------------------------ sweep


def test_sweep_prints_a_table_and_the_tests_keep_the_configured_setting(storefront):
    pytester = storefront(0)
    result = pytester.runpytest(
        "--chunkrecall-sweep", "overlap=0,24", "--chunkrecall-report=r.json"
    )
    result.assert_outcomes(passed=1, failed=3, xfailed=1)  # the configured overlap 0
    rows = json.loads((pytester.path / "r.json").read_text())["sweep"]["rows"]
    assert [row["label"] for row in rows] == ["configured (overlap=0)", "overlap=0", "overlap=24"]
    assert [row["hits"] for row in rows] == [1, 1, 4]
    assert [row["chunks"] for row in rows] == [7, 7, 9]
    assert [row["split_spans"] for row in rows] == [4, 4, 1]
    assert rows[2]["change_points"] == 60.0
    start = result.outlines.index("chunkrecall sweep 'overlap=0,24':")
    assert [line.split()[0] for line in result.outlines[start + 1 : start + 5]] == [
        "setting",
        "configured",
        "overlap=0",
        "overlap=24",
    ]


@pytest.mark.slow
def test_sweep_over_a_grid_and_under_xdist_gives_the_same_table(storefront):
    pytester = storefront(0)
    spec = "size=80,100; overlap=0,24"
    serial = pytester.runpytest("--chunkrecall-sweep", spec)
    parallel = pytester.runpytest_subprocess("--chunkrecall-sweep", spec, "-n", "2")

    def table(result: pytest.RunResult) -> list[str]:
        lines = result.outlines
        start = lines.index(f"chunkrecall sweep {spec!r}:")
        return lines[start : start + 6]

    assert len(table(serial)) == 6
    assert table(serial) == table(parallel)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("overlap", "*'overlap' is not name=value,value,…*"),
        ("overlap=", "*'overlap' needs a list of values*"),
        ("overlap=0,,24", "*'overlap' needs a list of values*"),
        ("  ", "*it is empty*"),
        ("overlap=0 overlap=4", "*'overlap' is given twice*"),
    ],
)
def test_sweep_spec_that_does_not_parse_is_a_usage_error(storefront, spec, message):
    result = storefront(0).runpytest("--chunkrecall-sweep", spec)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --chunkrecall-sweep*{message}"])


def test_sweep_naming_an_argument_the_chunker_does_not_take_is_a_usage_error(storefront):
    result = storefront(0).runpytest("--chunkrecall-sweep", "overlp=0,24")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.assert_outcomes()  # stopped before any test
    result.stderr.fnmatch_lines(
        [
            "ERROR: --chunkrecall-sweep 'overlp=0,24': gold/policies.yaml: cannot sweep overlp "
            "over chunker pytest_chunkrecall.chunkers:fixed_size: it takes no argument 'overlp'; "
            "it takes size, overlap; did you mean 'overlap'?"
        ]
    )


def test_a_length_function_measures_spans_and_chunks_in_its_own_units(storefront):
    pytester = storefront(24)
    pytester.makepyfile(words="def count(text):\n    return len(text.split())\n")
    pytester.makeini("[pytest]\npythonpath = .\nchunkrecall_length = words:count\n")
    result = pytester.runpytest("--chunkrecall-report=r.json", "-v")
    assert "spans p50 6, p90 17, max 17 units of words:count" in result.stdout.str()
    # the built-in windows overlap by characters, the effective overlap is counted in words
    result.stdout.fnmatch_lines(
        ["  geometry: overlap configured 24 chars, effective overlap * units of words:count (min *"]
    )
    assert any(
        line.startswith("  chunk sizes p50 ") and line.endswith(" units of words:count")
        for line in result.outlines
    )
    report = json.loads((pytester.path / "r.json").read_text())
    lengths = {case["id"]: case["span_length"] for case in report["cases"]}
    assert lengths["refund-window"] == 6  # The refund window is 30 days
    passage = "Customs clearance for international parcels routed through the distant regional sorting hub is billed at 9 dollars"
    assert lengths["customs"] == len(passage.split()) == 17
    assert report["gold_files"][0]["unit"] == "units of words:count"


@pytest.mark.slow
def test_a_sweep_under_xdist_uses_the_hooks_of_a_conftest_below_the_rootdir(pytester):
    pytester.mkdir("suite")
    pytester.path.joinpath("suite", "conftest.py").write_text(
        textwrap.dedent(
            """
            def windows(text, size, overlap):
                stride = size - overlap
                return [{"text": text[s : s + size], "start": s} for s in range(0, len(text), stride)]

            def pytest_chunkrecall_chunker(config, gold_path):
                return windows
            """
        )
    )
    pytester.mkdir("suite/docs")
    pytester.path.joinpath("suite", "docs", "policies.md").write_text(CORPUS)
    pytester.mkdir("suite/gold")
    pytester.path.joinpath("suite", "gold", "policies.yaml").write_text(
        GOLD.replace("OVERLAP", "0").replace("{size: 80,", "{size: 100,")
    )
    spec = "overlap=0,10"
    serial = pytester.runpytest_subprocess("--chunkrecall-sweep", spec, "-p", "no:xdist")
    parallel = pytester.runpytest_subprocess("--chunkrecall-sweep", spec, "-n", "2")

    def table(result: pytest.RunResult) -> list[str]:
        start = result.outlines.index(f"chunkrecall sweep {spec!r}:")
        return result.outlines[start : start + 5]

    assert table(serial)[2].split()[:3] == ["configured", "(overlap=0)", "6"]  # size 100: 6 chunks
    assert table(serial) == table(parallel)


def test_a_token_splitter_s_overlap_is_named_in_tokens_beside_the_effective_chars(storefront):
    """LlamaIndex's SentenceSplitter counts chunk_overlap in tokens; the effective overlap is
    measured in characters: the geometry line names each unit."""
    pytest.importorskip("llama_index.core")
    pytester = storefront(0)
    gold = pytester.path / "gold" / "policies.yaml"
    gold.write_text(
        gold.read_text().replace(
            "chunker_args: {size: 80, overlap: 0}",
            "chunker: llama_index.core.node_parser:SentenceSplitter\n"
            "chunker_args: {chunk_size: 40, chunk_overlap: 10}",
        )
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        ["  geometry: overlap configured 10 tokens, effective overlap * chars*"]
    )
