"""The reports teams already read: pytest-html and pytest-json-report, when installed.

With pytest-html, its results table gains a verdict and a rank column, and each failing
gold case's extra section shows the failure's first line and the chunk that held the
answer (for ``split``, the chunks on both sides of the cut). With pytest-json-report,
each gold test's ``metadata`` carries the case's entry under ``chunkrecall``.

Every hook here is optional: without those plugins pytest never calls them.
"""

from __future__ import annotations

import html
import importlib
from collections.abc import Generator
from typing import Any

import pytest

from ..evaluation.results import CaseResult, ChunkView
from .items import CaseItem

ENTRY = pytest.StashKey[dict[str, Any]]()


@pytest.hookimpl(wrapper=True, trylast=True)  # innermost: the result is still on the item
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when != "call" or not isinstance(item, CaseItem) or item.result is None:
        return report
    result = item.result
    plugins = item.config.pluginmanager
    if report.failed and plugins.hasplugin("html"):
        extras = importlib.import_module("pytest_html.extras")  # untyped, and optional
        report.extras = [*getattr(report, "extras", []), extras.html(extra_section(result))]  # type: ignore[attr-defined]
    if item.config.getoption("json_report", None):
        # taken back by pytest_json_runtest_metadata in this same report's making
        item.stash[ENTRY] = {"nodeid": item.nodeid, **result.to_json()}
    return report


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo[None]) -> dict[str, Any]:
    entry = item.stash.get(ENTRY, None) if call.when == "call" else None
    if entry is None:
        return {}
    del item.stash[ENTRY]
    return {"chunkrecall": entry}


@pytest.hookimpl(optionalhook=True)
def pytest_html_results_table_header(cells: list[str]) -> None:
    cells.insert(2, '<th class="sortable" data-column-type="verdict">Verdict</th>')
    cells.insert(3, '<th class="sortable" data-column-type="rank">Rank</th>')


@pytest.hookimpl(optionalhook=True)
def pytest_html_results_table_row(report: pytest.TestReport, cells: list[str]) -> None:
    if not cells:
        return  # another plugin dropped the row
    properties = dict(report.user_properties)
    verdict, rank = properties.get("verdict", ""), properties.get("rank", "")
    cells.insert(2, f'<td class="col-verdict">{html.escape(str(verdict))}</td>')
    cells.insert(3, f'<td class="col-rank">{html.escape(str(rank))}</td>')


def extra_section(result: CaseResult) -> str:
    """The HTML of a failing case's extra section: what missed, and which chunk had it."""
    lines = [f"chunkrecall: {result.verdict}: {result.question}"]
    if result.held:
        held = result.held[0]
        where = f"rank {result.holding_rank}" if result.holding_rank else "outside the depth asked"
        lines.append(f"the chunk that holds {held.pattern!r} ({where}):")
        lines.append(_chunk(held.chunk))
    elif result.cut is not None:
        cut = result.cut
        lines.append(
            f"cut at {cut.doc}:{cut.offset}: …{cut.before}|{cut.after}…; no chunk holds it whole"
        )
        for side, view in (("before the cut", cut.left), ("after the cut", cut.right)):
            if view is not None:
                lines.append(f"{side}: {_chunk(view)}")
    elif result.closest is not None:
        closest = result.closest
        lines.append(f"not in the corpus; the closest text ({closest.score:.0f}): {closest.text!r}")
    body = html.escape("\n".join(lines))
    return f'<div class="chunkrecall"><pre>{body}</pre></div>'


def _chunk(view: ChunkView) -> str:
    span = f"[{view.start}:{view.end}]" if view.start is not None else ""
    return f"{view.doc}{span} chunk {view.index}: {view.preview}"
