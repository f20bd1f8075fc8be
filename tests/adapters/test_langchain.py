"""LangChain text splitters, retrievers and vector stores, against the real packages."""

from __future__ import annotations

import itertools
import json
from importlib import metadata

import pytest

splitters = pytest.importorskip(
    "langchain_text_splitters",
    reason="the LangChain adapter tests need langchain-text-splitters (the integration extra)",
)

# Lines of mixed length, as in the overlap experiment this project's docs cite:
# a short line fits in the next chunk's overlap, a long one never does.
LINES = "\n".join(
    [
        "Short line one.",
        "A considerably longer second line that carries most of the weight here.",
        "Tiny.",
        "Another long line that fills up most of the chunk all on its own, honestly.",
        "Mid-length line number five.",
        "The refund window is 30 days from delivery for all items.",
        "Customs clearance costs 9 dollars per parcel.",
    ]
)
LINE_SPLITTER = {"separator": "\n", "chunk_size": 100, "chunk_overlap": 40}


def test_start_index_from_the_library_is_the_plugins_offset(chunks_of, guide):
    args = {"chunk_size": 200, "chunk_overlap": 60}
    documents = splitters.RecursiveCharacterTextSplitter(
        **args, add_start_index=True
    ).create_documents([guide])
    chunks = chunks_of(splitters.RecursiveCharacterTextSplitter, args)
    assert [(c.text, c.start) for c in chunks] == [
        (d.page_content, d.metadata["start_index"]) for d in documents
    ]
    assert all(guide[c.start : c.end] == c.text for c in chunks)


def test_a_class_is_built_with_start_indexes_so_repeated_text_is_placed_right(chunks_of):
    # In text that repeats itself, a chunk's text also occurs inside the chunk
    # before it; LangChain's start_index searches from where the previous
    # chunk's overlap ends, so its offsets do not go back.
    text = "ping pong " * 30
    chunks = chunks_of(
        splitters.RecursiveCharacterTextSplitter, {"chunk_size": 40, "chunk_overlap": 0}, text=text
    )
    assert len(chunks) > 3
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert all(left.end <= right.start for left, right in itertools.pairwise(chunks))


def test_configured_line_overlap_is_lost_where_long_lines_meet(chunks_of):
    assert LINE_SPLITTER["chunk_overlap"] == 40
    chunks = chunks_of(splitters.CharacterTextSplitter, LINE_SPLITTER, text=LINES)
    assert all(LINES[c.start : c.end] == c.text for c in chunks)
    shared = [left.end - right.start for left, right in itertools.pairwise(chunks)]
    # The short line "Tiny." is carried into the next chunk; after each long
    # line nothing is: the chunks do not even share the newline between them.
    assert shared == [len("Tiny."), -1, -1]
    assert chunks[1].text.startswith("Tiny.\n")


