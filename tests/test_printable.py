"""Gold text shown in a terminal: control and bidirectional characters escaped, the rest as is."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.errors import printable

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def escaped_one_by_one(text: str) -> str:
    """The definition: each character of category Cc, or a bidirectional control, as repr writes it."""
    return "".join(
        repr(char)[1:-1] if unicodedata.category(char) == "Cc" or char in BIDI_CONTROLS else char
        for char in text
    )


def test_escape_sequences_carriage_returns_and_overrides_are_written_out() -> None:
    assert printable("a\x1b[2J\rOK\u202eb\x85 é\tz") == "a\\x1b[2J\\rOK\\u202eb\\x85 é\\tz"


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=("Cs",))))
def test_printable_escapes_exactly_what_the_definition_does(text: str) -> None:
    assert printable(text) == escaped_one_by_one(text)


@given(st.text(alphabet=st.sampled_from([*BIDI_CONTROLS, *map(chr, range(0xA0)), "é", "…"])))
def test_printable_agrees_on_text_dense_with_controls(text: str) -> None:
    assert printable(text) == escaped_one_by_one(text)
