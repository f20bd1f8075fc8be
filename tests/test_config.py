"""Configuration: ini options, gold keys over them, conftest hooks, and the corpus loader."""

from __future__ import annotations

import pytest

from .conftest import POLICIES, assert_no_internals, dedent, lines

BARE = dedent(
    """
    cases:
      - id: refund
        question: refund window
        needle: 30 DAYS
    """
)

ALL_INI = """
    chunkrecall_corpus =
        docs/policies.md
        docs/care.md
    chunkrecall_chunker = rag:sentences
    chunkrecall_chunker_args = {"unused": 1}
    chunkrecall_retriever = rag:keywords
    chunkrecall_retriever_args = {rankings: {refund window: [1, 0]}}
    chunkrecall_k = 1
    chunkrecall_match = exact
    chunkrecall_fuzzy_threshold = 70
"""


def facts(report):
    (gold,) = report["gold_files"]
    return {
        key: gold[key]
        for key in (
            "corpus",
            "documents",
            "chunker",
            "chunker_args",
            "retriever",
            "retriever_args",
            "k",
            "match",
        )
    }


def test_every_ini_option_configures_a_bare_gold_file(shop):
    shop.ini(ALL_INI)
    shop.gold(BARE)
    _, report = shop.report()
    assert facts(report) == {
        "corpus": "docs/policies.md, docs/care.md",
        "documents": 2,
        "chunker": "rag:sentences",
        "chunker_args": {"unused": 1},
        "retriever": "rag:keywords",
        "retriever_args": {"rankings": {"refund window": [1, 0]}},
        "k": 1,
        "match": "exact",
    }
    (case,) = report["cases"]
    assert (case["verdict"], case["k"], case["match"]) == ("absent", 1, "exact")


def test_gold_keys_override_every_ini_option(shop):
    shop.ini(ALL_INI)
    shop.gold(
        dedent(
            """
        corpus: ../docs/policies.md
        chunker: pytest_chunkrecall.chunkers:fixed_size
        chunker_args: {size: 80, overlap: 24}
        retriever: pytest_chunkrecall.retrievers:bm25
        retriever_args: {k1: 1.2}
        k: 3
        match: normalized
        fuzzy_threshold: 95
        """
        )
        + BARE
    )
    _, report = shop.report()
    assert facts(report) == {
        "corpus": "../docs/policies.md",
        "documents": 1,
        "chunker": "pytest_chunkrecall.chunkers:fixed_size",
        "chunker_args": {"size": 80, "overlap": 24},
        "retriever": "pytest_chunkrecall.retrievers:bm25",
        "retriever_args": {"k1": 1.2},
        "k": 3,
        "match": "normalized",
    }
    assert report["gold_files"][0]["chunks"] == 9
    assert report["cases"][0]["verdict"] == "hit"


def test_ini_fuzzy_threshold_applies(shop):
    shop.gold(BARE.replace("30 DAYS", "30 dayz"))
    for threshold, verdict in (("80", "hit"), ("99", "absent")):
        shop.ini(
            f"chunkrecall_corpus = docs/policies.md\nchunkrecall_match = fuzzy\n"
            f"chunkrecall_fuzzy_threshold = {threshold}\n"
        )
        assert shop.cases()["refund"]["verdict"] == verdict, threshold


def test_ini_in_pyproject_toml(shop):
    (shop.path / "pytest.ini").unlink()
    shop.pytester.makepyprojecttoml(
        """
        [tool.pytest.ini_options]
        pythonpath = ["."]
        chunkrecall_corpus = ["docs/policies.md"]
        chunkrecall_chunker_args = "{size: 80, overlap: 24}"
        chunkrecall_retriever = "rag:keywords"
        chunkrecall_k = "1"
        """
    )
    shop.gold(BARE)
    _, report = shop.report()
    info = report["gold_files"][0]
    assert (info["chunks"], info["k"], info["retriever"]) == (9, 1, "rag:keywords")


def test_ini_corpus_is_relative_to_the_rootdir_and_gold_corpus_to_the_gold_file(shop):
    shop.ini("chunkrecall_corpus = docs/care.md")
    shop.gold(BARE, "suite/gold/deep.yaml")
    shop.gold("corpus: ../../docs/policies.md\n" + BARE, "suite/gold/own.yaml")
    _, report = shop.report()
    docs = {g["path"]: (g["corpus"], g["corpus_chars"]) for g in report["gold_files"]}
    assert docs["suite/gold/deep.yaml"][0] == "docs/care.md"
    assert docs["suite/gold/own.yaml"] == ("../../docs/policies.md", len(POLICIES))


