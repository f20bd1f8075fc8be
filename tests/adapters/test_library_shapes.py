"""What the adapters cost a project without the libraries, and what they say about the unknown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_chunkrecall

LIBRARIES = ("langchain", "langchain_core", "langchain_text_splitters", "llama_index",
             "chonkie", "semchunk", "wordllama")  # fmt: skip


def test_the_plugin_imports_no_library_until_one_is_used():
    root = Path(pytest_chunkrecall.__file__).parents[1]
    code = (
        "import sys, pytest_chunkrecall.plugin, pytest_chunkrecall.chunking.adapters\n"
        f"print(sorted(m for m in sys.modules if m.partition('.')[0] in {LIBRARIES!r}))"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"


def test_a_chunker_of_no_known_shape_is_told_the_shapes_accepted(project, hit_case):
    pytester = project(
        {"chunker": "rag.chunking:settings"},
        [hit_case],
        modules={"rag.chunking": "settings = {'size': 800}\n"},
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: gold/guide.yaml: chunker rag.chunking:settings gave a dict, which is "
            "not a chunker: expected a function chunk(text, **chunker_args), a class or object "
            "with a split_text / chunk / split method, or a LangChain TextSplitter, a LlamaIndex "
            "node parser, a chonkie chunker, or a semchunk chunker from chunkerify()"
        ]
    )


def test_a_retriever_of_no_known_shape_is_told_the_shapes_accepted(project, hit_case):
    pytester = project(
        {"retriever": "rag.search:build"},
        [hit_case],
        modules={"rag.search": "def build(chunks):\n    return 42\n"},
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: gold/guide.yaml: retriever rag.search:build returned an int; the "
            "factory must return a function search(question, k), an object with a "
            "retrieve(question, k), search or invoke method, or a LangChain retriever or "
            "vector store, or a LlamaIndex retriever or index"
        ]
    )


@pytest.mark.slow
def test_library_chunkers_give_the_same_report_under_xdist(
    project, chunks_of, split_case, hit_case
):
    pytest.importorskip("xdist", reason="needs pytest-xdist (the test extra)")
    splitters = pytest.importorskip(
        "langchain_text_splitters", reason="needs langchain-text-splitters"
    )
    args = {"chunk_size": 300, "chunk_overlap": 0}
    _, across = split_case(chunks_of(splitters.RecursiveCharacterTextSplitter, args))
    pytester = project(
        {
            "chunker": "langchain_text_splitters:RecursiveCharacterTextSplitter",
            "chunker_args": args,
        },
        [hit_case, across, {**hit_case, "id": "gift-cards-again"}],
    )
    serial = pytester.runpytest("--chunkrecall-report", "serial.json")
    parallel = pytester.runpytest("-n", "2", "--chunkrecall-report", "parallel.json")
    for result in (serial, parallel):
        result.assert_outcomes(passed=2, failed=1)
    read = [Path(pytester.path, name).read_text() for name in ("serial.json", "parallel.json")]
    assert read[0] == read[1]
    totals = json.loads(read[0])["totals"]
    assert (totals["hits"], totals["cases"], totals["split_spans"]) == (2, 3, 1)
