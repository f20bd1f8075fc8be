"""The loading stage: a fact the loader lost is ``unparsed``, told from an ``absent`` one by the
reference text of the source files, with real loaders over files made here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_chunkrecall.__main__ import main
from pytest_chunkrecall.evaluation.reference import Reference, markup_text, reference_text
from pytest_chunkrecall.evaluation.verdict import decide

from .conftest import QUIET, Golden, Shop, assert_no_internals, lines

pytest.importorskip("bs4")

TABLE = """\
<html><head><title>Refunds</title><style>td { color: red }</style></head>
<body>
<h1>Refunds</h1>
<table>
  <tr><td>Refund window</td><td>30</td><td>days</td></tr>
  <tr><td>Restocking fee</td><td>15&nbsp;percent</td></tr>
</table>
<p>Express shipping takes 2 business days &amp; is tracked.</p>
</body></html>
"""

LOADERS = '''
from pathlib import Path

from bs4 import BeautifulSoup


def soup(path):
    """The page's text as BeautifulSoup gives it: table cells run together."""
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser").get_text()


def broken(path):
    raise ValueError(f"cannot open {Path(path).name}")


def as_bytes(path):
    return Path(path).read_bytes()


def latin(path):
    return Path(path).read_text(encoding="latin-1").replace("30 days", "30")
'''

HTML_CASES = """
    corpus: ../docs/*.html
    chunker_args: {size: 400, overlap: 0}
    cases:
      - id: refund-window
        question: What is the refund window?
        needle: 30 days
      - id: express
        question: How long does express shipping take?
        needle: 2 business days
      - id: gift-wrap
        question: Is gift wrap free?
        needle: gift wrap is free
"""


@pytest.fixture
def html_shop(shop: Shop) -> Shop:
    shop.write("docs/refunds.html", TABLE)
    shop.write("loaders.py", LOADERS)
    shop.gold(HTML_CASES)
    return shop


def test_a_table_cell_the_loader_ran_together_is_unparsed(html_shop: Shop) -> None:
    """BeautifulSoup's get_text() turns <td>30</td><td>days</td> into '30days': the loader
    lost the fact, which the reference text (markup removed, each tag a space) still has."""
    html_shop.ini("chunkrecall_loader = loaders:soup\n")
    result, report = html_shop.report()
    assert result.ret == 1
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["refund-window"]["verdict"] == "unparsed"
    assert cases["refund-window"]["outcome"] == "failed"
    assert cases["refund-window"]["loading"]["doc"] == "docs/refunds.html"
    assert "30days" in cases["refund-window"]["loading"]["loaded"]
    assert cases["express"]["verdict"] == "hit"
    assert cases["gift-wrap"]["verdict"] == "absent"  # in no reading of the file: gold data
    assert report["totals"]["verdicts"]["unparsed"] == 1
    assert_no_internals(result)


def test_an_unparsed_case_shows_the_reference_and_the_loaded_text(
    html_shop: Shop, golden: Golden
) -> None:
    html_shop.ini("chunkrecall_loader = loaders:soup\n")
    result = golden.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    golden.check("unparsed", "pytest", result)


@pytest.mark.slow
def test_under_xdist_a_worker_finds_the_same_loss(html_shop: Shop) -> None:
    pytest.importorskip("xdist")
    html_shop.ini("chunkrecall_loader = loaders:soup\n")
    serial, spread = html_shop.cases(), html_shop.cases("-n", "2")
    assert {name: (case["verdict"], case["loading"]) for name, case in spread.items()} == {
        name: (case["verdict"], case["loading"]) for name, case in serial.items()
    }
    assert spread["refund-window"]["verdict"] == "unparsed"


def test_without_a_loader_the_same_miss_stays_absent(html_shop: Shop) -> None:
    """The file read as it is: '30 days' is not in the HTML source, and there is no loading
    stage to blame, so nothing changes: absent, an unparsed count of 0, and a summary that
    does not mention the stage."""
    result, report = html_shop.report()
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["refund-window"]["verdict"] == "absent"
    assert cases["refund-window"]["loading"] is None
    assert report["totals"]["verdicts"]["unparsed"] == 0
    assert "unparsed" not in result.stdout.str()


@pytest.mark.parametrize(("match", "verdict"), [("normalized", "unparsed"), ("exact", "absent")])
def test_the_reference_text_is_matched_in_the_case_s_match_mode(
    html_shop: Shop, match: str, verdict: str
) -> None:
    """'30 DAYS' is the page's '30 days' up to case: normalized finds it in the reference
    text, exact does not, and then the gold data is at fault."""
    html_shop.ini("chunkrecall_loader = loaders:soup\n")
    html_shop.gold(
        HTML_CASES.replace(
            "        needle: 30 days\n", f"        needle: 30 DAYS\n        match: {match}\n"
        )
    )
    assert html_shop.cases()["refund-window"]["verdict"] == verdict


def test_the_gold_file_names_the_loader_and_an_expected_loss_is_xfail(html_shop: Shop) -> None:
    html_shop.gold(
        HTML_CASES.replace("    cases:", "    loader: loaders:soup\n    cases:").replace(
            "        needle: 30 days\n",
            "        needle: 30 days\n        xfail: get_text() runs table cells together\n",
        )
    )
    result, report = html_shop.report("-rx")
    cases = {case["id"]: case for case in report["cases"]}
    assert (cases["refund-window"]["verdict"], cases["refund-window"]["outcome"]) == (
        "unparsed",
        "xfailed",
    )
    result.stdout.fnmatch_lines(["*XFAIL*refund-window*unparsed*get_text()*"])


# ---------------------------------------------------------------- inline and block markup

GUIDE = """\
<html><body>
<h2>Configuration</h2><p>Settings live in <code>quillstack.toml</code>.</p>
<ul><li>Personal token</li><li>90 days</li></ul>
</body></html>
"""

# XQuAD-style paragraphs, with a <wbr> where a long word may break
PARAGRAPHS = """\
<html><body>
<p>The Steelers play their home games in Pitts<wbr>burgh, Pennsylvania.</p>
<p>The team was founded in 1933 by Art Rooney.</p>
</body></html>
"""

SOUP_LOADERS = '''
from pathlib import Path