BAD_INI = [
    ("chunkrecall_k = three", "ini option chunkrecall_k must be a whole number*'three'*"),
    ("chunkrecall_k = 0", "ini option chunkrecall_k must be at least 1*"),
    (
        "chunkrecall_fuzzy_threshold = 140",
        "ini option chunkrecall_fuzzy_threshold must be from 0 to 100*",
    ),
    (
        "chunkrecall_match = fuzzzy",
        "ini option chunkrecall_match must be one of*did you mean 'fuzzy'?",
    ),
    (
        "chunkrecall_chunker = rag.sentences",
        "ini option chunkrecall_chunker must be 'module:attr'*",
    ),
    ("chunkrecall_chunker_args = {size: 80", "ini option chunkrecall_chunker_args: cannot read*"),
    (
        "chunkrecall_retriever_args = [1, 2]",
        "ini option chunkrecall_retriever_args must be a mapping*",
    ),
]


@pytest.mark.parametrize("line, message", BAD_INI, ids=[b[0].split(" =")[0] for b in BAD_INI])
def test_a_bad_ini_value_is_a_usage_error_naming_the_option(shop, line, message):
    shop.ini(line)
    shop.gold("corpus: ../docs/*.md\n" + BARE)
    result = shop.run("--chunkrecall-report", "r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert_no_internals(result)
    assert not (shop.path / "r.json").exists()


@pytest.mark.parametrize(
    "value, message",
    [("0", "*--chunkrecall-k must be at least 1, not 0*"), ("three", "*invalid int value*")],
)
def test_a_bad_chunkrecall_k_is_a_usage_error(shop, value, message):
    shop.gold("corpus: ../docs/*.md\n" + BARE)
    result = shop.run("--chunkrecall-k", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


LOADER = """
def latin1(path):
    return path.read_text(encoding="latin-1")


def broken(path):
    raise RuntimeError("the PDF library is not installed")


def bytes_back(path):
    return path.read_bytes()
"""


def test_the_loader_reads_files_that_are_not_utf8(shop):
    shop.write("docs/menu.md", "Le café ferme à 18 h. Le thé est offert.".encode("latin-1"))
    shop.write("loaders.py", LOADER)
    shop.gold(
        """
        corpus: ../docs/menu.md
        chunker: rag:sentences
        cases:
          - id: tea
            question: thé
            needle: thé est offert
        """
    )
    result = shop.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: gold/policies.yaml:1: corpus file docs/menu.md is not UTF-8 text*"
            "set chunkrecall_loader*"
        ]
    )
    assert_no_internals(result)

    shop.ini("chunkrecall_loader = loaders:latin1")
    result = shop.run()
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "loader, message",
    [
        ("loaders:broken", "*loader loaders:broken failed on docs/policies.md:*"),
        ("loaders:bytes_back", "*loader loaders:bytes_back returned bytes for docs/policies.md*"),
    ],
)
def test_a_failing_loader_is_named(shop, loader, message):
    shop.write("loaders.py", LOADER)
    shop.ini(f"chunkrecall_loader = {loader}")
    shop.gold("corpus: ../docs/policies.md\n" + BARE)
    result = shop.run()
    result.stdout.fnmatch_lines([message])
    assert_no_internals(result)


def test_a_loader_that_is_not_there_stops_the_run_before_any_test(shop):
    shop.write("loaders.py", LOADER)
    shop.ini("chunkrecall_loader = loaders:missing")
    shop.gold("corpus: ../docs/policies.md\n" + BARE)
    result = shop.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: ini option chunkrecall_loader: loader 'loaders:missing': 'loaders' has no attribute 'missing'*"
        ]
    )


HOOKS = """
import pytest


def whole_document(text):
    return [text]


def last_chunk(chunks):
    return lambda question, k: [len(chunks) - 1]


@pytest.hookimpl
def pytest_chunkrecall_chunker(config, gold_path):
    return whole_document


@pytest.hookimpl
def pytest_chunkrecall_retriever(config, gold_path):
    return last_chunk


@pytest.hookimpl
def pytest_chunkrecall_documents(config, gold_path):
    if gold_path.name == "hooked.yaml":
        return {"faq/returns": "Returns are free within 30 days. Refunds take 5 days."}
    return None
"""


