"""A project whose corpus is HTML, read by a BeautifulSoup loader set in its ini file."""

from __future__ import annotations

import pytest

from .conftest import Shop

RETURNS_HTML = """\
<!doctype html>
<html><head><title>Returns</title><style>p { margin: 0 }</style></head>
<body>
<h1>Returns</h1>
<p>The refund <b>window</b> is 30 days from delivery.</p>
<p>Opened items carry a <em>restocking fee</em> of 15 percent.</p>
<p>Refunds go back to the original payment method within 5 business days.</p>
</body></html>
"""
SHIPPING_HTML = """\
<!doctype html>
<html><head><title>Shipping</title><script>var tracking = "30 days";</script></head>
<body>
<h1>Shipping</h1>
<ul>
  <li>Express shipping takes <strong>2 business days</strong>.</li>
  <li>Orders over 50 dollars ship free.</li>
</ul>
</body></html>
"""
LOADER = """\
from bs4 import BeautifulSoup


def load(path):
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    for hidden in soup(["script", "style", "title"]):
        hidden.decompose()
    return soup.get_text(" ", strip=True)
"""


def html_site(shop: Shop, extra_ini: str = "") -> Shop:
    """``shop`` with site/*.html as its corpus and site_loader:load as its loader; the test
    skips where BeautifulSoup (the integration extra) is not installed."""
    pytest.importorskip(
        "bs4", reason="the loader is BeautifulSoup's: pip install -e '.[integration]'"
    )
    shop.write("site/returns.html", RETURNS_HTML)
    shop.write("site/shipping.html", SHIPPING_HTML)
    shop.write("site_loader.py", LOADER)
    shop.ini(
        "chunkrecall_loader = site_loader:load\n"
        "chunkrecall_chunker_args = {size: 60, overlap: 0}\n" + extra_ini
    )
    return shop


def loaded(shop: Shop, name: str) -> str:
    """The text the project's loader makes of ``name``, as the tests read it."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((shop.path / name).read_text(encoding="utf-8"), "html.parser")
    for hidden in soup(["script", "style", "title"]):
        hidden.decompose()
    return soup.get_text(" ", strip=True)
