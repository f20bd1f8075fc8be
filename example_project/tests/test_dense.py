from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from notes import NOTES, Note

from shopkb.ingest import load_passages

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
NEEDS_WORDLLAMA = "shopkb.dense needs wordllama: pip install -e '.[dense]'"


@pytest.fixture(scope="module")
def dense() -> ModuleType:
    pytest.importorskip("wordllama", reason=NEEDS_WORDLLAMA)
    from shopkb import dense

    return dense


@pytest.mark.parametrize(
    ("question", "best"),
    [
        ("How should I clean my bedding?", NOTES[2]),
        ("Do vouchers run out?", NOTES[1]),
        ("Is delivery free?", NOTES[0]),
    ],
)
def test_search_ranks_by_meaning_without_shared_words(
    dense: ModuleType, question: str, best: Note
) -> None:
    assert dense.build(NOTES).search(question, 1) == [best]


def test_scores_are_cosines_best_first(dense: ModuleType) -> None:
    scored = dense.build(NOTES).scored("How should I clean my bedding?", 4)
    assert sorted(p.text for p, _ in scored) == sorted(n.text for n in NOTES)
    scores = [score for _, score in scored]
    assert scores == sorted(scores, reverse=True)
    assert all(-1.0 <= score <= 1.0 for score in scores)


def test_equal_scores_go_to_the_earlier_passage(dense: ModuleType) -> None:
    notes = [Note("linen care"), Note("linen care"), Note("linen care")]
    assert dense.build(notes).search("linen", 3) == notes


def test_a_question_with_no_tokens_matches_nothing_and_keeps_passage_order(
    dense: ModuleType,
) -> None:
    assert dense.build(NOTES).scored("", 4) == [(note, 0.0) for note in NOTES]


def test_k_and_an_empty_index(dense: ModuleType) -> None:
    assert len(dense.build(NOTES).search("linen", 2)) == 2
    assert dense.build(NOTES).search("linen", 0) == []
    assert dense.build([]).search("linen", 3) == []


def test_rankings_repeat_from_index_to_index(dense: ModuleType) -> None:
    passages = load_passages(DOCS)
    question = "Can I spread the cost over several months?"
    first = dense.build(passages).scored(question, 5)
    assert dense.build(passages).scored(question, 5) == first


def test_finds_the_order_number_passage_that_bm25_ranks_fourth(dense: ModuleType) -> None:
    # The gold case order-number-format is a BM25 ceiling; meaning finds it first.
    [best] = dense.build(load_passages(DOCS)).search("What does an order number look like?", 1)
    assert best.doc == "orders.md"
    assert "LL followed by eight digits" in best.text


def test_command_line_ranks_with_embeddings(
    dense: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    from shopkb.__main__ import main

    assert main(["What does an order number look like?", "-k", "1", "--dense"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. orders.md [")
    assert "LL followed by eight digits" in " ".join(out.split())


def test_shopkb_works_without_wordllama(tmp_path: Path) -> None:
    # In a fresh interpreter where wordllama cannot be imported: shopkb, its
    # BM25 and its command line work, and only building a dense index says
    # what to install.
    script = """
import sys
sys.modules["wordllama"] = None
import shopkb, shopkb.dense, shopkb.__main__
assert "numpy" not in sys.modules
from shopkb.ingest import load_passages
passages = load_passages(shopkb.__main__.DOCS)
assert shopkb.build(passages).search("gift cards", 1)
try:
    shopkb.dense.build(passages)
except ImportError as exc:
    print(exc)
else:
    raise AssertionError("built a dense index without wordllama")
sys.exit(shopkb.__main__.main(["gift cards", "--dense"]))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 2, run.stderr
    assert run.stdout.startswith(
        "shopkb.dense embeds passages with wordllama, which is not installed"
    )
    assert "pip install -e '.[dense]'" in run.stdout
    assert "shopkb: error: shopkb.dense embeds passages with wordllama" in run.stderr
