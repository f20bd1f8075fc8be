"""A sweep over library chunkers: LangChain, chonkie and LlamaIndex, named in the ini file or
returned by a conftest hook, under the sweep's names and the libraries' own."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest

from pytest_chunkrecall.__main__ import main
from pytest_chunkrecall.chunkers import fixed_size

from .conftest import CARE, POLICIES, STOREFRONT_CASES, Shop, dedent

# The storefront's cases that a 200-character chunk keeps whole: the run passes as configured.
FOUR_CASES = STOREFRONT_CASES.split("  - id: customs")[0]

LANGCHAIN = "langchain_text_splitters:RecursiveCharacterTextSplitter"


def _library(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


# Imported here, before any in-process run: numpy (under chonkie) cannot be imported twice.
LIBRARIES = {
    name: _library(name)
    for name in ("langchain_text_splitters", "chonkie", "llama_index.core.node_parser", "semchunk")
}


def needs(reference: str) -> Any:
    """``reference`` as a parameter, skipped when its library is not installed."""
    module = next(name for name in LIBRARIES if reference.startswith(name))
    missing = LIBRARIES[module] is None
    return pytest.param(reference, marks=pytest.mark.skipif(missing, reason=f"needs {module}"))


def need(*modules: str) -> pytest.MarkDecorator:
    missing = [name for name in modules if LIBRARIES[name] is None]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}")


def configure(shop: Shop, chunker: str, args: str) -> None:
    shop.ini(
        f"""
        chunkrecall_corpus = docs/*.md
        chunkrecall_chunker = {chunker}
        chunkrecall_chunker_args = {args}
        """
    )
    shop.gold(FOUR_CASES)


def sweep_rows(shop: Shop, spec: str, *args: str) -> tuple[pytest.RunResult, list[dict[str, Any]]]:
    result, report = shop.report("--chunkrecall-sweep", spec, *args)
    return result, report["sweep"]["rows"]


# ------------------------------------------------------------ library names


@pytest.mark.parametrize("spec", ["overlap=0,40", "chunk_overlap=0,40"])
@pytest.mark.parametrize(
    "chunker",
    [needs(LANGCHAIN), needs("chonkie:TokenChunker")],  # chonkie's tokenizer: characters
)
def test_an_overlap_sweep_sets_a_library_chunkers_chunk_overlap(shop, chunker, spec):
    configure(shop, chunker, "{chunk_size: 200, chunk_overlap: 0}")
    result, rows = sweep_rows(shop, spec)
    assert result.ret == pytest.ExitCode.OK
    name = spec.partition("=")[0]
    # the configured row shows the configured overlap under the name the spec uses
    assert [row["label"] for row in rows] == [f"configured ({name}=0)", f"{name}=0", f"{name}=40"]
    assert [row["errors"] for row in rows] == [[], [], []]
    assert [row["cases"] for row in rows] == [4, 4, 4]
    configured, zero, forty = rows
    assert zero["chunks"] == configured["chunks"]
    assert zero["index_multiplier"] == configured["index_multiplier"]
    # 40 characters shared at each boundary: the index holds more text than the corpus
    assert forty["index_multiplier"] > zero["index_multiplier"]
    # the table names the rows as the report does
    shown = [
        line.split()[0]
        for line in result.outlines
        if line.startswith(("  configured", f"  {name}="))
    ]
    assert shown == ["configured", f"{name}=0", f"{name}=40"]


@need("langchain_text_splitters")
def test_a_size_sweep_shows_the_configured_chunk_size(shop):
    configure(shop, LANGCHAIN, "{chunk_size: 200, chunk_overlap: 0}")
    _result, rows = sweep_rows(shop, "size=100,200")
    assert [row["label"] for row in rows] == ["configured (size=200)", "size=100", "size=200"]
    assert rows[1]["chunks"] > rows[2]["chunks"] == rows[0]["chunks"]
    assert rows[1]["errors"] == []


@need("langchain_text_splitters")
def test_a_spec_naming_one_setting_twice_is_a_usage_error(shop):
    configure(shop, LANGCHAIN, "{chunk_size: 200, chunk_overlap: 0}")
    result = shop.run("--chunkrecall-sweep", "overlap=0,40; chunk_overlap=0,20")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --chunkrecall-sweep *: 'overlap' and 'chunk_overlap' name the same argument*"]
    )


# ------------------------------------------------------------ usage errors


@need("chonkie")
def test_an_argument_a_library_class_does_not_take_is_a_usage_error(shop):
    configure(shop, "chonkie:RecursiveChunker", "{chunk_size: 200}")
    result = shop.run("--chunkrecall-sweep", "overlap=0,40")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.assert_outcomes()  # nothing ran
    result.stderr.fnmatch_lines(
        [
            "ERROR: --chunkrecall-sweep 'overlap=0,40': gold/policies.yaml: cannot sweep overlap "
            "over chunker chonkie:RecursiveChunker: it takes no argument 'chunk_overlap' "
            "(chonkie's name for overlap); it takes tokenizer, chunk_size, rules, "
            "min_characters_per_chunk"
        ]
    )


@need("langchain_text_splitters")
def test_a_misspelt_argument_of_a_splitter_taking_kwargs_is_a_usage_error(shop):
    # RecursiveCharacterTextSplitter(**kwargs) passes them to TextSplitter: its names count
    configure(shop, LANGCHAIN, "{chunk_size: 200, chunk_overlap: 0}")
    result = shop.run("--chunkrecall-sweep", "chunk_overlp=0,40")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --chunkrecall-sweep 'chunk_overlp=0,40': gold/policies.yaml: cannot sweep "
            f"chunk_overlp over chunker {LANGCHAIN}: it takes no argument 'chunk_overlp'; it "
            "takes separators, *, chunk_size, chunk_overlap, *; did you mean 'chunk_overlap'?"
        ]
    )


HOOK = """
from {module} import {cls}


def pytest_chunkrecall_chunker(config, gold_path):
    return {cls}({args})
"""


def hook_chunker(shop: Shop, module: str, cls: str, args: str) -> None:
    shop.ini("chunkrecall_corpus = docs/*.md\n")
    shop.write("conftest.py", HOOK.format(module=module, cls=cls, args=args))
    shop.gold(FOUR_CASES)


@need("chonkie")
def test_a_hooks_chunker_without_the_attribute_is_a_usage_error_that_reads_as_a_sentence(shop):
    hook_chunker(shop, "chonkie", "RecursiveChunker", "chunk_size=200")
    result = shop.run("--chunkrecall-sweep", "overlap=0,40")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --chunkrecall-sweep 'overlap=0,40': gold/policies.yaml: cannot sweep overlap "
            "over the chunker the conftest hook pytest_chunkrecall_chunker returned, a "
            "RecursiveChunker (a chonkie chunker): it has no chunk_overlap attribute; it has "
            "size: sweep that; return its class or a factory instead, which the sweep calls "
            "with its arguments"
        ]
    )


def test_a_hooks_object_of_no_known_library_cannot_be_swept(shop):
    shop.ini("chunkrecall_corpus = docs/*.md\n")
    shop.write(
        "conftest.py",
        dedent(
            """
            class Sentences:
                overlap = 0

                def split_text(self, text):
                    return text.split(". ")

            def pytest_chunkrecall_chunker(config, gold_path):
                return Sentences()
            """
        ),
    )
    shop.gold(FOUR_CASES)
    result = shop.run("--chunkrecall-sweep", "overlap=0,40")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --chunkrecall-sweep 'overlap=0,40': gold/policies.yaml: cannot sweep overlap "
            "over the chunker the conftest hook pytest_chunkrecall_chunker returned, a "
            "Sentences: it is an object that is configured already, and pytest-chunkrecall "
            "knows where only LangChain, LlamaIndex, chonkie and semchunk chunkers keep their "
            "settings; return its class or a factory instead*"
        ]
    )


@need("chonkie")
def test_gold_files_refused_for_one_reason_are_named_on_one_line(shop):
    configure(shop, "chonkie:RecursiveChunker", "{chunk_size: 200}")
    shop.gold(FOUR_CASES, name="gold/more.yaml")
    result = shop.run("--chunkrecall-sweep", "overlap=0,40")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --chunkrecall-sweep 'overlap=0,40': gold/more.yaml, gold/policies.yaml: "
            "cannot sweep overlap over chunker chonkie:RecursiveChunker: *"
        ]
    )


@pytest.mark.slow
@need("chonkie")
def test_under_xdist_the_same_message_stops_the_run_at_collection(shop):
    configure(shop, "chonkie:RecursiveChunker", "{chunk_size: 200}")
    result = shop.pytester.runpytest_subprocess("--chunkrecall-sweep", "overlap=0,40", "-n", "2")
    # xdist's controller does not collect; a worker's collection error fails the run
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: --chunkrecall-sweep 'overlap=0,40': gold/policies.yaml: cannot sweep "
            "overlap over chunker chonkie:RecursiveChunker: it takes no argument*"
        ]
    )


# ------------------------------------------------------------ settings that fail


@need("langchain_text_splitters")
def test_a_setting_that_errors_fails_the_run_and_says_which_and_why(shop):
    configure(shop, LANGCHAIN, "{chunk_size: 200, chunk_overlap: 0}")
    result, rows = sweep_rows(shop, "overlap=0,300")
    result.assert_outcomes(passed=4)  # every test passes at the configured setting
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert rows[1]["errors"] == []
    assert len(rows[2]["errors"]) == 1
    assert "larger chunk overlap (300) than chunk size (200)" in rows[2]["errors"][0]
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: FAILED: sweep setting overlap=300 could not be evaluated: "
            f"gold/policies.yaml: chunker {LANGCHAIN}(*) failed: ValueError: Got a larger "
            "chunk overlap (300) than chunk size (200), should be smaller.*"
        ]
    )


@need("langchain_text_splitters")
def test_compare_fails_a_report_whose_sweep_errored_as_the_run_did(shop, capsys):
    configure(shop, LANGCHAIN, "{chunk_size: 200, chunk_overlap: 0}")
    shop.run("--chunkrecall-baseline", "base.json", "--chunkrecall-update-baseline")
    result, _ = sweep_rows(
        shop, "overlap=0,300", "--chunkrecall-baseline", "base.json",
        "--chunkrecall-markdown", "summary.md",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # the baseline is not what failed: accepting this state would not mend the sweep
    assert "to accept this state as the new baseline" not in result.stdout.str()
    markdown = (shop.path / "summary.md").read_text(encoding="utf-8")
    assert "**Failed:** sweep setting overlap=300 could not be evaluated" in markdown
    assert "Gate failed" not in markdown
    capsys.readouterr()
    assert main(["compare", "chunkrecall.json", "--baseline", "base.json"]) == 1
    assert "chunkrecall: FAILED: sweep setting overlap=300 could not be evaluated: " in (
        capsys.readouterr().out
    )


@need("langchain_text_splitters")
def test_a_copy_the_library_would_not_have_built_is_a_setting_that_errors(shop):
    # a copy is not built again, so what the constructor checks is checked for it
    hook_chunker(
        shop, "langchain_text_splitters", "RecursiveCharacterTextSplitter", "chunk_size=200"
    )
    result, rows = sweep_rows(shop, "overlap=0,300")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert rows[1]["errors"] == []
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: FAILED: sweep setting overlap=300 could not be evaluated: "
            "gold/policies.yaml: an overlap of 300 is larger than the chunk size 200, which a "
            "LangChain text splitter refuses"
        ]
    )


# ------------------------------------------------------------ a hook's configured object


@pytest.mark.parametrize(
    ("module", "cls", "args"),
    [
        ("langchain_text_splitters", "RecursiveCharacterTextSplitter",
         "chunk_size=200, chunk_overlap=10, add_start_index=True"),
        ("chonkie", "TokenChunker", "chunk_size=200, chunk_overlap=10"),
        ("llama_index.core.node_parser", "SentenceSplitter",
         "chunk_size=40, chunk_overlap=10, tokenizer=str.split"),
    ],
)  # fmt: skip
def test_a_hooks_configured_splitter_is_swept_by_copies_and_shows_its_own_overlap(
    shop, module, cls, args
):
    if LIBRARIES[module] is None:
        pytest.skip(f"needs {module}")
    hook_chunker(shop, module, cls, args)
    _result, rows = sweep_rows(shop, "overlap=0,10,30")
    assert [row["label"] for row in rows] == [
        "configured (overlap=10)", "overlap=0", "overlap=10", "overlap=30",
    ]  # fmt: skip
    assert [row["errors"] for row in rows] == [[]] * 4
    configured, zero, ten, thirty = (row["index_multiplier"] for row in rows)
    assert ten == configured  # the copy at the configured overlap chunks as the original
    assert zero <= ten < thirty  # (LlamaIndex overlaps whole sentences: none fit in 10 words)


@need("semchunk")
def test_a_semchunk_chunker_is_swept_in_size_by_a_copy_and_in_overlap_at_each_call(shop):
    shop.ini("chunkrecall_corpus = docs/*.md\n")
    shop.write(
        "conftest.py",
        dedent(
            """
            import semchunk

            def pytest_chunkrecall_chunker(config, gold_path):
                return semchunk.chunkerify(lambda text: len(text.split()), 40)
            """
        ),
    )
    shop.gold(FOUR_CASES)
    _, rows = sweep_rows(shop, "size=20,40")
    assert [row["label"] for row in rows] == ["configured (size=40)", "size=20", "size=40"]
    assert rows[1]["chunks"] > rows[2]["chunks"] == rows[0]["chunks"]
    _, rows = sweep_rows(shop, "overlap=0,10")
    assert [row["errors"] for row in rows] == [[]] * 3
    assert rows[2]["index_multiplier"] > rows[1]["index_multiplier"]


# ------------------------------------------------------------ the length function


def test_the_index_multiplier_is_measured_in_the_length_functions_units(shop):
    shop.write("words.py", "def count(text):\n    return len(text.split())\n")
    shop.ini(
        """
        chunkrecall_corpus = docs/*.md
        chunkrecall_chunker_args = {size: 80, overlap: 0}
        chunkrecall_length = words:count
        """
    )
    shop.gold(FOUR_CASES)
    _, report = shop.report("--chunkrecall-sweep", "overlap=0,24")
    rows = report["sweep"]["rows"]

    def words(text: str) -> int:
        return len(text.split())

    corpus = words(POLICIES) + words(CARE)
    for row, overlap in zip(rows[1:], (0, 24), strict=True):
        chunks = [c for doc in (POLICIES, CARE) for c in fixed_size(doc, size=80, overlap=overlap)]
        expected = sum(words(chunk) for chunk in chunks) / corpus
        assert row["index_multiplier"] == round(expected, 3)
    # cut mid-word, the chunks hold more words than the corpus: not the 1.0 of characters
    assert rows[1]["index_multiplier"] > 1.0
    # the configured row measures as the gold file's geometry does
    assert rows[0]["index_multiplier"] == report["gold_files"][0]["geometry"]["index_multiplier"]
