"""--chunkrecall-html: the page is written by the process that gathers reports, the same under xdist."""

from __future__ import annotations

import json
import re

import pytest

from .conftest import STOREFRONT_CASES, Shop

GOLD = (
    "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\n" + STOREFRONT_CASES
)


def embedded(page: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="[^"]+">(.*?)</script>', page, re.S)
    assert found, page[:500]
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def test_the_page_is_written_and_named_in_the_summary(shop: Shop):
    shop.gold(GOLD)
    result = shop.run("--chunkrecall-html", "out/lab.html")
    result.stdout.fnmatch_lines(["chunkrecall: HTML page written to out/lab.html"])
    page = (shop.path / "out" / "lab.html").read_text(encoding="utf-8")
    model = embedded(page)
    cases = {c["nodeid"]: c for c in model["cases"]}  # type: ignore[union-attr]
    assert cases["gold/policies.yaml::refund-window"]["verdict"] == "split"
    (document,) = model["documents"]  # type: ignore[misc]
    assert document["id"] == "docs/policies.md"


def test_the_ini_option_names_the_page_relative_to_the_rootdir(shop: Shop):
    shop.gold(GOLD)
    shop.ini("chunkrecall_html = reports/lab.html\n")
    shop.run()
    assert (shop.path / "reports" / "lab.html").is_file()


@pytest.mark.slow
def test_xdist_writes_the_same_page(shop: Shop):
    pytest.importorskip("xdist")
    shop.gold(GOLD)
    shop.run("--chunkrecall-html", "serial.html")
    shop.run("--chunkrecall-html", "parallel.html", "-n", "2")
    serial = (shop.path / "serial.html").read_text(encoding="utf-8")
    parallel = (shop.path / "parallel.html").read_text(encoding="utf-8")
    assert embedded(parallel) == embedded(serial)


def test_a_folder_is_no_page(shop: Shop):
    shop.gold(GOLD)
    (shop.path / "lab").mkdir()
    result = shop.run("--chunkrecall-html", "lab")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--chunkrecall-html lab: it is a folder, not a regular file*"])
