"""Verdicts on the storefront corpus: hit, split, ranked_out, absent — and what the message shows."""

from __future__ import annotations

import pytest

from .conftest import POLICIES, dedent

FACTS = """
    cases:
      - id: refund-window
        question: refund window
        needle: 30 days
        span: refund window is 30 days
      - id: express-shipping
        question: express shipping
        needle: 2 business days
        span: Express shipping takes 2 business days
      - id: warranty-coverage
        question: warranty coverage
        needle: 12 months
        span: Warranty coverage runs 12 months
      - id: restocking-fee
        question: restocking fee
        needle: 15 percent
        span: restocking fee of 15 percent
      - id: customs
        question: customs clearance
        needle: 9 dollars
        span: {from: Customs clearance, to: 9 dollars}
"""

TOP1 = '''
import pytest


def top1(chunks):
    """The chunk holding the most question words as substrings; the lowest index wins ties."""

    def search(question, k):
        words = question.lower().split()
        best, best_score = 0, -1
        for i, chunk in enumerate(chunks):
            score = sum(1 for w in words if w in chunk.text.lower())
            if score > best_score:
                best, best_score = i, score
        return [chunks[best]]

    return search


@pytest.hookimpl
def pytest_chunkrecall_retriever(config, gold_path):
    return top1
'''


def test_overlap_recovers_the_facts_a_window_edge_cut(shop):
    """The article's demo: 1/5 at overlap 0, 4/5 at overlap 24; customs stays split."""
    shop.pytester.makeconftest(TOP1)
    for overlap in (0, 24):
        shop.gold(
            f"corpus: ../docs/policies.md\nchunker_args: {{size: 80, overlap: {overlap}}}\n"
            f"k: 1\n{dedent(FACTS)}",
            f"gold/overlap{overlap}.yaml",
        )
    result, report = shop.report()
    result.assert_outcomes(passed=5, failed=5)
    totals = report["totals"]
    assert (totals["hits"], totals["cases"], totals["split_spans"]) == (5, 10, 5)
    assert totals["verdicts"] == {
        **{"hit": 5, "split": 5, "ranked_out": 0, "absent": 0},
        **{"unparsed": 0, "reranked_out": 0, "leaked": 0},
    }
    assert totals["hit_rate_ci95"] == [
        pytest.approx(0.237, abs=5e-4),
        pytest.approx(0.763, abs=5e-4),
    ]
    files = {g["path"]: g for g in report["gold_files"]}
    assert [(g["totals"]["hits"], g["totals"]["split_spans"]) for g in files.values()] == [
        (1, 4),
        (4, 1),
    ]
    for overlap in (0, 24):
        gold = files[f"gold/overlap{overlap}.yaml"]
        assert gold["chunker"] == "pytest_chunkrecall.chunkers:fixed_size"
        assert gold["chunker_args"] == {"size": 80, "overlap": overlap}
        assert (gold["corpus"], gold["documents"], gold["corpus_chars"]) == (
            "../docs/policies.md",
            1,
            502,
        )
        assert (gold["retriever"], gold["k"]) == ("top1 (from pytest_chunkrecall_retriever)", 1)
    verdicts = {case["nodeid"]: case["verdict"] for case in report["cases"]}
    assert verdicts == {
        "gold/overlap0.yaml::refund-window": "split",
        "gold/overlap0.yaml::express-shipping": "split",
        "gold/overlap0.yaml::warranty-coverage": "split",
        "gold/overlap0.yaml::restocking-fee": "hit",
        "gold/overlap0.yaml::customs": "split",
        "gold/overlap24.yaml::refund-window": "hit",
        "gold/overlap24.yaml::express-shipping": "hit",
        "gold/overlap24.yaml::warranty-coverage": "hit",
        "gold/overlap24.yaml::restocking-fee": "hit",
        "gold/overlap24.yaml::customs": "split",
    }
    chunks = {g["path"]: g["chunks"] for g in report["gold_files"]}
    assert chunks == {"gold/overlap0.yaml": 7, "gold/overlap24.yaml": 9}


class Windows:
    """The policies document in 80-character windows without overlap: chunk i is [80i, 80i+80)."""

    def __init__(self, shop):
        self.shop = shop

    def __call__(self, cases: str, **settings: object) -> None:
        head = {
            "corpus": "../docs/policies.md",
            "chunker_args": "{size: 80, overlap: 0}",
            "retriever": "rag:keywords",
            **settings,
        }
        lines = "".join(f"{key}: {value}\n" for key, value in head.items())
        self.shop.gold(lines + "cases:\n" + dedent(cases))

    def report(self, *args):
        return self.shop.report(*args)

    def cases(self, *args):
        return self.shop.cases(*args)


