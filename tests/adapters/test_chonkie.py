"""chonkie chunkers, against the real package."""

from __future__ import annotations

import pytest

chonkie = pytest.importorskip("chonkie", reason="needs chonkie (the integration extra)")

CHUNKERS = [
    ("TokenChunker", {"chunk_size": 120, "chunk_overlap": 30}),
    ("SentenceChunker", {"chunk_size": 200, "chunk_overlap": 40}),
    ("RecursiveChunker", {"chunk_size": 200}),
]


@pytest.mark.parametrize(("name", "args"), CHUNKERS, ids=[name for name, _ in CHUNKERS])
def test_start_and_end_index_from_the_library_are_the_plugins_offsets(chunks_of, guide, name, args):
    cls = getattr(chonkie, name)
    expected = [(c.text, c.start_index, c.end_index) for c in cls(**args).chunk(guide)]
    chunks = chunks_of(cls, args)
    assert [(c.text, c.start, c.end) for c in chunks] == expected
    assert all(guide[c.start : c.end] == c.text for c in chunks)


@pytest.mark.parametrize("name", ["TokenChunker", "SentenceChunker", "RecursiveChunker"])
def test_split_and_hit_through_a_chonkie_class(
    project, chunks_of, split_case, hit_case, verdicts, cuts, name
):
    args = {"chunk_size": 200}
    offset, across = split_case(chunks_of(getattr(chonkie, name), args))
    pytester = project({"chunker": f"chonkie:{name}", "chunker_args": args}, [hit_case, across])
    result = pytester.runpytest("--chunkrecall-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    assert verdicts() == {"gift-cards": "hit", "across-a-boundary": "split"}
    assert cuts()["across-a-boundary"] == ("docs/guide.md", offset)