def test_lost_overlap_splits_a_span_that_fixed_windows_keep_whole(project):
    span = "honestly. Mid-length line"  # 25 chars across the second boundary
    case = {"id": "line-five", "question": "What is line five?", "needle": span}
    pytester = project(
        {},
        docs={"lines.md": LINES},
        gold={
            "langchain.yaml": {
                "chunker": "langchain_text_splitters:CharacterTextSplitter",
                "chunker_args": LINE_SPLITTER,
                "cases": [case],
            },
            "fixed.yaml": {"chunker_args": {"size": 100, "overlap": 40}, "cases": [case]},
        },
    )
    result = pytester.runpytest("--chunkrecall-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    verdicts = {case["nodeid"]: case["verdict"] for case in report["cases"]}
    assert verdicts == {
        "gold/langchain.yaml::line-five": "split",
        "gold/fixed.yaml::line-five": "hit",
    }
    (cut,) = [case["cut"] for case in report["cases"] if case["verdict"] == "split"]
    assert (cut["doc"], cut["offset"], cut["before"][-9:]) == ("docs/lines.md", 169, "honestly.")
    # only the newline between the two chunks is left out: they do not overlap
    assert (cut["left"]["index"], cut["left"]["start"], cut["left"]["end"]) == (1, 88, 169)
    assert (cut["right"]["index"], cut["right"]["start"], cut["right"]["end"]) == (2, 170, 256)
    assert "    the two chunks do not overlap" in result.outlines


def test_split_and_hit_through_a_splitter_class(
    project, chunks_of, split_case, hit_case, verdicts, cuts
):
    args = {"chunk_size": 300, "chunk_overlap": 0}
    offset, across = split_case(chunks_of(splitters.RecursiveCharacterTextSplitter, args))
    pytester = project(
        {
            "chunker": "langchain_text_splitters:RecursiveCharacterTextSplitter",
            "chunker_args": args,
        },
        [hit_case, across],
    )
    result = pytester.runpytest("--chunkrecall-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    assert verdicts() == {"gift-cards": "hit", "across-a-boundary": "split"}
    assert cuts()["across-a-boundary"] == ("docs/guide.md", offset)


def test_chunks_joined_with_one_newline_are_placed_up_to_their_whitespace(chunks_of, guide):
    # The guide's paragraphs are separated by blank lines, and the splitter
    # joins lines with a single newline: its chunks are not the document's text
    # verbatim, and LangChain's own start_index cannot find them either.
    args = {"separator": "\n", "chunk_size": 400, "chunk_overlap": 100}
    documents = splitters.CharacterTextSplitter(**args, add_start_index=True).create_documents(
        [guide]
    )
    assert any(d.metadata["start_index"] == -1 for d in documents)
    chunks = chunks_of(splitters.CharacterTextSplitter, args)
    assert [c.text for c in chunks] == [d.page_content for d in documents]
    assert any(guide[c.start : c.end] != c.text for c in chunks)
    assert all(guide[c.start : c.end].split() == c.text.split() for c in chunks)
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)


def test_a_splitter_that_rewrites_its_chunks_leaves_offsets_unknown_and_verdicts_work(
    project, hit_case
):
    # A contextual header on every chunk: text the document does not have, so
    # no offsets can be known, yet the verdicts come from the chunks' text.
    ranked_out = {
        "id": "repairs",
        "question": "How fast is express delivery?",
        "needle": "the first repair of each item is free",
    }
    pytester = project(
        {"chunker": "rag.chunking:splitter", "k": 1},
        [hit_case, ranked_out],
        modules={
            "rag.chunking": """
                from langchain_text_splitters import RecursiveCharacterTextSplitter

                class HeaderedSplitter(RecursiveCharacterTextSplitter):
                    def split_text(self, text):
                        return [f"Customer guide: {chunk}" for chunk in super().split_text(text)]

                splitter = HeaderedSplitter(chunk_size=400, chunk_overlap=100)
            """
        },
    )
    result = pytester.runpytest("--chunkrecall-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["repairs"]["verdict"] == "ranked_out"
    (held,) = cases["repairs"]["held"]
    assert (held["chunk"]["start"], held["chunk"]["end"]) == (None, None)
    assert [(c["start"], c["end"]) for c in cases["repairs"]["top"]] == [(None, None)]
    geometry = report["gold_files"][0]["geometry"]
    assert (geometry["chunks"], geometry["placed"]) == (6, 0)
    # where offsets are unknown, the message says so instead of showing made-up ones
    assert "docs/guide.md [offsets unknown] chunk" in result.stdout.str()


def test_chunker_args_for_a_configured_instance_are_refused(project, hit_case):
    pytester = project(
        {"chunker": "rag.chunking:splitter", "chunker_args": {"chunk_size": 100}},
        [hit_case],
        modules={
            "rag.chunking": """
                from langchain_text_splitters import RecursiveCharacterTextSplitter

                splitter = RecursiveCharacterTextSplitter()
            """
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)  # refused while collecting, before any case runs
    result.stdout.fnmatch_lines(["*is an object that is already configured*name its class*"])


def test_a_splitter_whose_api_changed_is_named_with_its_version(project, hit_case):
    pytester = project(
        {"chunker": "rag.chunking:RenamedSplitter"},
        [hit_case],
        modules={
            "rag.chunking": """
                from langchain_text_splitters import RecursiveCharacterTextSplitter

                class RenamedSplitter(RecursiveCharacterTextSplitter):
                    create_documents = None  # as if a release had renamed it
            """
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    version = metadata.version("langchain-text-splitters")
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: gold/guide.yaml: chunker rag.chunking:RenamedSplitter is a LangChain "
            "text splitter, but it has no create_documents() method: langchain-text-splitters "
            f"{version} is installed, and pytest-chunkrecall knows the API of *"
        ]
    )
