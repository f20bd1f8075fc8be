"""What a compare run says changed in a gold file's setup: a loader change is named as one."""

from __future__ import annotations

import json

import pytest

from .conftest import Shop

pytest.importorskip("bs4")

PAGE = """\
<html><body>
<h1>{title}</h1>
<p>The {title} window is <b>30 days</b>.</p><p>Ask the desk.</p>
</body></html>
"""

LOADERS = """
from pathlib import Path

from bs4 import BeautifulSoup


def soup(path):
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser").get_text()


def spaced(path):
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser").get_text(" ")
"""

GOLD = """
    corpus: ../docs/*.html
    cases:
      - id: refund
        question: What is the refund window?
        needle: 30 days
"""


def test_another_loader_is_named_as_a_loader_change_not_as_changed_documents(shop: Shop):
    shop.write("docs/refund.html", PAGE.format(title="refund"))
    shop.write("docs/return.html", PAGE.format(title="return"))
    shop.write("loaders.py", LOADERS)
    shop.gold(GOLD)
    shop.ini("chunkrecall_loader = loaders:soup")
    saved = shop.run("--chunkrecall-update-baseline", "--chunkrecall-baseline", "base.json")
    assert saved.ret == 0, saved.stdout.str()
    setup = json.loads((shop.path / "base.json").read_text(encoding="utf-8"))
    assert "loaders:soup" in json.dumps(setup)

    shop.ini("chunkrecall_loader = loaders:spaced")
    result = shop.run("--chunkrecall-baseline", "base.json", "--chunkrecall-report", "r.json")
    result.stdout.fnmatch_lines(
        [
            "*gold/policies.yaml: loader changed: loaders:soup → loaders:spaced; "
            "2 documents read differently*"
        ]
    )
    assert "documents changed" not in result.stdout.str()
    drift = json.loads((shop.path / "r.json").read_text(encoding="utf-8"))["baseline"]["drift"]
    assert drift["documents_changed"] == []
    assert drift["documents_read_differently"] == ["docs/refund.html", "docs/return.html"]


def test_the_same_loader_over_an_edited_document_is_still_a_changed_document(shop: Shop):
    shop.write("docs/refund.html", PAGE.format(title="refund"))
    shop.write("loaders.py", LOADERS)
    shop.gold(GOLD)
    shop.ini("chunkrecall_loader = loaders:soup")
    shop.run("--chunkrecall-update-baseline", "--chunkrecall-baseline", "base.json")
    shop.write("docs/refund.html", PAGE.format(title="refund") + "<p>New.</p>")
    result = shop.run("--chunkrecall-baseline", "base.json")
    result.stdout.fnmatch_lines(["*documents changed: docs/refund.html*"])
    assert "loader changed" not in result.stdout.str()
