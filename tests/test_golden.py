"""The terminal text, in one place: each scenario's whole output against a file in tests/golden.

Other tests check behaviour (the JSON report, the verdicts, the exit status); these check the
words and the layout a user reads. After a deliberate change of wording, regenerate the files
with ``pytest tests/test_golden.py --update-golden`` and review the diff.
"""

from __future__ import annotations

import sys

import pytest

from .conftest import RX_AS_PYTEST_8_3_PRINTS_IT, STOREFRONT_CASES, Golden, Shop
from .test_rerank import GOLD as STAGED
from .test_rerank import RERANK

# The README's tutorial setting: 80-character windows without overlap, BM25, the top 1.
WINDOWS = "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\n"

# Ranks pinned by question, so that a ranked_out case ranks its holding chunk where we say.
PINNED = "retriever: rag:keywords\nretriever_args: {rankings: {fees: [0, 1, 2, 4, 3]}}\n"


def accept(shop: Shop, golden: Golden, ini: str) -> None:
    """Save the current verdicts as the baseline ci/baseline.json, with ``ini`` settings."""
    shop.ini("chunkrecall_baseline = ci/baseline.json\n" + ini)
    (shop.path / "ci").mkdir()
    assert golden.run("--chunkrecall-update-baseline").ret == pytest.ExitCode.OK


def test_a_split_with_its_cut_and_the_session_summary(shop: Shop, golden: Golden) -> None:
    shop.gold(WINDOWS + STOREFRONT_CASES)
    result = golden.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    golden.check("split", "pytest", result)


def test_a_ranked_out_case_names_the_holding_chunk_and_its_rank(shop: Shop, golden: Golden) -> None:
    shop.gold(
        WINDOWS.replace("k: 1", "k: 2")
        + PINNED
        + "cases:\n  - id: fee\n    question: fees\n    needle: 15 percent\n"
    )
    result = golden.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    golden.check("ranked_out", "pytest", result)


def test_an_absent_needle_shows_the_closest_text(shop: Shop, golden: Golden) -> None:
    shop.gold(
        WINDOWS + "cases:\n  - id: refund\n    question: refund window\n    needle: 45 days\n"
    )
    result = golden.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    golden.check("absent", "pytest", result)


@RX_AS_PYTEST_8_3_PRINTS_IT
def test_an_expected_failure_and_a_known_miss_in_the_short_summary(
    shop: Shop, golden: Golden
) -> None:
    shop.gold(
        WINDOWS
        + STOREFRONT_CASES.replace(
            "to: 9 dollars}\n", "to: 9 dollars}\n    xfail: anchor and value sit too far apart\n"
        )
    )
    accept(shop, golden, "")
    result = golden.run("-rx")
    assert result.ret == pytest.ExitCode.OK
    golden.check("known_miss", "pytest -rx", result)


def test_a_regression_against_the_baseline_and_the_gate_line(shop: Shop, golden: Golden) -> None:
    shop.gold(WINDOWS.replace("overlap: 0", "overlap: 28") + STOREFRONT_CASES)
    accept(shop, golden, "chunkrecall_max_drop = 10\n")
    shop.gold(WINDOWS + STOREFRONT_CASES)
    result = golden.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    golden.check("regression_gate", "pytest", result)


def test_the_significance_gate_states_its_decision(shop: Shop, golden: Golden) -> None:
    shop.gold(WINDOWS.replace("overlap: 0", "overlap: 28") + STOREFRONT_CASES)
    accept(shop, golden, "chunkrecall_gate = significant\n")
    shop.gold(WINDOWS + STOREFRONT_CASES)
    result = golden.run()
    golden.check("significant_gate", "pytest", result)


def test_a_sweep_table(shop: Shop, golden: Golden) -> None:
    shop.gold(WINDOWS + STOREFRONT_CASES)
    result = golden.run("--tb=no", "--chunkrecall-sweep", "overlap=0,16,28")
    golden.check("sweep", 'pytest --tb=no --chunkrecall-sweep "overlap=0,16,28"', result)


def test_a_reranker_that_drops_the_holding_candidate(shop: Shop, golden: Golden) -> None:
    shop.write("rerank.py", RERANK)
    shop.gold(STAGED)
    result = golden.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    golden.check("reranked_out", "pytest", result)


def test_a_malformed_gold_file_is_a_collection_error_at_its_line(
    shop: Shop, golden: Golden
) -> None:
    shop.gold(
        "corpus: ../docs/policies.md\n"
        "cases:\n"
        "  - id: refund\n"
        "    question: refund window\n"
        "    neddle: 30 days\n"
    )
    result = golden.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    golden.check("collection_error", "pytest", result)


def test_an_ini_option_out_of_range_is_a_usage_error(shop: Shop, golden: Golden) -> None:
    shop.gold(WINDOWS + STOREFRONT_CASES)
    result = golden.run("-o", "chunkrecall_k=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    golden.check("usage_error", "pytest -o chunkrecall_k=0", result)


def test_the_compare_command_prints_the_run_summary(shop: Shop, golden: Golden) -> None:
    shop.gold(WINDOWS.replace("overlap: 0", "overlap: 28") + STOREFRONT_CASES)
    accept(shop, golden, "")
    shop.gold(WINDOWS + STOREFRONT_CASES)
    golden.run("--chunkrecall-report", "run.json")
    command = ("compare", "run.json", "--baseline", "ci/baseline.json")
    result = shop.pytester.run(sys.executable, "-m", "pytest_chunkrecall", *command)
    assert result.ret == 1
    golden.check("compare", "python -m pytest_chunkrecall " + " ".join(command), result)


def test_a_retriever_that_raises_for_one_question(shop: Shop, golden: Golden) -> None:
    shop.write(
        "flaky.py",
        "from pytest_chunkrecall.retrievers import bm25\n\n\n"
        "def build(chunks):\n"
        "    search = bm25(chunks)\n\n"
        "    def ask(question, k):\n"
        "        if 'refund' in question:\n"
        "            raise RuntimeError('index offline')\n"
        "        return search(question, k)\n\n"
        "    return ask\n",
    )
    shop.gold(
        "corpus: ../docs/policies.md\nretriever: flaky:build\ncases:\n"
        "  - question: refund window\n    needle: 30 days\n"
        "  - question: restocking fee\n    needle: 15 percent\n"
    )
    result = golden.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    golden.check("retriever_raises", "pytest", result)