@pytest.fixture
def windows(shop):
    return Windows(shop)


def pinned(rankings: dict[str, list[int]]) -> str:
    """retriever_args that pin the ranking of chosen questions."""
    inner = ", ".join(f"{q!r}: {list(r)}" for q, r in rankings.items())
    return f"{{rankings: {{{inner}}}}}"


def at(needle: str) -> int:
    """The window of the policies document that holds ``needle``."""
    start = POLICIES.index(needle)
    assert start // 80 == (start + len(needle) - 1) // 80, "needle cut by a window edge"
    return start // 80


def test_hit_rank_is_the_rank_by_which_every_needle_was_found(windows):
    fee, refund = at("15 percent"), at("30 days")
    others = [i for i in range(7) if i not in (fee, refund)]
    windows(
        """
        - id: both
          question: fees and refunds
          needles: [30 days, 15 percent]
        - id: one
          question: restocking only
          needle: 15 percent
        """,
        k=4,
        retriever_args=pinned(
            {
                "fees and refunds": [others[0], fee, others[1], refund, others[2]],
                "restocking only": [others[0], fee],
            }
        ),
    )
    result, report = windows.report()
    result.assert_outcomes(passed=2)
    cases = {c["id"]: c for c in report["cases"]}
    assert (cases["both"]["verdict"], cases["both"]["rank"]) == ("hit", 4)
    assert (cases["one"]["verdict"], cases["one"]["rank"]) == ("hit", 2)


def test_every_needle_is_required(windows):
    fee, refund = at("15 percent"), at("30 days")
    windows(
        """
        - id: both
          question: fees and refunds
          needles: [15 percent, 30 days]
        """,
        k=3,
        retriever_args=pinned({"fees and refunds": [fee, 0, 2, refund]}),
    )
    result, report = windows.report()
    result.assert_outcomes(failed=1)
    (case,) = report["cases"]
    assert (case["verdict"], case["rank"]) == ("ranked_out", None)
    assert case["retrieved_ids"] == [f"docs/policies.md#{i}" for i in (fee, 0, 2)]
    assert [(h["pattern"], h["chunk"]["index"]) for h in case["held"]] == [("30 days", refund)]
    assert case["holding_rank"] == 4
    # the message names the needle that the top 3 lost, and the chunk that holds it
    assert any(
        line.startswith(f"  '30 days' is held whole by docs/policies.md [{refund * 80}:")
        and line.endswith("which is not in the top 3")
        for line in result.outlines
    ), result.stdout.str()


def test_split_shows_the_boundary_and_the_text_either_side(windows):
    windows(
        """
        - id: refund-window
          question: refund window
          needle: 30 days
          span: The refund window is 30 days
        """,
        k=1,
    )
    result, report = windows.report()
    result.assert_outcomes(failed=1)
    start = POLICIES.index("The refund window is 30 days")
    assert start < 80 < start + len("The refund window is 30 days")
    (case,) = report["cases"]
    assert (case["verdict"], case["span_split"], case["rank"]) == ("split", True, None)
    cut = case["cut"]
    assert (cut["doc"], cut["offset"], cut["overlap"]) == ("docs/policies.md", 80, 0)
    assert cut["before"].endswith(POLICIES[start:80])
    assert cut["after"].startswith(POLICIES[80 : start + 28])
    assert (
        (cut["left"]["index"], cut["left"]["end"]),
        (cut["right"]["index"], cut["right"]["start"]),
    ) == ((0, 80), (1, 80))
    assert case["retrieved_ids"] == ["docs/policies.md#0"]
    # the message shows the text on both sides of the cut
    assert f"{POLICIES[start:80]}|{POLICIES[80 : start + 28]}" in result.stdout.str()


