"""A small corpus and a project builder shared by the library adapter tests."""

from __future__ import annotations

import itertools
import json
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_chunkrecall import Chunk
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.suite import Component, chunk_corpus

GUIDE = """\
# Harbour Lane Outfitters: customer guide

Returns. Unworn items come back free of charge. The refund window is 30 days from the day the parcel is delivered, and refunds reach the original card within five working days.

Shipping. Orders placed before two in the afternoon leave the warehouse the same day. Standard delivery takes three to five days; express delivery arrives the next morning for a flat fee of 12 euros.

Customs. Parcels sent outside the union pass through customs at the border. Customs clearance is handled by our courier and costs 9 dollars per parcel, charged when the parcel is released.

Warranty. Every jacket and boot carries a two-year warranty against seams that open and soles that separate. Keep the receipt: the warranty claim needs the order number printed on it.

Repairs. Torn zips, worn cuffs and broken buckles are repaired in the Leeds workshop. A repair usually takes ten days, and the first repair of each item is free.

Gift cards. Gift cards are sold in steps of 25 euros and never expire. They cannot be exchanged for cash, but the remaining balance stays on the card after each purchase.

Sizing. Our trousers run small at the waist, so most customers order one size up. The size chart on each product page lists inseam and waist in centimetres.

Loyalty. Members of the Harbour Club collect one point per euro spent. Two hundred points turn into a voucher of ten euros that is valid for one year.

Stores. The flagship store on Harbour Lane opens at nine and closes at seven, and on Sundays from eleven to five. Parking behind the store is free for the first hour.

Contact. The support team answers the phone from eight to eight on weekdays. Emails sent at the weekend are answered on Monday morning, oldest first.
"""
GUIDE_ID = "docs/guide.md"


@pytest.fixture
def guide() -> str:
    """A customer guide of ten short paragraphs, each on a topic of its own."""
    return GUIDE


@pytest.fixture
def hit_case() -> dict[str, str]:
    """A case whose needle sits in one paragraph, asked with words no other paragraph has."""
    return {
        "id": "gift-cards",
        "question": "Do gift cards expire, and can they be exchanged for cash?",
        "needle": "never expire",
    }


@pytest.fixture
def chunks_of() -> Callable[..., tuple[Chunk, ...]]:
    """``chunks_of(obj, args, text=GUIDE)``: the plugin's chunks for the chunker ``obj``."""

    def chunk(
        obj: Any, args: Mapping[str, Any] | None = None, text: str = GUIDE
    ) -> tuple[Chunk, ...]:
        documents = (Document(GUIDE_ID, text),)
        return chunk_corpus(documents, Component.of("chunker", obj, dict(args or {})))

    return chunk


@pytest.fixture
def split_case() -> Callable[[tuple[Chunk, ...]], tuple[int, dict[str, Any]]]:
    """``split_case(chunks)``: a boundary no chunk straddles, and a case whose span crosses it.

    Returns ``(offset, case)``: the end of the chunk before the boundary, and
    a case whose span runs from a few words before it to a few words after.
    """

    def make(chunks: tuple[Chunk, ...], reach: int = 12) -> tuple[int, dict[str, Any]]:
        ordered = sorted(chunks, key=lambda c: c.start or 0)
        for left, right in itertools.pairwise(ordered):
            assert left.end is not None and right.start is not None
            if left.end <= right.start:
                start = GUIDE.rfind(" ", 0, left.end - reach) + 1
                end = GUIDE.find(" ", right.start + reach)
                span = " ".join(GUIDE[start:end].split())
                question = f"What does the guide say about {span}?"
                return left.end, {
                    "id": "across-a-boundary",
                    "question": question,
                    "span": span,
                    "needle": span,
                }
        raise AssertionError("no boundary without overlap in these chunks")

    return make


@pytest.fixture
def project(pytester: pytest.Pytester) -> Callable[..., pytest.Pytester]:
    """``project(ini, cases, modules=, docs=, gold=, **settings)``: write a project to run.

    ``ini`` are chunkrecall ini options without their prefix; ``cases`` (with
    the gold ``settings``) become gold/guide.yaml, or ``gold`` maps gold file
    names to whole gold documents; ``docs`` maps corpus file names to text (by
    default docs/guide.md is the guide); ``modules`` maps dotted module names
    to source, importable because the ini sets ``pythonpath = .``.
    """

    def make(
        ini: Mapping[str, Any],
        cases: list[dict[str, Any]] | None = None,
        *,
        modules: Mapping[str, str] | None = None,
        docs: Mapping[str, str] | None = None,
        gold: Mapping[str, Mapping[str, Any]] | None = None,
        **settings: Any,
    ) -> pytest.Pytester:
        lines = ["[pytest]", "pythonpath = .", "chunkrecall_corpus = docs/*.md"]
        for key, value in ini.items():
            shown = json.dumps(value) if isinstance(value, dict) else value
            lines.append(f"chunkrecall_{key} = {shown}")
        pytester.makeini("\n".join(lines) + "\n")
        root = Path(pytester.path)
        for name, text in (docs or {"guide.md": GUIDE}).items():
            _write(root / "docs" / name, text)
        for name, document in (gold or {"guide.yaml": {**settings, "cases": cases}}).items():
            _write(root / "gold" / name, yaml.safe_dump(dict(document), sort_keys=False))
        for name, source in (modules or {}).items():
            path = root.joinpath(*name.split(".")).with_suffix(".py")
            for folder in path.relative_to(root).parents:
                if folder != Path("."):
                    _write(root / folder / "__init__.py", "")
            _write(path, textwrap.dedent(source))
        return pytester

    return make


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def verdicts(pytester: pytest.Pytester) -> Callable[[], dict[str, str]]:
    """``verdicts()``: each case's verdict, from the report of a run with ``--chunkrecall-report report.json``."""

    def read() -> dict[str, str]:
        data = json.loads(Path(pytester.path, "report.json").read_text(encoding="utf-8"))
        return {case["id"]: case["verdict"] for case in data["cases"]}

    return read


@pytest.fixture
def cuts(pytester: pytest.Pytester) -> Callable[[], dict[str, tuple[str, int] | None]]:
    """``cuts()``: each case's cut (document, offset) from the report.json of a run, or None."""

    def read() -> dict[str, tuple[str, int] | None]:
        data = json.loads(Path(pytester.path, "report.json").read_text(encoding="utf-8"))
        return {
            case["id"]: (case["cut"]["doc"], case["cut"]["offset"]) if case.get("cut") else None
            for case in data["cases"]
        }

    return read