from bs4 import BeautifulSoup


def _soup(path):
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser")


def glued(path):
    """get_text(): every string run together, list items and cells included."""
    return _soup(path).get_text()


def spaced(path):
    """get_text(" "): a space between every two strings, inline ones included."""
    return _soup(path).get_text(" ")
'''

MARKUP_CASES = """
    corpus: ../docs/*.html
    chunker_args: {size: 400, overlap: 0}
    cases:
      - id: config-file
        question: Where do settings live?
        needle: quillstack.toml.
      - id: token-expiry
        question: When does a personal token expire?
        needle: Personal token 90 days
      - id: home
        question: Where do the Steelers play?
        needle: Pittsburgh, Pennsylvania
"""


@pytest.fixture
def markup_shop(shop: Shop) -> Shop:
    shop.write("docs/guide.html", GUIDE)
    shop.write("docs/steelers.html", PARAGRAPHS)
    shop.write("loaders.py", SOUP_LOADERS)
    shop.gold(MARKUP_CASES)
    return shop


@pytest.mark.parametrize(
    ("loader", "verdicts"),
    [
        # get_text() glues the list items: what it lost is the loader's, not the gold's
        ("glued", {"config-file": "hit", "token-expiry": "unparsed", "home": "hit"}),
        # get_text(" ") keeps them apart, and puts a space into code and a <wbr> word
        ("spaced", {"config-file": "unparsed", "token-expiry": "hit", "home": "unparsed"}),
    ],
)
def test_the_reference_reads_html_as_a_browser_lays_it_out(
    markup_shop: Shop, loader: str, verdicts: dict[str, str]
) -> None:
    """Inline elements (code, wbr) separate nothing and block elements (li, p) do, so a
    BeautifulSoup loader that glues blocks or spaces inline text loses a fact to loading,
    never to the gold data: ``unparsed``, with the reference text that has it."""
    markup_shop.ini(f"chunkrecall_loader = loaders:{loader}\n")
    result, report = markup_shop.report()
    cases = {case["id"]: case for case in report["cases"]}
    assert {name: case["verdict"] for name, case in cases.items()} == verdicts
    lost = [case["loading"] for case in cases.values() if case["verdict"] == "unparsed"]
    assert all(loss["reference"] for loss in lost)
    assert_no_internals(result)


def test_a_wbr_splits_no_word_and_a_code_element_no_sentence() -> None:
    assert " ".join(markup_text(PARAGRAPHS).split()).startswith(
        "The Steelers play their home games in Pittsburgh, Pennsylvania."
    )
    text = " ".join(markup_text(GUIDE).split())
    assert "Settings live in quillstack.toml." in text
    assert "Personal token 90 days" in text
    assert "Configuration Settings" in text  # a heading and a paragraph: two blocks
    assert " ".join(markup_text("a<br>b<br/>c<span>d</span><b>e</b>").split()) == "a b cde"


# ---------------------------------------------------------------- a two-column PDF

PDF_LOADERS = '''
import pypdf


