from __future__ import annotations

from pathlib import Path

import pytest

from shopkb.ingest import OVERLAP, SIZE, chunk, load_passages

DOCS = Path(__file__).resolve().parent.parent / "docs"
ARTICLES = sorted(DOCS.glob("*.md"))


def spans(text: str, length: int) -> set[tuple[int, int]]:
    """Every stretch of ``length`` characters that starts and ends on a non-space."""
    found = set()
    for start in range(len(text) - length + 1):
        end = start + length
        if not text[start].isspace() and not text[end - 1].isspace():
            found.add((start, end))
    return found


def whole_in_some_passage(span: tuple[int, int], passages: list) -> bool:
    return any(p.start_index <= span[0] and span[1] <= p.end_index for p in passages)


@pytest.mark.parametrize("path", ARTICLES, ids=lambda p: p.name)
@pytest.mark.parametrize("overlap", [0, 24, OVERLAP])
def test_passages_are_the_article_text_at_their_offsets(path: Path, overlap: int) -> None:
    text = path.read_text(encoding="utf-8")
    passages = chunk(text, size=SIZE, overlap=overlap)
    for passage in passages:
        assert text[passage.start_index : passage.end_index] == passage.text
        assert passage.text == passage.text.strip()
        assert len(passage.text) <= SIZE
    covered = set()
    for passage in passages:
        covered.update(range(passage.start_index, passage.end_index))
    assert all(i in covered for i, char in enumerate(text) if not char.isspace())


@pytest.mark.parametrize("path", ARTICLES, ids=lambda p: p.name)
def test_overlap_keeps_every_short_span_whole(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    passages = chunk(text, size=SIZE, overlap=OVERLAP)
    cut = [s for s in spans(text, OVERLAP) if not whole_in_some_passage(s, passages)]
    assert cut == []


def test_without_overlap_a_window_edge_cuts_a_fact() -> None:
    text = (DOCS / "international.md").read_text(encoding="utf-8")
    fact = "International delivery takes 7 to 14 business days"
    start = text.index(fact)
    span = (start, start + len(fact))
    assert not whole_in_some_passage(span, chunk(text, size=SIZE, overlap=0))
    assert whole_in_some_passage(span, chunk(text, size=SIZE, overlap=OVERLAP))


def test_windows_end_between_words() -> None:
    text = " ".join(f"word{n:03d}" for n in range(200))
    for passage in chunk(text, size=100, overlap=20):
        assert passage.text.startswith("word") and len(passage.text.split()[-1]) == 7


def test_a_word_longer_than_a_window_is_cut_where_the_limit_falls() -> None:
    text = "see " + "x" * 250 + " done"
    passages = chunk(text, size=100, overlap=0)
    assert "".join(p.text for p in passages).replace(" ", "") == text.replace(" ", "")


@pytest.mark.parametrize(
    ("size", "overlap"), [(79, 0), (320, -1), (320, 160), (320, 1.5), (True, 0)]
)
def test_bad_window_settings_are_refused(size: object, overlap: object) -> None:
    with pytest.raises(ValueError, match=r"size|overlap"):
        chunk("some text", size=size, overlap=overlap)  # type: ignore[arg-type]


def test_load_passages_names_each_article() -> None:
    passages = load_passages(DOCS)
    assert {p.doc for p in passages} == {path.name for path in ARTICLES}
    assert passages == sorted(passages, key=lambda p: (p.doc, p.start_index))
