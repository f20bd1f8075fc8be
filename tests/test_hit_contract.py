"""A hit means the passage that answers came back: spans anchor it, doc pins it, ranks measure it."""

from __future__ import annotations

import json

import pytest

from .conftest import Shop, assert_no_internals, dedent
from .test_html_page import embedded

TRASH = "Items stay in the trash for 30 days before they are deleted for good.\n"
BILLING = "Invoices are paid within 30 days of the date they are issued.\n"


# A question the trash chunk answers, and a ranking that puts that chunk first.
FROM_THE_TRASH = """
    - id: trash
      question: How long do deleted items stay in the trash?
      needle: 30 days
"""
TRASH_FIRST = "{How long do deleted items stay in the trash?: [1]}"


@pytest.fixture
def saas(shop: Shop) -> Shop:
    """Two documents that both say '30 days': billing (chunk 0) and trash (chunk 1)."""
    for name in ("docs/policies.md", "docs/care.md"):
        (shop.path / name).unlink()
    shop.write("docs/billing.md", BILLING)
    shop.write("docs/trash.md", TRASH)
    return shop


def saas_gold(shop: Shop, cases: str, *, k: int = 1, rankings: str = "{}") -> None:
    head = (
        "corpus: ../docs/*.md\nchunker: rag:sentences\nretriever: rag:keywords\n"
        f"retriever_args: {{rankings: {rankings}}}\nk: {k}\ncases:\n"
    )
    body = "".join(f"  {line}\n" for line in dedent(cases).splitlines())
    shop.gold(head + body)


def test_a_short_needle_from_the_wrong_passage_is_no_hit(saas):
    # The retriever only ever returns the billing chunk, which also says "30 days".
    saas_gold(
        saas,
        """
        - id: anchored
          question: How long do deleted items stay in the trash?
          needle: 30 days
          span: Items stay in the trash for 30 days
        - id: pinned
          question: How long do deleted items stay in the trash?
          needle: 30 days
          doc: ../docs/trash.md
        """,
        rankings="{How long do deleted items stay in the trash?: [0]}",
    )
    result, report = saas.report()
    result.assert_outcomes(failed=2)
    cases = {c["id"]: c for c in report["cases"]}
    for case in cases.values():
        assert case["verdict"] == "ranked_out"
        assert case["rank"] is None
        assert case["retrieved_ids"] == ["docs/billing.md#0"]
        assert "docs/trash.md#1" in case["holding_ids"]
    assert cases["pinned"]["docs"] == ["docs/trash.md"]
    # the span and the pin each leave the one chunk that answers
    assert cases["pinned"]["holding_ids"] == cases["anchored"]["holding_ids"] == ["docs/trash.md#1"]
    assert report["totals"]["hits"] == 0
    assert "  doc:      docs/trash.md" in result.outlines  # the message names the pinned doc


def test_a_hit_names_the_passage_of_the_chunk_that_came_back(saas):
    # billing.md comes first in the corpus and says "30 days" too; the trash chunk answered.
    saas_gold(saas, FROM_THE_TRASH, rankings=TRASH_FIRST)
    result, report = saas.report()
    result.assert_outcomes(passed=1)
    (case,) = report["cases"]
    assert (case["verdict"], case["rank"]) == ("hit", 1)
    start = TRASH.index("30 days")
    assert case["span_at"] == {"doc": "docs/trash.md", "start": start, "end": start + 7}
    # unanchored, the needle is held by both chunks: both are relevant to an IR measure
    assert case["holding_ids"] == ["docs/billing.md#0", "docs/trash.md#1"]


def test_the_page_alone_lists_every_chunk_that_holds_a_hit(saas):
    # Without a JSON report the page is the only output that lists holders: it still gets
    # both chunks that say "30 days", not only the retrieved one.
    saas_gold(saas, FROM_THE_TRASH, rankings=TRASH_FIRST)
    saas.run("--chunkrecall-html", "page.html").assert_outcomes(passed=1)
    (case,) = embedded((saas.path / "page.html").read_text(encoding="utf-8"))["cases"]
    assert (case["id"], case["verdict"]) == ("trash", "hit")
    assert case["holding_ids"] == ["docs/billing.md#0", "docs/trash.md#1"]


