"""semchunk chunkers from chunkerify(), against the real package."""

from __future__ import annotations

import itertools
from importlib import metadata

import pytest

semchunk = pytest.importorskip("semchunk", reason="needs semchunk (the integration extra)")

CHUNKING_MODULE = """
    import semchunk


    def count_words(text):
        return len(text.split())


    chunker = semchunk.chunkerify(count_words, chunk_size=24)
"""


def count_words(text: str) -> int:
    return len(text.split())


@pytest.mark.parametrize("args", [{}, {"overlap": 0.5}], ids=["plain", "overlap"])
def test_offsets_from_the_library_are_the_plugins_offsets(chunks_of, guide, args):
    chunker = semchunk.chunkerify(count_words, chunk_size=24)
    texts, offsets = chunker(guide, offsets=True, **args)
    chunks = chunks_of(chunker, args)
    assert [(c.text, c.start, c.end) for c in chunks] == [
        (text, start, end) for text, (start, end) in zip(texts, offsets, strict=True)
    ]
    assert all(guide[c.start : c.end] == c.text for c in chunks)
    if args:  # the call-time overlap reached the chunker
        assert any(left.end > right.start for left, right in itertools.pairwise(chunks))


def test_split_and_hit_through_a_chunkerify_instance(
    project, chunks_of, split_case, hit_case, verdicts, cuts
):
    offset, across = split_case(chunks_of(semchunk.chunkerify(count_words, chunk_size=24)))
    pytester = project(
        {"chunker": "rag.chunking:chunker"},
        [hit_case, across],
        modules={"rag.chunking": CHUNKING_MODULE},
    )
    result = pytester.runpytest("--chunkrecall-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    assert verdicts() == {"gift-cards": "hit", "across-a-boundary": "split"}
    assert cuts()["across-a-boundary"] == ("docs/guide.md", offset)


def test_chunker_args_other_than_call_arguments_are_refused(project, hit_case):
    pytester = project(
        {"chunker": "rag.chunking:chunker", "chunker_args": {"chunk_size": 10}},
        [hit_case],
        modules={"rag.chunking": CHUNKING_MODULE},
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)  # refused while collecting, before any case runs
    result.stdout.fnmatch_lines(
        [
            "*chunker rag.chunking:chunker * is a semchunk chunker, configured by chunkerify(); "
            "its chunker_args can only be arguments of its call, such as overlap, not chunk_size"
        ]
    )


def test_a_semchunk_without_offsets_is_named_with_its_version(project, hit_case):
    pytester = project(
        {"chunker": "rag.chunking:chunker"},
        [hit_case],
        modules={
            "rag.chunking": """
                import semchunk

                class ChunkerBefore3(semchunk.Chunker):
                    # The call as it was before semchunk 3.0 added offsets.
                    def __call__(self, text_or_texts, processes=1, progress=False):
                        return super().__call__(text_or_texts, processes, progress)

                chunker = ChunkerBefore3(24, lambda text: len(text.split()))
            """
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    version = metadata.version("semchunk")
    result.stdout.fnmatch_lines(
        [
            "*chunker rag.chunking:chunker is a semchunk chunker, but its call takes no "
            f"offsets argument (added in semchunk 3.0): semchunk {version} is installed*"
        ]
    )