def test_a_needle_cut_in_two_is_split_without_a_span(windows):
    start = POLICIES.index("12 months")
    boundary = (start // 80 + 1) * 80
    assert start < boundary < start + len("12 months")
    windows(
        """
        - id: warranty
          question: warranty coverage
          needle: 12 months
        """,
        k=7,
    )
    result, report = windows.report()
    result.assert_outcomes(failed=1)
    (case,) = report["cases"]
    assert (case["verdict"], case["span_split"]) == ("split", True)
    assert (case["cut"]["doc"], case["cut"]["offset"]) == ("docs/policies.md", boundary)
    assert f"{POLICIES[start:boundary]}|{POLICIES[boundary : start + 9]}" in result.stdout.str()


def test_a_cut_span_fails_as_split_though_its_needle_came_back(windows):
    """The span is the passage that must survive chunking: its needle alone is no hit."""
    shipping = at("2 business days")
    windows(
        """
        - id: express
          question: express shipping
          needle: 2 business days
          span: Express shipping takes 2 business days
        - id: fee
          question: restocking fee
          needle: 15 percent
          span: restocking fee of 15 percent
        """,
        k=1,
        retriever_args=pinned({"express shipping": [shipping]}),
    )
    result, report = windows.report()
    result.assert_outcomes(passed=1, failed=1)
    cases = {c["id"]: c for c in report["cases"]}
    assert (cases["express"]["verdict"], cases["express"]["span_split"]) == ("split", True)
    assert cases["express"]["rank"] is None
    assert (cases["fee"]["verdict"], cases["fee"]["span_split"]) == ("hit", False)
    assert report["totals"]["split_spans"] == 1
    assert (report["totals"]["hits"], report["totals"]["cases"]) == (1, 2)


def test_absent_needle_is_a_gold_error_with_the_closest_text(windows):
    windows(
        """
        - id: refund
          question: refund window
          needle: 45 days
        """,
        k=2,
    )
    result, report = windows.report()
    result.assert_outcomes(failed=1)
    (case,) = report["cases"]
    assert (case["verdict"], case["rank"]) == ("absent", None)
    assert case["missing"] == ["45 days"]
    shown = case["closest"]["text"]
    assert shown.lower() in POLICIES.lower()
    assert "days" in shown
    assert "  not in the corpus: '45 days'" in result.outlines
    assert f"  closest text: {shown!r} in docs/policies.md" in result.stdout.str()


def test_a_needle_outside_its_text_span_is_a_collection_error(windows):
    windows(
        """
        - id: refund
          question: refund window
          needle: 30 days
          span: The refund window is 60 days
        """,
        k=1,
    )
    result = windows.shop.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: gold/policies.yaml:6: needle '30 days' is not inside the span "
            "'The refund window is 60 days'; every needle must lie inside its span*"
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_absent_span_even_when_the_needle_is_there(windows):
    windows(
        """
        - id: refund
          question: refund window
          needle: refund window
          span: The refund window is 60 days
        - id: customs
          question: customs clearance
          needle: 9 dollars
          span: {from: Customs clearance, to: 9 euros}
        """,
        k=1,
    )
    result, report = windows.report()
    result.assert_outcomes(failed=2)
    assert {c["id"]: c["missing"] for c in report["cases"]} == {
        "refund": ["The refund window is 60 days"],
        "customs": ["9 euros"],
    }
    assert {c["verdict"] for c in report["cases"]} == {"absent"}


def test_ranked_out_when_the_span_is_whole_but_not_retrieved(windows):
    fee = at("restocking fee of 15 percent")
    windows(
        """
        - id: fee
          question: what does it cost to send back an opened item
          needle: 15 percent
          span: restocking fee of 15 percent
        """,
        k=2,
        retriever_args=pinned({"what does it cost to send back an opened item": [0, 1]}),
    )
    result, report = windows.report()
    result.assert_outcomes(failed=1)
    (case,) = report["cases"]
    assert (case["verdict"], case["span_split"]) == ("ranked_out", False)
    assert case["holding_ids"] == [f"docs/policies.md#{fee}"]
    assert case["retrieved_ids"] == ["docs/policies.md#0", "docs/policies.md#1"]
    assert any(
        line.startswith(
            f"  the span is held whole by docs/policies.md [{fee * 80}:{fee * 80 + 80}]"
        )
        for line in result.outlines
    ), result.stdout.str()


GIFT_CARDS = (
    "Gift cards are sold at every till and online in any amount you like. "
    "Gift cards keep their value for 5 years. Lost cards are not replaced.\n"
)


def test_a_span_range_is_the_shortest_passage_from_to(shop):
    shop.write("docs/gift.md", GIFT_CARDS)
    shop.gold(
        """
        corpus: ../docs/gift.md
        chunker: rag:sentences
        retriever: rag:keywords
        k: 1
        cases:
          - id: gift
            question: how long do gift cards keep their value
            needle: 5 years
            span: {from: gift cards, to: 5 years}
        """
    )
    result, report = shop.report()
    result.assert_outcomes(passed=1)
    (case,) = report["cases"]
    shortest = "Gift cards keep their value for 5 years"
    assert case["span_split"] is False
    assert case["span_length"] == len(shortest)


@pytest.mark.parametrize(
    "needle, match, verdict",
    [
        ("30 days", "exact", "hit"),
        ("30 Days", "exact", "absent"),
        ("30 Days", "normalized", "hit"),
        ("never soak the leather", "exact", "absent"),  # the corpus has two spaces
        ("NEVER SOAK THE LEATHER", "normalized", "hit"),
        ("30 dayz", "normalized", "absent"),
        ("30 dayz", "fuzzy", "hit"),
        ("45 weeks", "fuzzy", "absent"),
    ],
)
def test_match_modes(shop, needle, match, verdict):
    shop.gold(
        f"""
        corpus: ../docs/*.md
        chunker: rag:sentences
        match: {match}
        fuzzy_threshold: 80
        cases:
          - id: case
            question: refund window soak leather
            needle: {needle}
        """
    )
    _, report = shop.report()
    (case,) = report["cases"]
    assert (case["verdict"], case["match"]) == (verdict, match)


def test_per_case_overrides_of_k_match_and_threshold(windows):
    refund = at("30 days")
    windows(
        """
        - id: defaults
          question: refund
          needle: 30 DAYS
        - id: small-k
          question: refund
          needle: 30 days
          k: 1
        - id: exact
          question: refund
          needle: 30 DAYS
          match: exact
        - id: fuzzy-strict
          question: refund
          needle: 30 dayz
          match: fuzzy
          fuzzy_threshold: 99
        - id: fuzzy-loose
          question: refund
          needle: 30 dayz
          match: fuzzy
          fuzzy_threshold: 80
        """,
        k=2,
        retriever_args=pinned({"refund": [0, refund]}),
    )
    cases = windows.cases()
    got = {i: (c["verdict"], c["k"], c["match"]) for i, c in cases.items()}
    assert got == {
        "defaults": ("hit", 2, "normalized"),
        "small-k": ("ranked_out", 1, "normalized"),
        "exact": ("absent", 2, "exact"),
        "fuzzy-strict": ("absent", 2, "fuzzy"),
        "fuzzy-loose": ("hit", 2, "fuzzy"),
    }
    assert cases["defaults"]["rank"] == 2


def test_command_line_k_overrides_gold_and_case(windows):
    refund = at("30 days")
    windows(
        """
        - id: small-k
          question: refund
          needle: 30 days
          k: 1
        """,
        k=1,
        retriever_args=pinned({"refund": [0, refund]}),
    )
    assert windows.cases()["small-k"]["verdict"] == "ranked_out"
    case = windows.cases("--chunkrecall-k", "2")["small-k"]
    assert (case["verdict"], case["k"], case["rank"]) == ("hit", 2, 2)


def test_a_chunk_that_is_all_of_the_needle_counts(shop):
    shop.write("docs/short.md", "30 days. Refunds.")
    shop.gold(
        """
        corpus: ../docs/short.md
        chunker: rag:sentences
        cases:
          - id: whole
            question: refunds days
            needle: 30 days
        """
    )
    assert shop.cases()["whole"]["verdict"] == "hit"


def closest_text(result) -> str:
    line = next(line for line in result.outlines if "closest text:" in line)
    return line.split("closest text: ", 1)[1].rsplit(" in docs/", 1)[0][1:-1]


def test_the_closest_text_is_read_from_the_document_not_cut_at_a_chunk_edge(windows):
    """A typo'd span that a boundary cuts: the author needs to see the corpus's words."""
    start = POLICIES.index("The refund window is 30 days")
    assert start < 80 < start + 28
    windows(
        """
        - id: refund
          question: refund window
          needle: refund window
          span: The refund window is 60 days
        """,
        k=1,
    )
    result = windows.shop.run()
    result.assert_outcomes(failed=1)
    shown = closest_text(result)
    assert "refund window is 30 days" in shown
    assert shown in POLICIES


def test_a_composed_needle_is_found_in_a_decomposed_document(shop):
    """Normalized matching is NFKC on both sides: 'thé' typed in YAML, 'the' + U+0301 on disk."""
    shop.write("docs/cafe.md", "Le cafe\u0301 ferme a\u0300 18 h. Le the\u0301 est offert.")
    shop.gold(
        """
        corpus: ../docs/cafe.md
        chunker: rag:sentences
        k: 1
        cases:
          - id: closing
            question: quand ferme le café
            needle: café ferme à 18 h
          - id: tea
            question: quand ferme le café
            needle: thé est offert
        """
    )
    cases = shop.cases()
    assert cases["closing"]["verdict"] == "hit"
    assert cases["tea"]["verdict"] == "ranked_out"


def test_fuzzy_matching_tells_split_from_ranked_out_and_absent(windows):
    """A near-miss needle in fuzzy mode still gets a geometric verdict."""
    fee = at("restocking fee of 15 percent")
    windows(
        """
        - id: cut
          question: refund
          needle: The refund window is 30 dayz
        - id: elsewhere
          question: refund
          needle: restocking fee of 15 percnt
        - id: nowhere
          question: refund
          needle: gift wrapping costs 4 euros
        """,
        k=1,
        match="fuzzy",
        fuzzy_threshold=85,
        retriever_args=pinned({"refund": [0]}),
    )
    cases = windows.cases()
    assert {i: c["verdict"] for i, c in cases.items()} == {
        "cut": "split",
        "elsewhere": "ranked_out",
        "nowhere": "absent",
    }
    assert cases["elsewhere"]["held"][0]["chunk"]["index"] == fee
    assert cases["cut"]["cut"]["offset"] == 80


def test_real_questions_over_a_real_corpus(shop, chunking_evaluation):
    """The State of the Union questions, their excerpts as needles, fixed windows and BM25.

    No excerpt is absent (each is corpus text); a case is split exactly when one of
    its excerpts lies whole in no window, else the retriever decides hit or ranked_out.
    """
    import csv
    import json

    from pytest_chunkrecall.chunkers import fixed_size
    from pytest_chunkrecall.text.folding import fold_text

    corpus = (chunking_evaluation / "corpora/state_of_the_union.md").read_text(encoding="utf-8")
    shop.write("docs/sotu.md", corpus)
    with open(chunking_evaluation / "questions_df.csv", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["corpus_id"] == "state_of_the_union"]
    cases, needles = [], {}
    for number, row in enumerate(rows):
        excerpts = [ref["content"] for ref in json.loads(row["references"])]
        needles[f"q{number}"] = excerpts
        cases.append(
            f"  - id: q{number}\n    question: {json.dumps(row['question'])}\n"
            f"    needles: {json.dumps(excerpts)}\n"
        )
    shop.gold(
        "corpus: ../docs/sotu.md\nchunker_args: {size: 400, overlap: 100}\nk: 5\ncases:\n"
        + "".join(cases)
    )
    _, report = shop.report()
    windows = [fold_text(w) for w in fixed_size(corpus, 400, 100)]
    verdicts = {c["id"]: c for c in report["cases"]}
    assert len(verdicts) == len(rows) > 50
    for case_id, excerpts in needles.items():
        case = verdicts[case_id]
        whole = all(any(fold_text(e) in w for w in windows) for e in excerpts)
        if whole:
            assert case["verdict"] in ("hit", "ranked_out"), case_id
        else:
            assert case["verdict"] == "split", case_id
        assert case["span_split"] == (not whole), case_id
    counted = report["totals"]["verdicts"]
    assert counted["absent"] == 0
    assert counted["split"] > 0 and counted["hit"] > 0


def test_a_span_that_starts_where_no_chunk_reaches_says_so(shop):
    shop.write(
        "gappy.py",
        "def chunk(text):\n    return [text[:60], text[100:200], text[200:]]\n",
    )
    shop.ini("chunkrecall_corpus = docs/policies.md\nchunkrecall_chunker = gappy:chunk\n")
    shop.gold(
        """
        cases:
          - question: refund window
            needle: 30 days
            span: The refund window is 30 days
        """
    )
    result, report = shop.report()
    (case,) = report["cases"]
    assert case["verdict"] == "split"
    cut = case["cut"]
    assert (cut["offset"], cut["left"], cut["right"]["index"], cut["right"]["start"]) == (
        100,
        None,
        1,
        100,
    )
    assert (
        "    no chunk holds the text where the span starts (the chunker left it out)"
        in result.outlines
    )


def test_in_exact_mode_a_chunk_that_rejoined_the_lines_does_not_hold_them_exactly(shop):
    """Placed up to whitespace, the chunk covers the needle; its own text is what counts."""
    shop.write("docs/guide.md", "Returns.\n\nRefunds take 30 days.\n\nGift cards never expire.\n")
    shop.write(
        "lines.py",
        dedent(
            """
        def chunk(text):
            lines = [line for line in text.split("\\n") if line.strip()]
            return ["\\n".join(lines[:2]), lines[2]]


        def first(chunks):
            return lambda question, k: [0]
        """
        ),
    )
    shop.gold(
        """
        corpus: ../docs/guide.md
        chunker: lines:chunk
        retriever: lines:first
        match: exact
        k: 1
        cases:
          - id: blank-line
            question: returns and refunds
            needle: "Returns.\\n\\nRefunds"
          - id: one-line
            question: refunds
            needle: 30 days
        """
    )
    cases = shop.cases()
    assert (cases["blank-line"]["verdict"], cases["one-line"]["verdict"]) == ("split", "hit")
    assert cases["blank-line"]["cut"] is None  # no boundary divides it: no cut to show
