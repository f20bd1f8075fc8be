"""Gold files read case by case: the same cases and errors as the whole document, in less
memory, with libyaml's parser and with PyYAML's pure-Python one."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
import yaml

from pytest_chunkrecall.gold import GoldError, SpanRange, parse, stream

from .conftest import dedent


@pytest.fixture(autouse=True, params=["libyaml", "pure"])
def loader(request, monkeypatch):
    """Every test here runs with each parser a user's PyYAML may have."""
    if request.param == "libyaml":
        if not yaml.__with_libyaml__:
            pytest.skip("PyYAML is built without libyaml here")
        monkeypatch.setattr(stream, "LOADER", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(stream, "LOADER", yaml.SafeLoader)
    return request.param


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
              - {id: a, question: "Q1?", needle: one}
              - {id: a, question: "Q2?", needle: two}
              - {id: b, question: "Q3?"}
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
          - {question: "Q1?", needle: one}
          - {question: "Q2?", needle: two, doc: ../docs/b.md}
        doc: ../docs/a.md
        """
    )
    assert [c.doc for c in gold.cases] == ["../docs/a.md", "../docs/b.md"]


def test_reading_a_big_gold_file_never_holds_all_its_cases_as_nodes(tmp_path, loader):
    # a thousand cases are ample: composed whole, their nodes would outweigh them several times
    count = 1_000
    cases = [
        {
            "id": f"c{n:05d}",
            "question": f"question {n}?",
            "needle": f"needle {n}",
            "span": "x" * 150,
        }
        for n in range(count)
    ]
    text = yaml.safe_dump({"corpus": "docs/*.md", "cases": cases}, sort_keys=False, width=1000)
    tracemalloc.start()
    try:
        gold = parse(text, path=tmp_path / "big.yaml", name="big.yaml")
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(gold.cases) == count
    assert gold.cases[-1].line == text.count("\n", 0, text.index(f"- id: c{count - 1:05d}")) + 1
    # Composed whole, the document's nodes (ten per case, each with two marks) would
    # outweigh the cases read from them several times over; one case's nodes at a time do not.
    assert peak - kept < kept, (peak, kept)


def test_both_parsers_give_the_same_cases_and_lines():
    text = dedent(
        """
        corpus: ../docs/*.md
        k: 3
        cases:
          - id: refund
            question: What is the refund window?
            needle: "1.50"
            span: {from: refund window, to: "1.50"}
          - {question: "How long is shipping?", needles: [5 days, 7 days], xfail: true}
        """
    )
    read = {}
    for name, chosen in (
        ("libyaml", getattr(yaml, "CSafeLoader", None)),
        ("pure", yaml.SafeLoader),
    ):
        if chosen is None:
            continue
        stream.LOADER = chosen
        gold = parse(text, path=Path("gold/faq.yaml"), name="gold/faq.yaml")
        read[name] = [(c.id, c.needles, c.span, c.line, c.xfail, c.k) for c in gold.cases]
    assert read["pure"] == [
        ("refund", ("1.50",), SpanRange("refund window", "1.50"), 4, None, None),
        ("how-long-is-shipping", ("5 days", "7 days"), None, 8, "", None),
    ]
    assert read.get("libyaml", read["pure"]) == read["pure"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "corpus: *docs\ncases:\n  - {question: q, needle: n}\n",
            "gold/faq.yaml:1: invalid YAML: found undefined alias 'docs'",
        ),
        (
            "chunker_args: &shared {size: 80}\nretriever_args: &shared {}\n"
            "cases:\n  - {question: q, needle: n}\n",
            "gold/faq.yaml:2: invalid YAML: found duplicate anchor 'shared'",
        ),
        (
            "cases:\n  - {question: q, needle: n}\n---\ncases: []\n",
            "gold/faq.yaml:3: invalid YAML: expected a single document in the stream",
        ),
        (
            "cases:\n  - {question: q, needle: n}\n  - *missing\n",
            "gold/faq.yaml:3: invalid YAML: found undefined alias 'missing'",
        ),
    ],
)
def test_anchors_and_documents_are_checked_as_pyyaml_checks_them(text, says):
    with pytest.raises(GoldError) as caught:
        parse(text, path=Path("gold/faq.yaml"), name="gold/faq.yaml")
    assert str(caught.value).startswith(says)


def test_a_cases_list_with_an_anchor_is_kept_whole_for_its_aliases():
    gold = read(
        """
        cases: &all
          - {id: refund, question: "What is the refund window?", needle: 30 days}
        chunker_args: {size: 80, remembered: *all}
        """
    )
    assert [c.id for c in gold.cases] == ["refund"]
    assert gold.settings.chunker_args == {
        "size": 80,
        "remembered": [
            {"id": "refund", "question": "What is the refund window?", "needle": "30 days"}
        ],
    }


def test_a_list_nested_past_what_python_can_follow_is_refused_with_the_file_named():
    deep = "chunker_args: " + "[" * 900 + "]" * 900 + "\ncases:\n  - {question: q, needle: n}\n"
    with pytest.raises(GoldError) as caught:
        parse(deep, path=Path("gold/faq.yaml"), name="gold/faq.yaml")
    assert str(caught.value).startswith("gold/faq.yaml")
    assert "nested" in str(caught.value)
