"""Sweeps over the setup settings of the settings table: loader, retriever and its arguments,
reranker, candidates, k, each row named with the setting in full."""

from __future__ import annotations

import pytest

from .conftest import Shop

# At k = 1, two hits; warranty's chunk ranks 3rd and express's 2nd.
GOLD = """
    corpus: ../docs/policies.md
    chunker_args: {size: 120, overlap: 40}
    k: 1
    cases:
      - id: refund-window
        question: refund window days
        needle: 30 days
      - id: restocking
        question: restocking fee returns
        needle: 15 percent
      - id: warranty
        question: purchase date on file policy
        needle: 12 months
      - id: express
        question: the delivery date
        needle: 2 business days
"""


RERANK = """
def keep(question, chunks, k):
    return list(chunks)[:k]


def nothing(question, chunks, k):
    return []
"""


def _rows(report):
    return {row["label"]: row for row in report["sweep"]["rows"]}


def test_a_sweep_over_the_retrievers_arguments_reaches_the_retriever(shop: Shop):
    shop.gold(GOLD)
    result, report = shop.report(
        "--chunkrecall-sweep", "retriever_args={k1: 0.5, b: 0.2},{k1: 2.0}"
    )
    rows = _rows(report)
    assert list(rows) == [
        "configured (retriever_args={})",
        'retriever_args={"b": 0.2, "k1": 0.5}',
        'retriever_args={"k1": 2.0}',
    ]
    assert all(row["cases"] == 4 and not row["errors"] for row in rows.values())
    result.stdout.fnmatch_lines(['*retriever_args={"k1": 2.0} *'])


def test_an_argument_the_retriever_does_not_take_fails_that_row_naming_it(shop: Shop):
    shop.gold(GOLD)
    result, report = shop.report("--chunkrecall-sweep", "retriever_args={k1: 1.0},{depth: 3}")
    assert result.ret == 1
    rows = _rows(report)
    assert rows['retriever_args={"k1": 1.0}']["errors"] == []
    (error,) = rows['retriever_args={"depth": 3}']["errors"]
    assert "depth" in error


def test_a_sweep_over_k_asks_for_more_chunks_at_each_point(shop: Shop):
    shop.gold(GOLD)
    _, report = shop.report("--chunkrecall-sweep", "k=1,3")
    rows = _rows(report)
    assert list(rows) == ["configured (k=1)", "k=1", "k=3"]
    assert [row["hits"] for row in rows.values()] == [2, 2, 4]


def test_a_sweep_over_the_reranker_imports_each_and_keeps_the_candidates(shop: Shop):
    shop.write("rerank.py", RERANK)
    shop.gold(
        GOLD.replace("    k: 1\n", "    k: 1\n    reranker: rerank:keep\n    candidates: 3\n")
    )
    _, report = shop.report("--chunkrecall-sweep", "reranker=rerank:keep,rerank:nothing")
    rows = _rows(report)
    assert list(rows) == [
        "configured (reranker=rerank:keep)",
        "reranker=rerank:keep",
        "reranker=rerank:nothing",
    ]
    # keep is the first stage's order; nothing keeps no candidate
    assert [row["hits"] for row in rows.values()] == [2, 2, 0]


LOADERS = """
from pathlib import Path

from bs4 import BeautifulSoup


def soup(path):
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser").get_text()


def spaced(path):
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser").get_text(" ")
"""

TABLE = """\
<html><body><table>
  <tr><td>Refund window</td><td>30</td><td>days</td></tr>
  <tr><td>Restocking fee</td><td>15 percent</td></tr>
</table></body></html>
"""


def test_a_sweep_over_the_loader_reads_the_corpus_through_each(shop: Shop):
    pytest.importorskip("bs4")
    shop.write("docs/refunds.html", TABLE)
    shop.write("loaders.py", LOADERS)
    shop.ini("chunkrecall_loader = loaders:spaced")
    shop.gold(
        """
        corpus: ../docs/refunds.html
        cases:
          - id: refund-window
            question: refund window
            needle: 30 days
          - id: restocking
            question: restocking fee
            needle: 15 percent
        """
    )
    result, report = shop.report("--chunkrecall-sweep", "loader=loaders:soup,loaders:spaced")
    rows = _rows(report)
    assert list(rows) == [
        "configured (loader=loaders:spaced)",
        "loader=loaders:soup",
        "loader=loaders:spaced",
    ]
    assert [row["hits"] for row in rows.values()] == [2, 1, 2]  # soup glues "30days"
    result.stdout.fnmatch_lines(["*loader=loaders:soup *1/2*"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("depth=1,2", "*'depth' is no part of the setup; a sweep varies chunker, *"),
        ("k=0,3", "*k=0 must be at least 1, not 0*"),
        ("loader=notanentry", "*loader=notanentry must be 'module:attr'*"),
        ("size=80 chunker=rag:sentences", "*'size' is an argument of the configured chunker*"),
    ],
)
def test_a_sweep_of_a_setting_is_checked_by_its_row_before_any_test(shop: Shop, spec, message):
    shop.gold(GOLD)
    result = shop.run("--chunkrecall-sweep", spec)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --chunkrecall-sweep*{message}"])
    assert "passed" not in result.stdout.str()


def test_a_sweep_of_setup_settings_gives_the_same_rows_under_xdist(shop: Shop):
    pytest.importorskip("xdist")
    shop.write("rerank.py", RERANK)
    shop.gold(
        GOLD.replace("    k: 1\n", "    k: 1\n    reranker: rerank:keep\n    candidates: 3\n")
    )
    spec = "retriever_args={k1: 0.5},{k1: 2.0} reranker=rerank:keep,rerank:nothing"
    _, alone = shop.report("--chunkrecall-sweep", spec)
    _, spread = shop.report("--chunkrecall-sweep", spec, "-n", "2")
    assert spread["sweep"]["rows"] == alone["sweep"]["rows"]
    assert [row["hits"] for row in alone["sweep"]["rows"]] == [2, 2, 0, 2, 0]
