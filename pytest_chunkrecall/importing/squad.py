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
from .anchor import Source, closest, nearest, sentence
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
    counts = {"unanswerable": 0, "corrected": 0}
    built = []
    for number, article in enumerate(articles):
        where = f"{path}: data[{number}]"
        built.append(_article(article, where, ids, taken, counts))
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
        output, gold_file, len(built), len(cases), counts["unanswerable"], counts["corrected"],
        len(unresolved),
    )  # fmt: skip


def _article(
    article: object, where: str, ids: Ids, taken: set[str], counts: dict[str, int]
) -> _Article:
    fields = _mapping(article, where)
    title = str(fields.get("title") or "article")
    name = base = slug(title)
    number = 1
    while name in taken:
        number += 1
        name = f"{base}-{number}"
    taken.add(name)
    doc = f"../docs/{name}.md"
    contexts: list[str] = []
    cases: list[GoldCase] = []
    unresolved: list[Unresolved] = []
    for p, paragraph in enumerate(_list(fields.get("paragraphs"), where, "paragraphs")):
        at = f"{where}.paragraphs[{p}]"
        body = _mapping(paragraph, at)
        context = body.get("context")
        if not isinstance(context, str):
            raise ChunkrecallError("'context' must be the paragraph's text", where=at)
        source = Source(doc, context)
        for q, qa in enumerate(_list(body.get("qas", []), at, "qas")):
            question_at = f"{at}.qas[{q}]"
            fields_qa = _mapping(qa, question_at)
            question = _text(fields_qa, "question", question_at)
            answers = _list(fields_qa.get("answers", []), question_at, "answers")
            if fields_qa.get("is_impossible") is True or not answers:
                counts["unanswerable"] += 1
                continue
            answer = _mapping(answers[0], f"{question_at}.answers[0]")
            needle = _text(answer, "text", f"{question_at}.answers[0]")
            start = answer.get("answer_start")
            if isinstance(start, bool) or not isinstance(start, int):
                raise ChunkrecallError(
                    "'answer_start' must be a character offset (a whole number)",
                    where=f"{question_at}.answers[0]",
                )
            case_id = ids.claim(str(fields_qa.get("id") or ""), question)
            place = nearest(source, needle, start)
            if place is None:
                notes = [
                    f"{case_id}: the answer {one_line(needle)!r} is not in its paragraph ({at})."
                ]
                best = closest([source], needle)
                if best is not None:
                    notes.append(
                        f"  closest text (score {best.score:.0f}/100): {one_line(best.place.text)!r}"
                    )
                unresolved.append(
                    Unresolved(
                        GoldCase(case_id, question, needle, doc=doc), tuple(notes), "not found"
                    )
                )
                continue
            if place.start != start or place.text != needle:
                counts["corrected"] += 1
            begin, end = sentence(context, place.start, place.end)
            span = context[begin:end]
            # the needle as the document has it, which every match mode finds
            cases.append(GoldCase(case_id, question, place.text.strip(), span, doc))
        contexts.append(context)
    return _Article(name, PARAGRAPH_BREAK.join(contexts) + "\n", cases, unresolved)


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
