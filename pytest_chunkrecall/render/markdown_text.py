"""User text made safe to place in GitHub-flavoured Markdown: the one place that escapes it.

Gold questions, case ids, file names and corpus text end up in a pull request's step
summary. Written raw, a question holding ``![x](https://evil.example/p.png)``
shows a stranger's image, ``[link](javascript:…)`` a link, and ``<details open>`` or
``<script>`` is markup; a backtick in an id ends its code span early. Every piece of
user text the Markdown shows goes through :func:`markdown_text`.
"""

from __future__ import annotations

import re

# Markdown's inline punctuation: emphasis, code, links and images, tables, strikethrough.
_PUNCTUATION = re.compile(r"([\\`*_\[\]()!#|~{}])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")


def markdown_text(text: str, *, code: bool = False, in_table: bool = False) -> str:
    """``text`` as Markdown that shows it literally, on one line.

    As prose (the default): HTML-escaped, and every character that could open
    emphasis, code, a link or an image escaped with a backslash. As ``code``: a
    code span whose backtick fence is longer than any run of backticks inside,
    so none ends it early. ``in_table``: ``|`` is escaped so that it does not end a
    table cell (GitHub reads ``\\|`` inside a code span of a cell as ``|``).
    """
    flat = _BREAKS.sub(" ", text)
    if code:
        return _code_span(flat, in_table=in_table)
    escaped = _PUNCTUATION.sub(r"\\\1", flat)
    return "".join(_HTML.get(character, character) for character in escaped)


def _code_span(text: str, *, in_table: bool) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    # a space each side keeps a backtick at either end from joining the fence
    padded = f" {text} " if text.startswith("`") or text.endswith("`") or not text.strip() else text
    if in_table:
        padded = padded.replace("|", "\\|")
    return f"{fence}{padded}{fence}"