def plain(path):
    """pypdf's text in content-stream order: a two-column page comes out row by row."""
    return "\\n".join(page.extract_text() for page in pypdf.PdfReader(path).pages)


def columns(path):
    """A second extractor: each text run placed by its position, left column first."""
    lines = []
    for page in pypdf.PdfReader(path).pages:
        middle = float(page.mediabox.width) / 2
        found = []

        def visit(text, cm, tm, font, size):
            if text.strip():
                found.append((tm[4] >= middle, -tm[5], text.strip()))

        page.extract_text(visitor_text=visit)
        lines += [text for _, _, text in sorted(found)]
    return "\\n".join(lines)
'''

LEFT = ["The refund window is", "30 days from the day", "the parcel arrives."]
RIGHT = ["Express shipping takes", "2 business days for", "goods in stock."]


def two_columns(path: Path) -> None:
    """A page whose two columns are drawn row by row, as many layout tools write them."""
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    page = canvas.Canvas(str(path), pagesize=(612, 792))
    y = 700
    for left, right in zip(LEFT, RIGHT, strict=True):
        page.drawString(72, y, left)
        page.drawString(320, y, right)
        y -= 14
    page.save()


PDF_CASES = """
    corpus: ../docs/*.pdf
    loader: pdfs:plain
    reference_loader: pdfs:columns
    chunker_args: {size: 400, overlap: 0}
    cases:
      - id: refund-window
        question: What is the refund window?
        needle: 30 days
        span: The refund window is 30 days
      - id: express-days
        question: How long does express shipping take?
        needle: 2 business days
"""


@pytest.fixture
def pdf_shop(shop: Shop) -> Shop:
    pytest.importorskip("pypdf")
    two_columns(shop.path / "docs/handbook.pdf")
    shop.write("pdfs.py", PDF_LOADERS)
    shop.gold(PDF_CASES)
    return shop


def test_columns_that_interleave_are_unparsed(pdf_shop: Shop) -> None:
    """pypdf reads the right column's line between the left column's two: the span is lost
    by loading, and the column-aware reference extractor shows it whole."""
    result, report = pdf_shop.report()
    assert result.ret == 1
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["refund-window"]["verdict"] == "unparsed"
    assert cases["express-days"]["verdict"] == "hit"
    result.stdout.fnmatch_lines(
        lines(
            "*lost by the loader: 'The refund window is 30 days' in docs/handbook.pdf",
            "*reference text of docs/handbook.pdf: 'The refund window is 30 days from the day*",
        )
    )
    assert_no_internals(result)


def test_without_a_reference_loader_a_pdf_is_not_checked_and_says_so(pdf_shop: Shop) -> None:
    pdf_shop.gold(PDF_CASES.replace("    reference_loader: pdfs:columns\n", ""))
    result, report = pdf_shop.report()
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["refund-window"]["verdict"] == "absent"
    result.stdout.fnmatch_lines(
        [
            "*not checked: docs/handbook.pdf has no reference text: .pdf is no text format; "
            "set chunkrecall_reference_loader*"
        ]
    )


@pytest.mark.parametrize(
    ("reference", "said"),
    [
        (
            "loaders:broken",
            "*not checked: reference loader loaders:broken failed on "
            "docs/handbook.pdf: ValueError: cannot open handbook.pdf*",
        ),
        (
            "loaders:as_bytes",
            "*not checked: reference loader loaders:as_bytes returned bytes "
            "for docs/handbook.pdf; it must return str*",
        ),
    ],
)
def test_a_reference_loader_at_fault_fails_its_files_cases_not_the_run(
    pdf_shop: Shop, reference: str, said: str
) -> None:
    pdf_shop.write("loaders.py", LOADERS)
    pdf_shop.gold(PDF_CASES.replace("pdfs:columns", reference))
    result, report = pdf_shop.report()
    assert result.ret == 1
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["refund-window"]["verdict"] == "absent"
    assert cases["refund-window"]["outcome"] == "failed"
    assert cases["express-days"]["outcome"] == "passed"  # a hit never reads the reference
    result.stdout.fnmatch_lines([said])
    assert_no_internals(result)


def test_an_undecodable_text_file_has_no_reference_and_the_message_says_so(shop: Shop) -> None:
    shop.write("docs/notes.txt", "Caf\xe9 opening: the refund window is 30 days.".encode("latin-1"))
    shop.write("loaders.py", LOADERS)
    shop.gold(
        """
        corpus: ../docs/*.txt
        loader: loaders:latin
        cases:
          - id: refund-window
            question: What is the refund window?
            needle: 30 days
        """
    )
    result, report = shop.report()
    assert report["cases"][0]["verdict"] == "absent"
    result.stdout.fnmatch_lines(
        [
            "*not checked: docs/notes.txt is not UTF-8 text (byte 0xe9 at offset 3), so it has no "
            "reference text to check*"
        ]
    )
    assert_no_internals(result)


def test_a_reference_loader_that_cannot_be_imported_is_a_usage_error(html_shop: Shop) -> None:
    html_shop.ini(
        "chunkrecall_loader = loaders:soup\nchunkrecall_reference_loader = loaders:nope\n"
    )
    result = html_shop.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*chunkrecall_reference_loader*has no attribute 'nope'*"])


# ---------------------------------------------------------------- the report's other readers


def test_an_unparsed_case_is_a_known_miss_and_exports_with_no_holding_chunk(
    html_shop: Shop, capsys: pytest.CaptureFixture[str]
) -> None:
    html_shop.ini("chunkrecall_loader = loaders:soup\nchunkrecall_baseline = baseline.json\n")
    html_shop.run("--chunkrecall-update-baseline")
    result, report = html_shop.report()
    cases = {case["id"]: case for case in report["cases"]}
    assert (cases["refund-window"]["verdict"], cases["refund-window"]["outcome"]) == (
        "unparsed",
        "xfailed",
    )
    result.stdout.fnmatch_lines(["*0 regressions, 0 improvements, 2 known misses*"])
    path = html_shop.path / "chunkrecall.json"
    merged = html_shop.path / "merged.json"
    assert main(["merge", str(path), "--out", str(merged)]) == 0
    assert json.loads(merged.read_text())["totals"]["verdicts"]["unparsed"] == 1
    assert main(["export", "trec", str(path), "--out", str(html_shop.path / "trec")]) == 0
    qrels = (html_shop.path / "trec" / "qrels.txt").read_text()
    lost = next(line for line in qrels.splitlines() if "refund-window" in line)
    assert "docs/refunds.html#" not in lost  # the loaded text holds it nowhere


# ---------------------------------------------------------------- the pure core


def test_the_reference_of_markup_is_its_text_with_every_block_tag_a_space() -> None:
    text = markup_text(
        "<p>A&amp;B</p><td>30</td><td>days</td><script>var x = '9 dollars';</script>"
        "<!-- 12 months --><x><![CDATA[1 < 2]]></x>"
    )
    assert " ".join(text.split()) == "A&B 30 days 1 < 2"


def test_reference_text_of_each_kind_of_file(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n<b>kept as written</b>", encoding="utf-8")
    (tmp_path / "b.xml").write_text("<r><v>30</v><u>days</u></r>", encoding="utf-8")
    (tmp_path / "c.pdf").write_bytes(b"%PDF-1.4")
    assert reference_text(tmp_path / "a.md", "a.md", None) == "# Title\n<b>kept as written</b>"
    assert " ".join(str(reference_text(tmp_path / "b.xml", "b.xml", None)).split()) == "30 days"
    note = reference_text(tmp_path / "c.pdf", "c.pdf", None)
    assert not isinstance(note, str) and not note.failed
    read = reference_text(tmp_path / "c.pdf", "c.pdf", lambda path: "from the PDF", "pdfs:x")
    assert read == "from the PDF"


def test_the_reference_is_read_only_when_asked_for(tmp_path: Path) -> None:
    calls: list[Path] = []
    (tmp_path / "c.pdf").write_bytes(b"%PDF-1.4")
    reference = Reference([("c.pdf", tmp_path / "c.pdf")], calls.append, "count")
    assert calls == []
    assert reference.notes[0].failed  # list.append returns None: no text
    assert reference.notes == reference.notes and len(calls) == 1


def test_loading_is_the_first_stage_that_can_lose_a_case() -> None:
    assert decide([None], absent=True, whole=[False], unparsed=True) == "unparsed"
    assert decide([None], absent=True, whole=[False]) == "absent"
    assert decide([None], absent=False, whole=[False]) == "split"
    assert decide([None], absent=False, whole=[True]) == "ranked_out"
    assert decide([1], absent=False, whole=[True]) == "hit"


# ---------------------------------------------------------------- the example project

EXAMPLE = Path(__file__).resolve().parents[1] / "example_project"


def test_the_example_s_help_pages_show_an_unparsed_case_expected_to_fail(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(
        EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    report = pytester.path / "pages.json"
    result = pytester.runpytest(*QUIET, "pages", "-rx", "--chunkrecall-report", str(report))
    assert result.ret == 0
    cases = {case["id"]: case for case in json.loads(report.read_text())["cases"]}
    assert (cases["mattress-pickup-fee"]["verdict"], cases["mattress-pickup-fee"]["outcome"]) == (
        "unparsed",
        "xfailed",
    )
    assert {case["verdict"] for name, case in cases.items() if name != "mattress-pickup-fee"} == {
        "hit"
    }
    assert cases["mattress-pickup-fee"]["loading"]["loaded"].startswith("Mattresses$99")


def test_span_split_of_an_absent_case_speaks_of_what_the_corpus_has(shop: Shop) -> None:
    """Missing text is cut by no boundary: span_split is false, unless a needle the corpus
    does have is split (as docs/verdicts.md says)."""
    shop.write("docs/short.md", "The refund window is 30 days. Express shipping takes 2 days.")
    shop.gold(
        """
        corpus: ../docs/short.md
        chunker_args: {size: 40, overlap: 0}
        cases:
          - id: missing
            question: Is gift wrap free?
            needle: gift wrap is free
          - id: missing-and-split
            question: Is gift wrap free with express shipping?
            needles: [gift wrap is free, Express shipping]
        """
    )
    cases = shop.cases()
    assert (cases["missing"]["verdict"], cases["missing"]["span_split"]) == ("absent", False)
    assert (cases["missing-and-split"]["verdict"], cases["missing-and-split"]["span_split"]) == (
        "absent",
        True,
    )


def test_span_split_of_an_unparsed_case_is_false(markup_shop: Shop) -> None:
    markup_shop.ini("chunkrecall_loader = loaders:glued\n")
    case = markup_shop.cases()["token-expiry"]
    assert (case["verdict"], case["span_split"]) == ("unparsed", False)


# ---------------------------------------------------------------- a needle the loader glued

TOKENS = """\
<html><body>
<h2>Personal tokens</h2>
<table><tr><td>Personal token</td><td>90</td><td>days</td></tr></table>
</body></html>
"""

SESSIONS = """\
# Sessions

Browser sessions end after 90 days without a sign-in.
"""


@pytest.fixture
def glued_shop(shop: Shop) -> Shop:
    shop.write("docs/tokens.html", TOKENS)
    shop.write("docs/sessions.md", SESSIONS)
    shop.write("loaders.py", SOUP_LOADERS)
    shop.ini("chunkrecall_loader = loaders:glued\n")
    shop.gold(
        """
        corpus: [../docs/tokens.html, ../docs/sessions.md]
        chunker_args: {size: 400, overlap: 0}
        k: 1
        cases:
          - id: token-expiry
            question: When does a personal token expire?
            needle: 90 days
        """
    )
    return shop


def test_a_needle_the_loader_glued_is_named_beside_the_ranking_loss(glued_shop: Shop) -> None:
    """get_text() reads the table row as 'Personal token90days'; the unrelated sessions page
    also says 90 days, so the case is ranked_out, and the message says that the retrieved
    chunk holds the needle glued, with the hint to pin the case."""
    result, report = glued_shop.report()
    case = report["cases"][0]
    assert case["verdict"] == "ranked_out"
    assert case["glued"] == {"pattern": "90 days", "text": "token90days", "rank": 1}
    result.stdout.fnmatch_lines(
        [
            "  a retrieved chunk (rank 1) holds '90 days' glued: 'token90days'; the loader may "
            "have joined two cells",
            "  pin the case with doc: to the document that answers*",
        ]
    )
    assert_no_internals(result)


def test_a_needle_spaced_as_written_is_not_called_glued(glued_shop: Shop) -> None:
    glued_shop.ini("chunkrecall_loader = loaders:spaced\n")
    case = glued_shop.cases()["token-expiry"]
    assert (case["verdict"], case["glued"]) == ("hit", None)


def test_a_glued_needle_is_named_when_the_reranker_is_blamed(glued_shop: Shop) -> None:
    """With a reranker that keeps the first stage's order, the sessions page is a candidate
    that the top 1 leaves out: reranked_out, and the glued needle is named all the same."""
    glued_shop.write("keep.py", "def rerank(question, chunks, k):\n    return list(chunks)[:k]\n")
    glued_shop.ini(
        "chunkrecall_loader = loaders:glued\n"
        "chunkrecall_reranker = keep:rerank\n"
        "chunkrecall_candidates = 2\n"
        "chunkrecall_k = 1\n"
    )
    result, report = glued_shop.report()
    case = report["cases"][0]
    assert case["verdict"] == "reranked_out"
    assert case["glued"] == {"pattern": "90 days", "text": "token90days", "rank": 1}
    result.stdout.fnmatch_lines(["  a retrieved chunk (rank 1) holds '90 days' glued: *"])