def test_a_pinned_needle_that_is_only_elsewhere_is_absent_and_says_where_it_is(saas):
    saas_gold(
        saas,
        """
        - id: invoices
          question: When are invoices paid?
          needle: paid within 30 days
          doc: ../docs/trash.md
        """,
    )
    result, report = saas.report()
    result.assert_outcomes(failed=1)
    (case,) = report["cases"]
    assert case["verdict"] == "absent"
    assert case["elsewhere"] == ["docs/billing.md"]
    assert case["missing"] == ["paid within 30 days"]
    # the message says where else the needle occurs, as the report does
    assert "  it occurs in: docs/billing.md" in result.outlines


def test_ranks_give_mrr_and_hit_rate_at_each_cut_off(saas):
    saas.write(
        "docs/facts.md",
        "Alpha is one. Bravo is two. Charlie is three. Delta is four. Echo is five.\n",
    )
    # docs/billing.md (0), docs/facts.md (1-5), docs/trash.md (6); by sentence.
    saas_gold(
        saas,
        """
        - {id: first, question: qa, needle: Alpha is one}
        - {id: second, question: qb, needle: Bravo is two}
        - {id: third, question: qc, needle: Charlie is three}
        - {id: missed, question: qd, needle: Delta is four}
        """,
        k=3,
        rankings="{qa: [1, 0, 6], qb: [0, 2, 6], qc: [0, 6, 3], qd: [0, 6, 5]}",
    )
    result, report = saas.report()
    result.assert_outcomes(passed=3, failed=1)
    totals = report["totals"]
    assert totals["mrr"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 4, abs=1e-6)
    assert round(totals["mrr"], 3) == 0.458
    assert totals["hit_rate_at"] == {"1": 0.25, "2": 0.5, "3": 0.75}
    assert report["gold_files"][0]["totals"]["hit_rate_at"] == totals["hit_rate_at"]


def test_the_holding_chunk_is_looked_for_deeper(saas):
    saas.write("docs/facts.md", "A. B. C. D. E. F. The cake is a lie.\n")
    # docs/billing.md (0), docs/facts.md (1-7: "The cake is a lie." is 7), docs/trash.md (8)
    saas_gold(
        saas,
        """
        - {id: deep, question: cake, needle: cake is a lie}
        - {id: deeper, question: nothing, needle: Items stay in the trash}
        """,
        rankings="{cake: [0, 1, 2, 3, 4, 5, 7, 8], nothing: [0, 1, 2]}",
    )
    result, report = saas.report()
    cases = {c["id"]: c for c in report["cases"]}
    assert (cases["deep"]["verdict"], cases["deep"]["holding_rank"]) == ("ranked_out", 7)
    assert (cases["deeper"]["verdict"], cases["deeper"]["holding_rank"]) == ("ranked_out", None)
    assert "  the chunk that holds it ranks 7th (k = 1)" in result.outlines
    assert "  the chunk that holds it is not within the top 50" in result.outlines
    off = saas.cases("-o", "chunkrecall_depth=0")
    assert off["deep"]["holding_rank"] is None


def test_a_retriever_that_fails_deeper_leaves_ranked_out_and_says_why(saas):
    saas.write(
        "rag2.py",
        "from rag import keywords\n\n"
        "def shallow(chunks):\n"
        "    search = keywords(chunks, {'trash': [0]})\n"
        "    def limited(question, k):\n"
        "        if k > 1:\n"
        "            raise RuntimeError('the server caps k at 1')\n"
        "        return search(question, k)\n"
        "    return limited\n",
    )
    saas.gold(
        """
        corpus: ../docs/*.md
        chunker: rag:sentences
        retriever: rag2:shallow
        k: 1
        cases:
          - {id: trash, question: trash, needle: Items stay in the trash}
        """
    )
    result, report = saas.report()
    (case,) = report["cases"]
    assert (case["verdict"], case["holding_rank"]) == ("ranked_out", None)
    assert "the server caps k at 1" in case["depth_error"]
    result.stdout.fnmatch_lines(["  where it ranks is unknown: asking for the top 50 failed: *"])


def test_fuzzy_matching_forgives_typos_never_numbers(shop):
    shop.write(
        "docs/policies.md",
        "The refund window is 90 days. A restocking fee of 16 percent applies.\n",
    )
    (shop.path / "docs/care.md").unlink()
    shop.gold(
        """
        corpus: ../docs/*.md
        chunker: rag:sentences
        match: fuzzy
        k: 2
        cases:
          - {id: window, question: refund window, needle: refund window is 30 days}
          - {id: fee, question: restocking fee, needle: 15 percent}
          - {id: typo, question: refund window, needle: refnud window is 90 days}
        """
    )
    result, report = shop.report()
    verdicts = {c["id"]: c["verdict"] for c in report["cases"]}
    assert verdicts == {"window": "absent", "fee": "absent", "typo": "hit"}
    result.assert_outcomes(passed=1, failed=2)


