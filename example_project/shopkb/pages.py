"""Reading the help pages as the website publishes them: HTML, exported from the CMS.

The chatbot indexes the text BeautifulSoup finds in each page. ``get_text()``
joins the text of neighbouring elements as it finds it, with nothing between
them: a table row ``<td>Mattresses</td><td>$99 pickup fee</td>`` becomes
``Mattresses$99 pickup fee``. ``pytest pages`` shows what that costs.
"""

from __future__ import annotations

from pathlib import Path


def text(path: Path) -> str:
    """The page's text, as the chatbot's index reads it."""
    from bs4 import BeautifulSoup  # the optional 'pages' extra

    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").get_text()
