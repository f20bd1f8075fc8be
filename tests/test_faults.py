"""Faults a review found in the first layout, each pinned by a test that failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

import pytest_chunkrecall
from pytest_chunkrecall.chunking.placement import place
from pytest_chunkrecall.errors import user_traceback

from .conftest import STOREFRONT_CASES, Shop


def test_placement_never_gives_negative_offsets():
    # The predicted start (4 - 10) is below 0: startswith there would look at the document's end.
    document = "aaaa" + "bbbb" + "zz" + "cccc"
    assert place(document, [("aaaa", None), ("zz", None)], overlap=10) == [(0, 4), (8, 10)]


def test_frames_of_a_package_whose_name_only_starts_like_ours_are_shown():
    package = Path(pytest_chunkrecall.__file__).parent
    neighbour = f"{package}_contrib{package.anchor[-1:] or '/'}chunker.py"
    code = compile(
        "def chunk(text):\n    raise ValueError('bad chunk')\nchunk('x')\n", neighbour, "exec"
    )
    try:
        exec(code, {})
    except ValueError as exc:
        shown = user_traceback(exc)
    assert "pytest_chunkrecall_contrib" in shown
    assert "ValueError: bad chunk" in shown


def test_each_top_chunk_in_the_report_has_its_size(shop: Shop):
    shop.gold(
        "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 2\n"
        + STOREFRONT_CASES
    )
    _, report = shop.report()
    sizes = [view["size"] for case in report["cases"] for view in case["top"]]
    assert sizes and all(isinstance(size, int) and 0 < size <= 80 for size in sizes)


@pytest.mark.parametrize("value", ["true", "yes"])
def test_xfail_true_is_accepted(shop: Shop, value: str):
    shop.gold(
        "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\ncases:\n"
        f"  - {{id: customs, question: customs, needle: 9 dollars, "
        f"span: {{from: Customs clearance, to: 9 dollars}}, xfail: {value}}}\n"
    )
    result = shop.run()
    result.assert_outcomes(xfailed=1)


def test_a_hooks_chunker_does_not_get_arguments_the_ini_wrote_for_another(shop: Shop):
    shop.write(
        "conftest.py",
        "def paragraphs(text):\n    return [p for p in text.split('\\n') if p.strip()]\n\n"
        "def pytest_chunkrecall_chunker(config, gold_path):\n    return paragraphs\n",
    )
    shop.ini("chunkrecall_chunker_args = {size: 80, overlap: 0}\n")
    shop.gold(
        "corpus: ../docs/policies.md\nk: 1\ncases:\n  - {id: fee, question: restocking fee, needle: 15 percent}\n"
    )
    result = shop.run()
    result.assert_outcomes(passed=1)


def test_settings_check_themselves_when_built_in_code():
    from pytest_chunkrecall import ChunkrecallError, Settings

    assert Settings(corpus="docs/*.md").corpus == ("docs/*.md",)  # type: ignore[arg-type]
    for bad in ({"match": "fuzzzy"}, {"k": 0}, {"k": "5"}, {"fuzzy_threshold": 101}):
        with pytest.raises(ChunkrecallError):
            Settings(**bad)  # type: ignore[arg-type]


def test_evaluate_takes_documents_chunker_and_retriever_objects(tmp_path):
    from pytest_chunkrecall import evaluate

    gold = tmp_path / "gold" / "g.yaml"
    gold.parent.mkdir()
    gold.write_text("cases:\n  - {id: a, question: trash, needle: 30 days, doc: trash}\n")
    results = evaluate(
        gold,
        rootdir=tmp_path,
        documents={"billing": "Invoices are paid within 30 days.", "trash": "Trash: 30 days."},
        chunker=lambda text: [text],
        retriever=lambda chunks: lambda question, k: [1, 0][:k],
    )
    assert [(r.verdict, r.rank, r.docs) for r in results] == [("hit", 1, ["trash"])]


def test_xfail_lines_show_the_verdict_and_skipped_lines_the_case_line(shop: Shop):
    shop.gold(
        "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\ncases:\n"
        "  - id: customs\n    question: customs\n    needle: 9 dollars\n"
        "    span: {from: Customs clearance, to: 9 dollars}\n    xfail: too far apart\n"
        "  - id: later\n    question: later\n    needle: 15 percent\n    skip: not yet\n"
    )
    result = shop.run("-rsx")
    result.assert_outcomes(xfailed=1, skipped=1)
    result.stdout.fnmatch_lines_random(
        [
            "XFAIL gold/policies.yaml::customs - split: too far apart",
            "SKIPPED [[]1[]] gold/policies.yaml:10: not yet",
        ]
    )


def test_an_xfail_reason_that_names_its_verdict_says_it_once(shop: Shop):
    case = (
        "  - id: {id}\n    question: customs\n    needle: 9 dollars\n"
        "    span: {{from: Customs clearance, to: 9 dollars}}\n    xfail: {reason}\n"
    )
    shop.gold(
        "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\ncases:\n"
        + case.format(id="named", reason="'split: too far apart'")
        + case.format(id="shouted", reason="'SPLIT - too far apart'")
        + case.format(id="unnamed", reason="splitting the sentence loses it")
    )
    result = shop.run("-rx")
    result.assert_outcomes(xfailed=3)
    xfail_lines = [line for line in result.outlines if line.startswith("XFAIL ")]
    assert xfail_lines == [
        "XFAIL gold/policies.yaml::named - split: too far apart",
        "XFAIL gold/policies.yaml::shouted - SPLIT - too far apart",
        "XFAIL gold/policies.yaml::unnamed - split: splitting the sentence loses it",
    ]


def test_the_summary_names_the_split_cases_longest_span_first(shop: Shop):
    shop.gold(
        "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\n"
        + STOREFRONT_CASES
    )
    result = shop.run()
    result.stdout.fnmatch_lines(["  split: customs (*), *refund-window (28 chars)*"])
