"""Four short passages that share few words with the questions asked of them: rankings by meaning."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    """A passage as shopkb's indexes take one: anything with a ``text``."""

    text: str


NOTES = [
    Note("Shipping is free over $75."),
    Note("Gift cards never expire."),
    Note("Wash linen sheets in cold water and dry them on low heat."),
    Note("Our showroom in Portland opens at ten."),
]
