"""Gold files read case by case: the same cases and errors as the whole document, in less memory."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
import yaml

from pytest_chunkrecall.gold import GoldError, parse

from .conftest import dedent


def read(text: str):
    return parse(dedent(text), path=Path("gold/faq.yaml"), name="gold/faq.yaml")


def test_an_anchor_in_one_case_is_merged_into_the_next():
    gold = read(
        """
        corpus: ../docs/*.md
        cases:
          - &base
            id: first
            question: What is the refund window?
            needle: 30 days
            k: 3
          - <<: *base
            id: second
            needle: refund window
        """
    )
    assert [(c.id, c.needles, c.k, c.line) for c in gold.cases] == [
        ("first", ("30 days",), 3, 3),
        ("second", ("refund window",), 3, 8),
    ]


def test_cases_merged_in_from_a_setting_are_read_as_written():
    # 'cases' that arrives through a merge key is not the list being streamed
    gold = read(
        """
        corpus: ../docs/*.md
        chunker_args: &shared
          cases:
            - question: Where is the warehouse?
              needle: Rotterdam
        <<: *shared
        """
    )
    assert [(c.id, c.needles) for c in gold.cases] == [("where-is-the-warehouse", ("Rotterdam",))]


def test_a_yaml_syntax_error_below_a_bad_case_is_said_first():
    with pytest.raises(GoldError) as caught:
        read(
            """
            corpus: ../docs/*.md
            cases:
              - question: What is the refund window?
              - question: How long is shipping?
                needle: "5 days
            """
        )
    assert "invalid YAML" in str(caught.value)
    assert "no 'needle:'" not in str(caught.value)


def test_the_first_case_at_fault_is_said_in_file_order():
    with pytest.raises(GoldError) as caught:
        read(
            """
            corpus: ../docs/*.md
            cases:
              - {id: a, question: Q1?, needle: one}
              - {id: a, question: Q2?, needle: two}
              - {id: b, question: Q3?}
            """
        )
    assert str(caught.value).startswith("gold/faq.yaml:4: duplicate case id 'a'")


def test_a_top_level_error_is_said_before_a_bad_case():
    with pytest.raises(GoldError, match=r"gold/faq.yaml:2: unknown key 'kk'"):
        read(
            """
            corpus: ../docs/*.md
            kk: 3
            cases:
              - question: Q1?
            """
        )


def test_an_empty_cases_list_is_refused():
    with pytest.raises(GoldError, match=r"gold/faq.yaml:2: 'cases' is empty"):
        read(
            """
            corpus: ../docs/*.md
            cases: []
            """
        )


def test_the_file_wide_doc_pins_every_case_without_its_own():
    gold = read(
        """
        corpus: ../docs/*.md
        cases:
          - {question: Q1?, needle: one}
          - {question: Q2?, needle: two, doc: ../docs/b.md}
        doc: ../docs/a.md
        """
    )
    assert [c.doc for c in gold.cases] == ["../docs/a.md", "../docs/b.md"]


def test_reading_ten_thousand_cases_never_holds_them_all_as_nodes(tmp_path):
    cases = [
        {
            "id": f"c{n:05d}",
            "question": f"question {n}?",
            "needle": f"needle {n}",
            "span": "x" * 150,
        }
        for n in range(10_000)
    ]
    text = yaml.safe_dump({"corpus": "docs/*.md", "cases": cases}, sort_keys=False, width=1000)
    tracemalloc.start()
    try:
        gold = parse(text, path=tmp_path / "big.yaml", name="big.yaml")
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(gold.cases) == 10_000
    assert gold.cases[-1].line == text.count("\n", 0, text.index("- id: c09999")) + 1
    # The whole document's nodes alone (ten per case, with their marks) are
    # several times the cases read from them: 4.6x more at its peak before streaming, 0.4x after.
    assert peak - kept < kept, (peak, kept)
