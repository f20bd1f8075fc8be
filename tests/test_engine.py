"""The core without pytest: evaluate(), what is built once, and results that survive JSON."""

from __future__ import annotations

import json

import pytest

from pytest_chunkrecall import CaseResult, Totals, evaluate
from pytest_chunkrecall.config.settings import Settings
from pytest_chunkrecall.errors import ChunkrecallError

from .conftest import CARE, POLICIES, dedent

GOLD = """
    corpus: ../docs/*.md
    chunker_args: {size: 80, overlap: 24}
    k: 2
    cases:
      - id: refund
        question: refund window
        needle: 30 days
        span: The refund window is 30 days
      - id: customs
        question: customs clearance
        needle: 9 dollars
        span: {from: Customs clearance, to: 9 dollars}
      - id: typo
        question: warranty
        needle: 13 months
      - id: later
        question: anything
        needle: anything
        skip: not yet
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/policies.md").write_text(POLICIES, encoding="utf-8")
    (tmp_path / "docs/care.md").write_text(CARE, encoding="utf-8")
    (tmp_path / "gold").mkdir()
    (tmp_path / "gold/policies.yaml").write_text(dedent(GOLD), encoding="utf-8")
    return tmp_path


def test_evaluate_runs_a_gold_file_without_pytest(project):
    results = evaluate(project / "gold/policies.yaml", rootdir=project)
    assert [r.id for r in results] == ["refund", "customs", "typo"]  # skipped left out
    verdicts = {r.id: r.verdict for r in results}
    assert verdicts == {"refund": "hit", "customs": "split", "typo": "absent"}
    assert all(r.gold_file == "gold/policies.yaml" for r in results)
    customs = results[1]
    assert customs.cut is not None and customs.cut.doc == "docs/policies.md"
    totals = Totals.of(results)
    assert (totals.cases, totals.hits, totals.split_spans) == (3, 1, 1)
    assert totals.to_json()["hit_rate"] == round(1 / 3, 6)


def test_evaluate_takes_settings_as_an_ini_file_would(project):
    results = evaluate(
        project / "gold/policies.yaml", rootdir=project, settings=Settings(k=1, match="exact")
    )
    assert {r.k for r in results} == {2}  # the gold file's k wins over ini settings
    assert {r.match for r in results} == {"exact"}


def test_evaluate_raises_a_chunkrecall_error_for_bad_gold(project):
    (project / "gold/policies.yaml").write_text("cases: []\n", encoding="utf-8")
    with pytest.raises(ChunkrecallError, match=r"gold/policies.yaml:1: 'cases' is empty"):
        evaluate(project / "gold/policies.yaml", rootdir=project)


def test_results_survive_json(project):
    for result in evaluate(project / "gold/policies.yaml", rootdir=project):
        data = json.loads(json.dumps(result.to_json()))
        assert CaseResult.from_json(data) == result
        assert CaseResult.from_json({**data, "added_later": 1}) == result


COUNTING = """
import json, pathlib

LOG = pathlib.Path(__file__).with_name("calls.log")


def log(what):
    with LOG.open("a") as handle:
        handle.write(what + "\\n")


def chunker(text, size=80):
    log("chunk")
    return [text[i : i + size] for i in range(0, len(text), size)]


def retriever(chunks):
    log("index")
    return lambda question, k: list(range(min(k, len(chunks))))
"""


def test_each_configuration_is_chunked_and_indexed_once(shop):
    """Many cases, two gold files sharing a configuration, one with its own: 2 + 1 builds."""
    shop.write("counting.py", COUNTING)
    cases = "".join(
        f"  - id: q{i}\n    question: question {i}\n    needle: leather goods\n" for i in range(12)
    )
    shared = "corpus: ../docs/*.md\nchunker: counting:chunker\nretriever: counting:retriever\n"
    shop.gold(shared + "cases:\n" + cases, "gold/a.yaml")
    shop.gold(shared + "cases:\n" + cases, "gold/b.yaml")
    shop.gold(shared + "chunker_args: {size: 60}\ncases:\n" + cases, "gold/c.yaml")
    shop.run().assert_outcomes(passed=36)
    calls = (shop.path / "calls.log").read_text().split()
    assert calls.count("chunk") == 2 * 2  # two configurations, two documents each
    assert calls.count("index") == 2


def test_closest_text_stays_near_its_chunk_in_text_without_spaces(tmp_path):
    """Widening to whole words must not run to the end of a document that has no spaces."""
    sentence = "退货政策自收货之日起三十天内可以退货。快递服务两个工作日内送达。"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/zh.md").write_text(sentence * 600, encoding="utf-8")
    (tmp_path / "gold").mkdir()
    (tmp_path / "gold/zh.yaml").write_text(
        "corpus: ../docs/zh.md\ncases:\n  - id: refund\n    question: 退货期限\n"
        "    needle: 四十五天内可以退款\n",
        encoding="utf-8",
    )
    (result,) = evaluate(tmp_path / "gold/zh.yaml", rootdir=tmp_path)
    assert result.verdict == "absent"
    assert result.closest is not None
    assert len(result.closest.text) <= 800 + 4 * len("四十五天内可以退款")


def test_evaluate_takes_what_an_ini_file_would_set_as_settings(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "policies.md").write_text(POLICIES)
    (tmp_path / "gold").mkdir()
    (tmp_path / "gold" / "policies.yaml").write_text(
        "cases:\n  - question: restocking fee\n    needle: 15 percent\n"
    )
    monkeypatch.chdir(tmp_path)
    settings = Settings(corpus=("docs/*.md",), chunker_args={"size": 80, "overlap": 24}, k=1)
    (result,) = evaluate("gold/policies.yaml", settings=settings)
    assert (result.gold_file, result.verdict, result.rank) == ("gold/policies.yaml", "hit", 1)
