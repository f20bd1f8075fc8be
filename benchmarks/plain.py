"""A plain pytest project that does a scale row's work without the plugin: the row's reference.

:func:`write_questions` writes the chunking-evaluation questions as plain tests,
a module per corpus (as the plugin's rows have a gold file per corpus): a
module-scoped fixture chunks the corpus with the plugin's own ``fixed_size``
(800/200) and embeds the chunks with the benchmarks' wordllama retriever; each
question is a test that embeds it and ranks the chunks, top 5. The tests check
the ranking's shape, not its quality: what is timed is the work, and a failed
test would add pytest's failure report to one side only.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import chunking_evaluation

TEMPLATE = Path(__file__).parent / "project"

QUESTION_TESTS = '''
"""The questions of one corpus, by hand: fixed_size 800/200, wordllama, top 5."""

import json
from pathlib import Path

import pytest
from embeddings import Dense

from pytest_chunkrecall.chunkers import fixed_size

CORPUS = {corpus!r}
ROOT = Path(__file__).parent
QUESTIONS = json.loads((ROOT / "questions" / f"{{CORPUS}}.json").read_text(encoding="utf-8"))


class Piece:
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


@pytest.fixture(scope="module")
def corpus():
    text = (ROOT / "docs" / f"{{CORPUS}}.md").read_text(encoding="utf-8")
    chunks = [Piece(window) for window in fixed_size(text, size=800, overlap=200)]
    return chunks, Dense(chunks)


@pytest.mark.parametrize(
    "question", QUESTIONS, ids=[f"q{{number:03d}}" for number in range(1, len(QUESTIONS) + 1)]
)
def test_question(corpus, question):
    chunks, dense = corpus
    top = dense.search(question, 5)
    assert len(set(top)) == min(5, len(chunks)) and all(0 <= n < len(chunks) for n in top)
'''


def write_questions(data: Path, root: Path) -> int:
    """A module of plain tests per corpus, one test per question; the number of questions."""
    (root / "docs").mkdir(parents=True)
    (root / "questions").mkdir()
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    shutil.copy(TEMPLATE / "embeddings.py", root / "embeddings.py")
    questions = chunking_evaluation.read_questions(data / "questions_df.csv")
    for corpus, asked in sorted(questions.items()):
        shutil.copy(data / "corpora" / f"{corpus}.md", root / "docs" / f"{corpus}.md")
        text = json.dumps([question for question, _ in asked], ensure_ascii=False)
        (root / "questions" / f"{corpus}.json").write_text(text, encoding="utf-8")
        module = QUESTION_TESTS.format(corpus=corpus)
        (root / f"test_{corpus}.py").write_text(module, encoding="utf-8")
    return sum(len(asked) for asked in questions.values())