def test_conftest_hooks_supply_chunker_retriever_and_documents(shop):
    shop.pytester.makeconftest(HOOKS)
    shop.gold(BARE.replace("30 DAYS", "5 days"), "gold/hooked.yaml")
    result, report = shop.report()
    result.assert_outcomes(passed=1)
    info = report["gold_files"][0]
    assert info["corpus"] == "pytest_chunkrecall_documents"
    assert info["chunker"] == "whole_document (from pytest_chunkrecall_chunker)"
    assert info["retriever"] == "last_chunk (from pytest_chunkrecall_retriever)"
    assert (info["documents"], info["chunks"]) == (1, 1)
    assert report["cases"][0]["top"][0]["doc"] == "faq/returns"


def test_gold_keys_take_precedence_over_hooks(shop):
    shop.pytester.makeconftest(HOOKS)
    shop.gold(
        dedent(
            """
            corpus: ../docs/policies.md
            chunker: pytest_chunkrecall.chunkers:fixed_size
            chunker_args: {size: 80, overlap: 0}
            retriever: rag:keywords
            """
        )
        + BARE,
        "gold/hooked.yaml",
    )
    _, report = shop.report()
    info = report["gold_files"][0]
    assert (info["corpus"], info["chunks"], info["retriever"]) == (
        "../docs/policies.md",
        7,
        "rag:keywords",
    )


def test_hooks_take_precedence_over_ini(shop):
    shop.pytester.makeconftest(HOOKS)
    shop.ini(
        "chunkrecall_chunker = rag:sentences\nchunkrecall_retriever = rag:keywords\n"
        "chunkrecall_corpus = docs/care.md"
    )
    shop.gold(BARE, "gold/hooked.yaml")
    _, report = shop.report()
    info = report["gold_files"][0]
    assert info["chunker"].startswith("whole_document")
    assert info["retriever"].startswith("last_chunk")
    assert info["corpus"] == "pytest_chunkrecall_documents"


def test_a_conftest_in_a_subfolder_supplies_only_its_gold_files(shop):
    shop.write("team/conftest.py", HOOKS)
    shop.gold("corpus: ../../docs/policies.md\n" + BARE, "team/gold/a.yaml")
    shop.gold("corpus: ../docs/policies.md\n" + BARE, "gold/b.yaml")
    _, report = shop.report()
    chunkers = {g["path"]: g["chunker"] for g in report["gold_files"]}
    assert chunkers["team/gold/a.yaml"].startswith("whole_document")
    assert chunkers["gold/b.yaml"] == "pytest_chunkrecall.chunkers:fixed_size"


def test_documents_hook_must_return_text(shop):
    shop.pytester.makeconftest(
        "def pytest_chunkrecall_documents(config, gold_path):\n    return {'a': b'bytes'}\n"
    )
    shop.gold(BARE)
    result = shop.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        lines(
            "chunkrecall: gold/policies.yaml (pytest_chunkrecall_documents): document 'a'*"
            " is a bytes, not text*"
        )
    )
    assert_no_internals(result)


@pytest.mark.parametrize(
    "hook",
    ["pytest_chunkrecall_documents", "pytest_chunkrecall_chunker", "pytest_chunkrecall_retriever"],
)
def test_a_hook_that_raises_is_named_with_the_users_traceback_only(shop, hook):
    shop.pytester.makeconftest(
        f"def {hook}(config, gold_path):\n    return connect()\n\n\n"
        "def connect():\n    raise RuntimeError('database unreachable')\n"
    )
    shop.gold(BARE)
    result = shop.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            f"chunkrecall: gold/policies.yaml: {hook} raised RuntimeError: database unreachable:",
            '*conftest.py", line 2, in *',
            '*conftest.py", line 6, in connect',
            "RuntimeError: database unreachable",
        ]
    )
    assert_no_internals(result)
    result.stdout.no_fnmatch_line("*pluggy/*")


def test_ini_chunker_args_do_not_follow_a_gold_file_to_another_chunker(shop):
    shop.ini(
        """
        chunkrecall_corpus = docs/policies.md
        chunkrecall_chunker_args = {size: 80, overlap: 24}
        """
    )
    shop.gold(
        """
        chunker: rag:sentences
        cases:
          - question: restocking fee
            needle: 15 percent
        """,
        "gold/sentences.yaml",
    )
    shop.gold(
        """
        cases:
          - question: restocking fee
            needle: 15 percent
        """,
        "gold/windows.yaml",
    )
    _, report = shop.report()
    facts = {g["path"]: g for g in report["gold_files"]}
    assert facts["gold/sentences.yaml"]["chunker_args"] == {}
    assert facts["gold/windows.yaml"]["chunker_args"] == {"size": 80, "overlap": 24}
