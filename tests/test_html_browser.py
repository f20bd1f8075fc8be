"""The lab page in a real headless Chromium: its DOM after the scripts ran, its console, its pixels.

Needs Debian's ``chromium`` (``apt-get install -y chromium``) and the ``playwright``
Python package, which drives that browser (it downloads no browser of its own here).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import shutil
import struct
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from pytest_chunkrecall.baseline.decision import GateOutcome
from pytest_chunkrecall.evaluation.results import STAGE_VERDICTS, CaseResult
from pytest_chunkrecall.measures.statistics import PairedComparison
from pytest_chunkrecall.render.html import DocumentData, PageData, render_page
from pytest_chunkrecall.render.summary import SummaryContext, summarise
from pytest_chunkrecall.render.terminal import sweep_lines
from pytest_chunkrecall.run import entry
from pytest_chunkrecall.run.fold import RunFold

from .html_pages import SHARED_DATA, Run, example_page, page_of, pubmed_page

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no chromium on PATH: apt-get install -y chromium", allow_module_level=True)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: pip install playwright"
)

FLAGS = [
    "--no-sandbox",  # root in a container
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SPLIT_CASE = "gold/service.yaml::alaska-hawaii-surcharge"


class Tab:
    """A page opened from a file, with every console message, page error and request kept."""

    def __init__(self, page: Any, path: Path) -> None:
        self.page, self.path = page, path
        self.problems: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.problems.append(m.text))
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("request", lambda r: self.requests.append(r.url))

    def open(self, fragment: str = "") -> Any:
        self.page.goto(self.path.as_uri() + fragment)
        self.page.wait_for_selector("body[data-ready='1']", state="attached", timeout=30_000)
        return self.page


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh --user-data-dir
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=FLAGS, headless=True,
            viewport={"width": 1280, "height": 900},
        )  # fmt: skip
        yield context
        context.close()


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Run:
    # a grid, whose settings' labels are long: "size=240 overlap=32"
    return example_page(
        tmp_path_factory.mktemp("example"),
        "--chunkrecall-sweep",
        "size=240,320,400 overlap=0,32,64",
    )


def tab(browser: Any, data: PageData | Run, path: Path) -> Tab:
    page = data if "summary" in data else page_of(data)  # type: ignore[arg-type]
    path.write_text(render_page(page), encoding="utf-8")  # type: ignore[arg-type]
    return Tab(browser.new_page(), path)


def made_up(case: dict[str, Any], documents: list[DocumentData]) -> PageData:
    """The page of a run of one hit, ``case`` (its entry's fields), written by hand."""
    result = CaseResult(
        gold_file=case["gold_file"],
        id=case["id"],
        line=1,
        question=case["question"],
        needles=case["needles"],
        span=None,
        verdict="hit",
        rank=1,
        span_split=False,
        k=1,
        match="normalized",
        unit="chars",
        needle_lengths=[len(needle) for needle in case["needles"]],
        span_length=len(case["needles"][0]),
    )
    found = {**entry.evaluated(case["nodeid"], result, xfail=None, outcome="passed"), **case}
    fold = RunFold()
    fold.add(found)  # type: ignore[arg-type]
    summary = summarise(fold.finish(), GateOutcome(), SummaryContext())
    return {"summary": summary, "cases": [found], "documents": documents}


@pytest.fixture
def shop(browser: Any, example: PageData, tmp_path: Path) -> Iterator[Tab]:
    opened = tab(browser, example, tmp_path / "lab.html")
    yield opened
    opened.page.close()
    assert opened.problems == [], opened.problems
    assert all(url.startswith(("file:", "data:", "about:")) for url in opened.requests), (
        opened.requests
    )


def test_every_case_is_drawn_with_its_verdict(shop, example):
    page = shop.open()
    drawn = page.eval_on_selector_all(
        "[data-case]", "els => els.map(e => [e.dataset.case, e.dataset.verdict])"
    )
    assert sorted(map(tuple, drawn)) == sorted(
        (c["nodeid"], c["verdict"]) for c in example["report"]["cases"]
    )
    totals = example["report"]["totals"]["verdicts"]
    # a stage's verdict (a loader's, a reranker's) is drawn where the run counts it
    drawn_counts = {
        name: count for name, count in totals.items() if count or name not in STAGE_VERDICTS
    }
    names = page.eval_on_selector_all(
        "[data-verdict-count]", "els => els.map(e => e.dataset.verdictCount)"
    )
    assert names == list(drawn_counts)
    for verdict, count in drawn_counts.items():
        shown = page.text_content(f"[data-verdict-count='{verdict}']")
        assert shown.strip().endswith(str(count)), (verdict, shown)


def test_the_funnel_says_what_the_summary_says(shop, example):
    page = shop.open()
    funnel = example["report"]["totals"]["funnel"]
    steps = page.eval_on_selector_all(
        "[data-funnel]", "els => els.map(e => [e.dataset.funnel, e.textContent])"
    )
    # the example project has a reranker: every step but loaded (it has no loader)
    assert [name for name, _ in steps] == ["cases", "whole", "candidates", "top_k"]
    assert all(text.startswith(f"{funnel[name]} ") for name, text in steps)
    assert page.text_content("p.funnel") == (
        "64 cases → 63 kept whole by chunking → 62 in the candidates → 61 in the top 3 "
        "(lost: 1 split, 1 ranked_out, 1 reranked_out)"
    )


def test_every_chunk_window_is_drawn_once_its_document_is_open(shop, example):
    page = shop.open("#documents")
    page.eval_on_selector_all("details.doc", "els => els.forEach(e => { e.open = true; })")
    drawn = page.eval_on_selector_all("[data-chunk]", "els => els.map(e => e.dataset.chunk)")
    expected = [f"{d['id']}#{c['index']}" for d in example["documents"] for c in d["chunks"]]
    assert sorted(drawn) == sorted(expected)
    named = {f"{c['doc']}#{c['index']}" for case in example["report"]["cases"] for c in case["top"]}
    assert named <= set(drawn)


def test_a_case_leads_to_its_span_and_the_span_back_to_its_case(shop):
    page = shop.open(f"#case:{SPLIT_CASE}")
    assert shown_view(page) == "cases"
    article = page.locator(f"[data-case='{SPLIT_CASE}']")
    assert article.locator("details").get_attribute("open") is not None
    assert "|\u2702|" in article.locator("[data-cut]").text_content()
    article.locator("[data-goto-span]").click()
    label = page.locator(f"[data-span='{SPLIT_CASE}']")
    label.wait_for(state="visible")
    assert shown_view(page) == "documents"
    assert label.is_visible()
    assert label.get_attribute("data-split") == "true"
    assert "split" in label.text_content()  # not colour alone
    assert page.evaluate("document.activeElement.dataset.span") == SPLIT_CASE
    cut = page.locator(f"[data-cut-of='{SPLIT_CASE}']")
    assert cut.get_attribute("aria-label").startswith("cut")
    label.click()
    page.locator("#view-cases").wait_for(state="visible")
    assert shown_view(page) == "cases"
    assert page.evaluate("document.activeElement.closest('[data-case]').dataset.case") == SPLIT_CASE
    page = shop.open("#documents")
    assert shown_view(page) == "documents"
    text = page.locator(f"[data-in-span='{SPLIT_CASE}']").last  # the span's text, not its label
    assert text.is_visible()
    text.click()
    page.locator("#view-cases").wait_for(state="visible")
    assert shown_view(page) == "cases"
    assert page.evaluate("location.hash") == "#case:" + quote(SPLIT_CASE, safe="")
    assert page.locator(f"[data-case='{SPLIT_CASE}'] details").get_attribute("open") is not None


def test_the_lab_predicts_what_the_report_predicts_and_follows_its_sliders(shop, example):
    page = shop.open("#lab")
    for gold in example["report"]["gold_files"]:
        box = page.locator(f"[data-lab='{gold['path']}']")
        shown = float(box.locator("[data-readout='P']").get_attribute("data-value"))
        assert shown == pytest.approx(gold["spans"]["predicted_whole"], abs=5e-4)
        assert box.locator("[data-observed]").count() == 1
        spans = gold["spans"]  # what the terminal's "spans p50 …, p90 …" line says
        assert (
            f"{spans['spans']} span lengths, median {spans['length_p50']}, "
            f"p90 {spans['length_p90']}"
        ) in box.text_content()
    box = page.locator("[data-lab='gold/policies.yaml']")
    slider = box.locator("input[aria-label='overlap V']")
    before = int(box.locator("[data-readout='V']").text_content())
    slider.focus()
    page.keyboard.press("ArrowRight")
    assert int(box.locator("[data-readout='V']").text_content()) == before + 1
    slider.fill("0")
    assert int(box.locator("[data-readout='V']").text_content()) == 0
    size = example["report"]["gold_files"][0]["geometry"]["size_p50"]
    assert box.locator("[data-readout='cost']").text_content() == "1.00\u00d7"
    box.locator("input[aria-label='span length L']").fill(str(size + 1))  # longer than a chunk
    assert box.locator("[data-readout='PL']").text_content() == "0.0%"
    assert "0.0%" in box.locator("[data-readout='ideal-share']").text_content()


def test_the_sweep_is_tabled_and_charted(shop, example):
    page = shop.open("#sweep")
    rows = example["report"]["sweep"]["rows"]
    assert page.locator("#view-sweep tbody tr").count() == len(rows)
    assert page.locator("#view-sweep rect[data-row]").count() == len(rows)


def test_the_sweep_labels_each_setting_readably_and_in_full_on_hover(shop, example):
    page = shop.open("#sweep")
    rows = example["report"]["sweep"]["rows"]
    labels = page.locator("#view-sweep svg text[data-axis='x']")
    assert labels.count() == len(rows)
    assert labels.locator("title").all_text_contents() == [row["label"] for row in rows]
    boxes = labels.evaluate_all(f"els => els.map(e => {BOX})")
    title = page.locator("#view-sweep svg text[data-axis='xlabel']").evaluate(f"e => {BOX}")
    chart = page.locator("#view-sweep svg").evaluate(f"e => {BOX}")
    for one, other in itertools.combinations(boxes, 2):
        assert not overlap(one, other), (one, other)
    for one in boxes:
        assert not overlap(one, title), (one, title)
        assert inside(one, chart), (one, chart)


def test_the_right_axis_ticks_are_round_numbers(shop, example):
    page = shop.open("#sweep")
    ticks = page.locator("#view-sweep svg text[data-axis='y2']").all_text_contents()
    assert round_steps(ticks)[0] == 0
    assert round_steps(ticks)[-1] >= max(
        r["index_multiplier"] for r in example["report"]["sweep"]["rows"]
    )
    page = shop.open("#lab")
    for gold in example["report"]["gold_files"]:
        box = page.locator(f"[data-lab='{gold['path']}']")
        ticks = box.locator("svg text[data-axis='y2']").all_text_contents()
        assert round_steps(ticks)[0] <= 1, ticks  # the index never shrinks below its text


def test_the_sweep_table_has_the_terminals_holm_column(shop, example):
    page = shop.open("#sweep")
    rows = example["report"]["sweep"]["rows"]
    head = page.locator("#view-sweep thead th").all_text_contents()
    column, cost = head.index("p (Holm)"), head.index("to the answer")
    cells, costs = [], []
    for row in page.locator("#view-sweep tbody tr").all():
        cells.append(row.locator("td").nth(column).text_content())
        costs.append(row.locator("td").nth(cost).text_content())
    terminal = sweep_lines(example["report"]["sweep"]["spec"], rows)
    for row, cell, spent in zip(rows, cells, costs, strict=True):
        line = next(line for line in terminal if line.startswith(f"  {row['label']}  "))
        # the terminal's cells, not a second reckoning; the context to the answer comes last
        before, last = line.rsplit(None, 1)
        assert before.endswith(cell), (line, cell)
        assert last == spent.replace(",", "") or last.replace(",", "") == spent, (line, spent)
    assert cells[0] == "" and any(cell.endswith(" *") for cell in cells)
    assert any(cell and not cell.endswith("*") for cell in cells)
    assert "Holm-adjusted across 9 settings" in page.text_content("[data-footnote='holm']")


@pytest.mark.parametrize("width,height", [(1280, 900), (375, 700)])
def test_a_case_link_brings_the_case_to_just_below_the_navigation_bar(
    browser, example, tmp_path, width, height
):
    opened = tab(browser, example, tmp_path / "lab.html")
    page = opened.page
    page.set_viewport_size({"width": width, "height": height})
    cases = example["report"]["cases"]
    case = next(c for c in cases[len(cases) // 2 :] if c["verdict"] == "hit")["nodeid"]
    opened.open("#overview").evaluate(
        "h => { location.hash = h; }", "#case:" + quote(case, safe="")
    )
    page.locator("#view-cases").wait_for(state="visible")
    article = page.locator(f"[data-case='{case}']")
    bar = page.locator("header").evaluate(f"e => {BOX}")
    summary = article.locator("summary").evaluate(f"e => {BOX}")
    image = Pixels(page.screenshot())
    colour = page.evaluate(
        "c => getComputedStyle(c).borderLeftColor.match(/\\d+/g).map(Number)",
        article.element_handle(),
    )
    left = round(article.evaluate(f"e => {BOX}")[0]) + 2  # in the article's left border
    # nothing above the bar: its first rows are the bar's own dark colour
    assert all(image.ink(x, y) > 180 for y in (0, 1) for x in range(0, width, 5))
    # the case's border starts at the bar: no band of white, nor of the case before, between
    below = range(math.ceil(bar[3]) + 1, math.ceil(bar[3]) + 25)
    strayed = [y for y in below if distance(image.at(left, y), colour) > 60]
    assert not strayed, f"rows {strayed} under the bar are not the case's border {colour}"
    # and its summary line is not under the bar
    assert summary[1] >= bar[3] - 1, (summary, bar)
    x, y = summary[0] + 30, (summary[1] + summary[3]) / 2
    assert page.evaluate(
        "([x, y, s]) => s.contains(document.elementFromPoint(x, y))",
        [x, y, article.locator("summary").element_handle()],
    )
    page.close()
    assert opened.problems == []


def test_a_bidi_override_in_a_case_id_does_not_reverse_what_follows_it(browser, tmp_path):
    case = {
        "nodeid": "gold/x.yaml::rtl\u202eid", "gold_file": "gold/x.yaml", "id": "rtl\u202eid",
        "question": "Where?", "needles": ["30 days"],
    }  # fmt: skip
    opened = tab(browser, made_up(case, []), tmp_path / "rtl.html")
    page = opened.open("#cases")
    rank = page.locator("article.case summary .muted")
    assert rank.text_content() == " rank 1"
    # the same words, drawn where no override reaches them, in both orders
    page.evaluate(
        """() => ["ltr", "rtl"].forEach(order => {
            const p = document.createElement("p"), span = document.createElement("span");
            span.className = "muted"; span.dataset.order = order;
            span.textContent = order === "ltr" ? " rank 1" : " 1 knar";
            p.appendChild(span); document.querySelector("#view-cases").appendChild(p);
        })"""
    )
    drawn = ink_profile(rank.screenshot())
    forwards = ink_profile(page.locator("[data-order='ltr']").screenshot())
    backwards = ink_profile(page.locator("[data-order='rtl']").screenshot())
    assert profile_distance(drawn, forwards) < profile_distance(drawn, backwards) / 3, (
        "the text after the id is drawn reversed"
    )
    page.close()
    assert opened.problems == []


def test_no_bidi_control_in_user_text_reorders_the_pages_own_words(browser, example, tmp_path):
    rlo = "\u202e"
    text = json.dumps(example).replace("docs/", f"docs/{rlo}").replace("gold/", f"gold/{rlo}")
    data = json.loads(text)
    report = data["report"]
    for case in report["cases"]:
        case["id"] = case["id"][:3] + rlo + case["id"][3:]
        case["question"] = rlo + case["question"]
        case["needles"] = [rlo + needle for needle in case["needles"]]
        if case.get("span"):
            case["span"] = rlo + case["span"]
        if case.get("cut"):
            case["cut"].update(before=rlo + case["cut"]["before"], after=rlo + case["cut"]["after"])
        # a baseline's verdict is one of the verdicts (the reader refuses any other text)
        case["baseline"] = {"verdict": "hit", "rank": 1, "span_split": False}
    for gold in report["gold_files"]:
        gold["chunker"] = "shop" + rlo + ".ingest:chunk"
        gold["retriever"] = "shop" + rlo + ".search:bm25"
    # the sweep's labels come from its spec, which names settings and numbers only
    opened = tab(browser, data, tmp_path / "rlo.html")
    page = opened.open()
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # every view and case open
    page.emulate_media(media="print")
    reversed_words = page.evaluate(REVERSED_WORDS)
    assert reversed_words == [], reversed_words[:10]
    assert page.locator("bdi").count() > len(report["cases"])
    page.close()
    assert opened.problems == []


def test_the_keyboard_reaches_every_view(shop):
    page = shop.open()
    assert shown_view(page) == "overview"
    for name in ("cases", "documents", "lab", "sweep", "overview"):
        link = page.locator(f"nav a[data-view='{name}']")
        link.focus()
        assert page.evaluate("document.activeElement.dataset.view") == name
        page.keyboard.press("Enter")
        page.locator(f"#view-{name}").wait_for(state="visible")
        assert shown_view(page) == name  # and every other view hidden
        assert link.get_attribute("aria-current") == "page"
        assert page.locator("nav a[aria-current]").count() == 1
        assert page.evaluate("location.hash") == f"#{name}"


def test_printing_shows_every_view_and_opens_every_case(shop):
    page = shop.open()
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    hidden = page.eval_on_selector_all(
        "section.view", "els => els.filter(e => getComputedStyle(e).display === 'none').length"
    )
    assert hidden == 0
    assert page.locator("article.case details:not([open])").count() == 0
    assert len(page.pdf()) > 10_000


def test_a_screenshot_is_not_blank(shop):
    page = shop.open("#documents")
    colours = distinct_colours(page.screenshot(clip={"x": 0, "y": 0, "width": 800, "height": 600}))
    assert colours > 50, f"only {colours} colours on screen"


def test_hostile_text_renders_as_text_and_runs_no_script(browser, tmp_path):
    evil = (
        'Intro </script><script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned=2">'
        " then \U0001d518\U0001d52b\U0001d526 \U0001f600 line\u2028sep & <b>bold</b> 30 days end."
    )
    needle = "30 days"
    start = evil.index(needle)
    case = {
        "nodeid": "gold/<x>.yaml::<script>", "gold_file": "gold/<x>.yaml", "id": "<script>",
        "question": "<img src=y onerror=\"window.__pwned=3\">?", "needles": [needle],
        "top": [{"doc": "docs/</script>.md", "index": 1, "start": 40, "end": len(evil), "preview": "<b>x</b>", "rank": 1}],
        "span_at": {"doc": "docs/</script>.md", "start": start, "end": start + len(needle)},
    }  # fmt: skip
    chunks: list[Any] = [
        {"index": 0, "start": 0, "end": 60},
        {"index": 1, "start": 40, "end": len(evil)},
    ]
    data = made_up(case, [{"id": "docs/</script>.md", "text": evil, "chunks": chunks}])
    opened = tab(browser, data, tmp_path / "evil.html")
    page = opened.open("#documents")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img, [onerror]").count() == 0
    text = page.text_content("[data-doc='docs/</script>.md'] .text")
    assert "</script><script>window.__pwned = 1</script>" in text and "\U0001f600" in text
    assert "<b>bold</b>" in text
    # offsets past characters outside the BMP still land on the span
    label = page.locator("[data-span='gold/<x>.yaml::<script>']")
    assert label.evaluate("e => e.nextSibling.textContent") == needle
    assert page.locator("[data-reason='offsets']").count() == 1  # the lab says, not draws
    page.close()
    assert opened.problems == []


def test_a_comparison_with_the_baseline_is_shown(browser, example, tmp_path):
    data = copy.deepcopy(example)
    case = next(c for c in data["report"]["cases"] if c["nodeid"] == SPLIT_CASE)
    case["baseline"] = {"verdict": "hit", "rank": 2, "span_split": False, "change": "regression"}
    paired = PairedComparison(64, 1, 0, 0.969, 0.953, -1.6, (-4.6, 1.5), 0.5, "not_enough_evidence")
    opened = tab(browser, page_of(data, GateOutcome(paired=paired)), tmp_path / "full.html")
    page = opened.open()
    totals = example["report"]["totals"]
    assert page.locator("[data-total='mrr']").text_content() == f"MRR{totals['mrr']:.3f}mean 1/rank"
    assert page.locator("circle[data-r]").count() == len(totals["hit_rate_at"])
    assert "not_enough_evidence" in page.text_content("#view-overview")
    page = opened.open(f"#case:{SPLIT_CASE}")
    assert "baseline" in page.locator(f"[data-case='{SPLIT_CASE}']").text_content()
    page.close()
    assert opened.problems == []


def test_an_unstable_case_is_named_in_the_overview_and_shows_its_ranks_seen(
    browser, example, tmp_path
):
    data = copy.deepcopy(example)
    report: dict[str, Any] = data["report"]  # type: ignore[assignment]
    for case in report["cases"]:
        if case.get("verdict") is not None:
            case.update(unstable=case["nodeid"] == SPLIT_CASE, ranks_seen=[1, None, 2])
    opened = tab(browser, data, tmp_path / "repeats.html")
    page = opened.open()
    named = page.locator("[data-unstable]")
    assert named.get_attribute("data-unstable") == "1"
    assert SPLIT_CASE in named.text_content()
    page = opened.open(f"#case:{SPLIT_CASE}")
    article = page.locator(f"[data-case='{SPLIT_CASE}']").text_content()
    assert "unstable, counted at its worst: ranks seen 1, missed, 2" in article
    page.close()
    assert opened.problems == []


def test_a_bare_report_makes_a_page_without_errors(browser, tmp_path):
    bare: Run = {"report": {"chunkrecall_report": 1, "cases": []}, "documents": []}
    opened = tab(browser, bare, tmp_path / "bare.html")
    for view in ("overview", "cases", "documents", "lab"):
        page = opened.open(f"#{view}")
        assert page.locator(f"#view-{view}").is_visible()
    assert "No case was evaluated" in page.text_content("#view-cases")
    assert page.locator("#view-sweep").count() == 0
    page.close()
    assert opened.problems == []


def test_pubmed_page_is_small_and_quick(browser, tmp_path):
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    data = pubmed_page(tmp_path)
    path = tmp_path / "pubmed.html"
    started = time.perf_counter()
    opened = tab(browser, data, path)
    page = opened.open("#documents")
    took = time.perf_counter() - started
    assert path.stat().st_size < 6_000_000
    assert took < 10, f"render and first paint took {took:.1f} s"
    assert page.locator("[data-case]").count() == len(data["report"]["cases"])
    assert page.locator("[data-chunk]").count() == len(data["documents"][0]["chunks"])
    page.close()
    assert opened.problems == []


# an element's box in the viewport, [left, top, right, bottom], as a JavaScript expression of e
BOX = "(r => [r.left, r.top, r.right, r.bottom])(e.getBoundingClientRect())"

# Our words drawn out of order: each text node holding no bidirectional control and no
# right-to-left letter, whose letters or digits next to each other on one line are drawn
# right to left.
REVERSED_WORDS = """() => {
    const control = /[\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]/;
    const rtl = /[\\u0590-\\u08ff\\ufb1d-\\ufdff\\ufe70-\\ufefc]/, word = /[A-Za-z0-9]/;
    const found = [], range = document.createRange();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const box = (n, i) => { range.setStart(n, i); range.setEnd(n, i + 1); return range.getBoundingClientRect(); };
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const t = n.textContent;
        if (control.test(t) || rtl.test(t) || n.parentElement.closest("script, style, title")) continue;
        for (let i = 0; i + 1 < t.length; i++) {
            if (!word.test(t[i]) || !word.test(t[i + 1])) continue;
            const a = box(n, i), b = box(n, i + 1);
            if (!a.width || !b.width || Math.abs(a.top - b.top) > 2) continue;
            if (b.left < a.left - 0.5) { found.push(t.trim().slice(0, 60)); break; }
        }
    }
    return found;
}"""


def overlap(one: list[float], other: list[float]) -> bool:
    """Whether two boxes ``[left, top, right, bottom]`` share more than a hair's width."""
    return min(one[2], other[2]) - max(one[0], other[0]) > 0.5 and (
        min(one[3], other[3]) - max(one[1], other[1]) > 0.5
    )


def inside(one: list[float], outer: list[float]) -> bool:
    return (
        one[0] >= outer[0] - 0.5
        and one[1] >= outer[1] - 0.5
        and one[2] <= outer[2] + 0.5
        and one[3] <= outer[3] + 0.5
    )


def round_steps(ticks: list[str]) -> list[float]:
    """The values of an axis' tick labels (``1.5\u00d7``), checked to go up in one round step:
    1, 2, 2.5 or 5 times a power of ten, each a whole number of steps."""
    assert len(ticks) >= 3, ticks
    values = [float(tick.rstrip("\u00d7")) for tick in ticks]
    steps = {round(b - a, 9) for a, b in itertools.pairwise(values)}
    assert len(steps) == 1, ticks
    step = steps.pop()
    assert round(step / 10 ** math.floor(math.log10(step)), 6) in (1, 2, 2.5, 5), ticks
    assert all(abs(v / step - round(v / step)) < 1e-6 for v in values), ticks
    return values


def distance(one: tuple[int, ...], other: list[int]) -> int:
    return max(abs(a - b) for a, b in zip(one, other, strict=False))


def ink_profile(png: bytes) -> list[int]:
    """How much ink each column of a screenshot holds, from its first inked column on."""
    image = Pixels(png)
    columns = [sum(image.ink(x, y) for y in range(image.height)) for x in range(image.width)]
    first = next(x for x, ink in enumerate(columns) if ink > 60)
    last = max(x for x, ink in enumerate(columns) if ink > 60)
    return columns[first : last + 1]


def profile_distance(one: list[int], other: list[int]) -> float:
    """How unlike two ink profiles are: the mean difference per column, past the shorter's end too."""
    size = max(len(one), len(other))
    one, other = one + [0] * (size - len(one)), other + [0] * (size - len(other))
    return sum(abs(a - b) for a, b in zip(one, other, strict=True)) / size


def shown_view(page: Any) -> str:
    """The one view on show (the name of the only visible ``section.view``), or a list of them."""
    visible = page.eval_on_selector_all(
        "section.view", "els => els.filter(e => !e.hidden).map(e => e.dataset.view)"
    )
    return visible[0] if len(visible) == 1 else visible


def distinct_colours(png: bytes) -> int:
    """How many colours a PNG screenshot has (sampling every seventh pixel of each row)."""
    image = Pixels(png)
    return len({image.at(x, y) for y in range(image.height) for x in range(0, image.width, 7)})


class Pixels:
    """A PNG screenshot's pixels (8-bit RGB/RGBA, as Chromium writes them), ``at(x, y)`` as RGB."""

    def __init__(self, png: bytes) -> None:
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        at, chunks = 8, {}
        idat = b""
        while at < len(png):
            (length,) = struct.unpack(">I", png[at : at + 4])
            kind = png[at + 4 : at + 8]
            body = png[at + 8 : at + 8 + length]
            if kind == b"IDAT":
                idat += body
            else:
                chunks[kind] = body
            at += 12 + length
        width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
        assert depth == 8 and colour in (2, 6)
        step = 3 if colour == 2 else 4
        raw, stride = zlib.decompress(idat), width * step
        previous, self.rows = bytearray(stride), []
        for y in range(height):
            kind, row = (
                raw[y * (stride + 1)],
                bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
            )
            for x in range(stride):
                a = row[x - step] if x >= step else 0
                b, c = previous[x], previous[x - step] if x >= step else 0
                row[x] = (row[x] + (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]) & 255
            self.rows.append(row)
            previous = row
        self.width, self.height, self._step = width, height, step

    def at(self, x: int, y: int) -> tuple[int, int, int]:
        row, i = self.rows[y], x * self._step
        return row[i], row[i + 1], row[i + 2]

    def ink(self, x: int, y: int) -> int:
        """How dark the pixel is: 0 for white, 255 for black."""
        return 255 - sum(self.at(x, y)) // 3


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def test_the_gold_files_table_has_the_reranker_and_its_candidates(shop, example):
    """The example project reranks 10 candidates: the table says so, as the summary does."""
    page = shop.open()
    table = page.locator("table", has=page.locator("th", has_text="gold file")).first
    headers = table.locator("th").all_text_contents()
    assert headers[-3:] == ["candidates", "reranker", "k"]
    row = table.locator("tbody tr").first.locator("td").all_text_contents()
    gold = example["report"]["gold_files"][0]
    assert row[-3:] == [str(gold["candidates"]), gold["reranker"], str(gold["k"])]


def test_ranked_out_and_reranked_out_have_colours_of_their_own(shop):
    page = shop.open()
    colours = page.evaluate(
        """() => Object.fromEntries(["ranked_out", "reranked_out", "split", "absent",
            "unparsed", "hit"].map(name => {
          const badge = document.createElement("span");
          badge.className = "verdict " + name;
          document.body.appendChild(badge);
          const colour = getComputedStyle(badge).backgroundColor;
          badge.remove();
          return [name, colour];
        }))"""
    )
    assert len(set(colours.values())) == len(colours), colours
