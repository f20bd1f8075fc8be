"""Hints of the summary and of usage errors: each said once, the documented name first."""

from __future__ import annotations

import pytest

from .conftest import QUIET, STOREFRONT_CASES, Shop

# A chunker that takes an overlap and delivers none, as a line-based splitter can.
DROPPING = """
from pytest_chunkrecall.chunkers import fixed_size


def windows(text, size=80, overlap=0):
    return fixed_size(text, size, 0)


def library_style(text, chunk_size=80, chunk_overlap=0):
    return fixed_size(text, chunk_size, chunk_overlap)
"""
HINT = "a larger overlap will not help until the chunker delivers the one configured"


def test_the_undelivered_overlap_hint_is_said_once_per_setup(shop: Shop) -> None:
    shop.write("drop.py", DROPPING)
    setup = "corpus: ../docs/policies.md\nchunker: drop:windows\nchunker_args: {size: 80, overlap: 28}\nk: 1\n"
    shop.gold(setup + STOREFRONT_CASES)
    shop.gold(setup + STOREFRONT_CASES, name="gold/again.yaml")
    shop.gold(setup.replace("size: 80", "size: 100") + STOREFRONT_CASES, name="gold/larger.yaml")
    result = shop.run(*QUIET, "--tb=no")
    hints = [line for line in result.outlines if HINT in line]
    # gold/again.yaml shares gold/policies.yaml's setup; gold/larger.yaml has its own
    assert len(hints) == 2, result.stdout.str()
    assert "  corpus, chunker, retriever and geometry as gold/again.yaml" in "\n".join(
        result.outlines
    )


def test_a_misspelt_sweep_name_suggests_the_documented_alias_first(shop: Shop) -> None:
    shop.write("drop.py", DROPPING)
    shop.gold(
        "corpus: ../docs/policies.md\nchunker: drop:library_style\n"
        "chunker_args: {chunk_size: 80, chunk_overlap: 0}\nk: 1\n" + STOREFRONT_CASES
    )
    result = shop.run("--chunkrecall-sweep", "overlp=0,28")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cannot sweep overlp over chunker drop:library_style*"])
    assert "did you mean 'overlap'?" in result.stderr.str()
    # and the name suggested is one the sweep takes
    assert shop.run("--tb=no", "--chunkrecall-sweep", "overlap=0,28").ret in (
        pytest.ExitCode.OK,
        pytest.ExitCode.TESTS_FAILED,
    )
