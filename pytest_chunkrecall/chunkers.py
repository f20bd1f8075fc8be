"""Built-in chunkers."""

from __future__ import annotations


def fixed_size(text: str, size: int = 800, overlap: int = 200) -> list[str]:
    """Character windows of ``size``, each starting ``size - overlap`` after the last.

    Windows start at 0 and continue until one reaches the end of the text; the
    last window may be short. A window wholly inside the one before it (800
    characters at 800/200 would otherwise end with ``[600:800]``) is not emitted:
    it holds nothing new and would only be a duplicate to retrieve.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be a positive whole number of characters, not {size!r}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 0 <= overlap < size:
        raise ValueError(
            f"overlap must be a whole number from 0 to size - 1 ({size - 1}), not {overlap!r}"
        )
    stride = size - overlap
    found = []
    for start in range(0, len(text), stride):
        found.append(text[start : start + size])
        if start + size >= len(text):
            break
    return found
