"""``import squad``: a SQuAD v1.1 or v2.0 JSON file as documents and one gold file.

Each article becomes ``docs/<title slug>.md``, its paragraphs joined by a blank
line; each answerable question a case whose needle is its first answer and
whose span is the sentence around that answer in the joined document.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import ChunkrecallError
from ..gold import slug
from .anchor import Source, closest_passage, nearest, sentence
from .rows import read_json
from .writing import (
    PYTEST_INI,
    GoldCase,
    Ids,
    Output,
    Unresolved,
    gold_yaml,
    one_line,
    unresolved_yaml,
)

PARAGRAPH_BREAK = "\n\n"


@dataclass(frozen=True)
class SquadImport:
    """What ``import squad`` found and will write."""

    output: Output
    gold_file: Path
    articles: int
    cases: int
    unanswerable: int
    corrected: int
    unresolved: int
    renamed: tuple[str, ...] = ()  # given ids written otherwise, one line each


@dataclass(frozen=True)
class _Article:
    name: str
    text: str
    cases: list[GoldCase]
    unresolved: list[Unresolved]


def import_squad(
    path: Path, out: Path, *, name: str | None = None, force: bool = False
) -> SquadImport:
    """Read the SQuAD file at ``path`` and plan the project under ``out``."""
    data = read_json(path, what="SQuAD file")
    articles = _list(data.get("data") if isinstance(data, dict) else None, f"{path}", "data")
    gold_name = slug(name or path.stem)
    ids = Ids()
    taken: set[str] = set()
    tally = _Tally()
    built = []
    for number, article in enumerate(articles):
        where = f"{path}: data[{number}]"
        built.append(_article(article, where, ids, taken, tally))
    output = Output(force=force)
    for article in built:
        output.add(out / "docs" / f"{article.name}.md", article.text)
    cases = [case for article in built for case in article.cases]
    unresolved = [entry for article in built for entry in article.unresolved]
    header = [f"Imported from {path.name} by python -m pytest_chunkrecall import squad."]
    settings = {"corpus": "../docs/*.md"}
    gold_file = out / "gold" / f"{gold_name}.yaml"
    if cases:
        output.add(gold_file, gold_yaml(header, settings, cases))
    if unresolved:
        notes = [
            *header,
            "These answers are not in their paragraph: fix each, then move it into cases:.",
        ]
        output.add(
            out / "gold" / f"{gold_name}.unresolved.yaml",
            unresolved_yaml(notes, settings, unresolved),
        )
    output.add_unless_present(out / "pytest.ini", PYTEST_INI)
    return SquadImport(
        output,
        gold_file,
        len(built),
        len(cases),
        tally.unanswerable,
        tally.corrected,
        len(unresolved),
        tuple(ids.renamed),
    )


@dataclass
class _Tally:
    unanswerable: int = 0
    corrected: int = 0


def _article(article: object, where: str, ids: Ids, taken: set[str], tally: _Tally) -> _Article:
    fields = _mapping(article, where)
    name = base = slug(str(fields.get("title") or "article"))
    number = 1
    while name in taken:  # two articles of one title
        number += 1
        name = f"{base}-{number}"
    taken.add(name)
    contexts: list[str] = []
    cases: list[GoldCase] = []
    unresolved: list[Unresolved] = []
    for p, paragraph in enumerate(_list(fields.get("paragraphs"), where, "paragraphs")):
        at = f"{where}.paragraphs[{p}]"
        body = _mapping(paragraph, at)
        context = body.get("context")
        if not isinstance(context, str):
            raise ChunkrecallError("'context' must be the paragraph's text", where=at)
        # A sentence of the paragraph is the same text in the joined document.
        source = Source(f"../docs/{name}.md", context)
        for q, qa in enumerate(_list(body.get("qas", []), at, "qas")):
            found = _question(qa, f"{at}.qas[{q}]", source, ids, tally)
            if isinstance(found, GoldCase):
                cases.append(found)
            elif found is not None:
                unresolved.append(found)
        contexts.append(context)
    return _Article(name, PARAGRAPH_BREAK.join(contexts) + "\n", cases, unresolved)


def _question(
    qa: object, where: str, source: Source, ids: Ids, tally: _Tally
) -> GoldCase | Unresolved | None:
    """The case of one question; ``None`` when it has no answer."""
    fields = _mapping(qa, where)
    question = _text(fields, "question", where)
    answers = _list(fields.get("answers", []), where, "answers")
    if fields.get("is_impossible") is True or not answers:
        tally.unanswerable += 1
        return None
    answer = _mapping(answers[0], f"{where}.answers[0]")
    needle = _text(answer, "text", f"{where}.answers[0]")
    start = answer.get("answer_start")
    if isinstance(start, bool) or not isinstance(start, int):
        raise ChunkrecallError(
            "'answer_start' must be a character offset (a whole number)",
            where=f"{where}.answers[0]",
        )
    case_id = ids.claim(str(fields.get("id") or ""), question, where=where)
    place = nearest(source, needle, start)
    if place is None:
        notes = [f"{case_id}: the answer {one_line(needle)!r} is not in its paragraph ({where})."]
        best = closest_passage([source], needle)
        if best is not None:
            notes.append(
                f"  closest text (score {best.score:.0f}/100): {one_line(best.place.text)!r}"
            )
        case = GoldCase(case_id, question, needle, doc=source.name)
        return Unresolved(case, tuple(notes), "not found")
    if place.start != start or place.text != needle:
        tally.corrected += 1
    begin, end = sentence(source.text, place.start, place.end)
    # the needle as the document has it, which every match mode finds
    return GoldCase(case_id, question, place.text.strip(), source.text[begin:end], source.name)


def _mapping(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ChunkrecallError(
            f"expected a JSON object here, not {type(value).__name__}; is this a SQuAD file?",
            where=where,
        )
    return value


def _list(value: object, where: str, key: str) -> list[object]:
    if not isinstance(value, list):
        raise ChunkrecallError(
            f"'{key}' must be a list; a SQuAD file has data[].paragraphs[].qas[]", where=where
        )
    return value


def _text(fields: dict[str, object], key: str, where: str) -> str:
    value = fields.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ChunkrecallError(f"'{key}' is missing or empty", where=where)
    return value