def test_a_split_span_whose_pieces_both_came_back_says_so(shop):
    shop.gold(
        """
        corpus: ../docs/policies.md
        chunker_args: {size: 80, overlap: 0}
        retriever: rag:keywords
        retriever_args: {rankings: {refund: [0, 1]}}
        k: 2
        cases:
          - id: refund-window
            question: refund
            needle: 30 days
            span: The refund window is 30 days
        """
    )
    result, report = shop.report()
    (case,) = report["cases"]
    assert (case["verdict"], case["pieces_retrieved"]) == ("split", True)
    assert case["span_at"] == {"doc": "docs/policies.md", "start": 68, "end": 96}
    assert report["totals"]["pieces_retrieved"] == 1
    # the message says what pieces_retrieved means: no chunker change loses the pieces
    result.stdout.fnmatch_lines(
        ["  every piece of the span came back in the top k, in separate chunks*"]
    )


@pytest.mark.slow
def test_xdist_gives_the_same_report(saas):
    pytest.importorskip("xdist")
    saas_gold(
        saas,
        """
        - {id: a, question: trash, needle: 30 days, span: Items stay in the trash for 30 days}
        - {id: b, question: invoices, needle: 30 days, doc: ../docs/billing.md}
        - {id: c, question: trash, needle: 30 days, doc: ../docs/trash.md}
        """,
        rankings="{trash: [0], invoices: [0]}",
    )
    _, serial = saas.report()
    _, parallel = saas.report("-n", "2")
    assert json.dumps(parallel, sort_keys=True) == json.dumps(serial, sort_keys=True)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            "doc: ../docs/refunds.md",
            "gold/policies.yaml:4: doc '../docs/refunds.md' matches no corpus document*",
        ),
        (  # written relative to the project, not to the gold file
            "doc: docs/trash.md",
            "gold/policies.yaml:4: doc 'docs/trash.md' matches no corpus document (a path or "
            "glob relative to the gold file); did you mean doc: ../docs/trash.md? the corpus has*",
        ),
        (
            "doc: [../docs/trash.md, ../docs/billing.md]",
            "gold/policies.yaml:7: 'doc' must be one path or glob (text), not a list*",
        ),
        (
            "doc: {path: ../docs/trash.md}",
            "gold/policies.yaml:7: 'doc' must be text, not a mapping",
        ),
        (
            "span: Items stay in the trash",
            "gold/policies.yaml:4: needle '30 days' is not inside the span 'Items stay in the trash'*",
        ),
    ],
)
def test_bad_doc_and_span_are_collection_errors(saas, case, message):
    saas.gold(
        f"""
        corpus: ../docs/*.md
        chunker: rag:sentences
        cases:
          - id: trash
            question: How long?
            needle: 30 days
            {case}
        """
    )
    result = saas.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"chunkrecall: {message}"])
    assert_no_internals(result)


@pytest.mark.parametrize("value", ["-1", "ten", "1.5", "99999999999"])
def test_depth_must_be_a_whole_number(saas, value):
    saas_gold(saas, "- {id: a, question: trash, needle: 30 days}")
    result = saas.run("-o", f"chunkrecall_depth={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini option chunkrecall_depth must be a whole number from 0*"])


def test_a_ranked_out_short_needle_names_the_other_documents_that_hold_it(saas):
    saas.write("docs/gifts.md", "Gift cards never expire and work online.\n")
    saas.write("docs/trash-faq.md", "Restore an item within 30 days. After 30 days it is gone.\n")
    saas_gold(
        saas,
        """
        - id: loose
          question: How long do deleted items stay in the trash?
          needle: 30 days
        - id: anchored
          question: How long do deleted items stay in the trash?
          needle: 30 days
          span: Items stay in the trash for 30 days
        """,
        rankings="{How long do deleted items stay in the trash?: [1]}",
    )
    result, report = saas.report()
    result.assert_outcomes(failed=2)
    assert {c["verdict"] for c in report["cases"]} == {"ranked_out"}
    hint = (
        "  the needle also occurs in docs/trash-faq.md (2 chunks), docs/trash.md (1 chunk); "
        "pin the case with doc: if only one document answers"
    )
    assert result.outlines.count(hint) == 1, result.stdout.str()  # the anchored case needs no pin
