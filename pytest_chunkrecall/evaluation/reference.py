"""The reference text of a corpus's source files: what a loader should have read from them.

With a loader configured, a needle missing from the loaded corpus is either a fact
the corpus never had (``absent``, a gold-data error) or one the loader lost
(``unparsed``). The reference text tells them apart: text-like files read as
UTF-8, HTML and XML with their markup removed by the standard library's parser
and laid out as a browser lays them out (a space where a block or a line break
starts or ends, nothing at an inline element), and other formats (PDF, DOCX) through a second, independent extractor the user
names, ``chunkrecall_reference_loader``. It is read only to explain a miss.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from ..corpus import Document
from ..errors import USER_FAULTS, raised
from ..text.matcher import Matcher
from .chunk_map import ChunkMap
from .finder import Finder

ReferenceLoader = Callable[[Path], object]

# Read as they are, decoded as UTF-8.
TEXT_SUFFIXES = frozenset(
    (
        ".md",
        ".markdown",
        ".txt",
        ".text",
        ".rst",
        ".csv",
        ".tsv",
        ".json",
        ".jsonl",
        ".ndjson",
        ".yaml",
        ".yml",
        ".tex",
        ".adoc",
        ".org",
    )
)
# Read as UTF-8, then with the markup removed.
MARKUP_SUFFIXES = frozenset((".html", ".htm", ".xhtml", ".xml"))
# Elements whose content is code, never text a reader sees.
_HIDDEN_ELEMENTS = frozenset(("script", "style"))
# Elements a browser lays out inside a line of text: they separate nothing, so
# ``Pitts<wbr>burgh`` reads ``Pittsburgh`` and ``<code>a.toml</code>.`` reads
# ``a.toml.``. Every other element (p, div, li, td, th, tr, br, headings, and the
# elements of an XML vocabulary) starts and ends a block: a space.
INLINE_ELEMENTS = frozenset(
    (
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "code",
        "data",
        "del",
        "dfn",
        "em",
        "font",
        "i",
        "ins",
        "kbd",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "wbr",
    )
)


@dataclass(frozen=True)
class ReferenceNote:
    """Why a source file has no reference text: ``failed`` when the reference loader
    raised or returned no text (the file's cases fail with it), else a file the
    check could not read (undecodable, or a format without an extractor)."""

    doc: str
    text: str
    failed: bool


def markup_text(markup: str) -> str:
    """The text of an HTML or XML document as a browser lays it out: a space at each tag
    of a block element or line break, nothing at an inline element (:data:`INLINE_ELEMENTS`),
    entities unescaped, comments and the content of ``script`` and ``style`` left out."""
    parser = _TextOfMarkup()
    parser.feed(markup)
    parser.close()
    return "".join(parser.parts)


class _TextOfMarkup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._separate(tag)
        if tag in _HIDDEN_ELEMENTS:
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        self._separate(tag)
        if tag in _HIDDEN_ELEMENTS and self._hidden:
            self._hidden -= 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._separate(tag)

    def _separate(self, tag: str) -> None:
        if tag not in INLINE_ELEMENTS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)

    def unknown_decl(self, data: str) -> None:
        # XML's <![CDATA[...]]> is text, written without escapes
        if data.startswith("CDATA["):
            self.parts.append(data.removeprefix("CDATA["))


class Reference:
    """The reference text of the source files ``sources`` (document id, path), read when
    first asked for and then kept; ``loader`` (named ``loader_name``) reads the files that
    are not text-like."""

    def __init__(
        self,
        sources: Sequence[tuple[str, Path]],
        loader: ReferenceLoader | None = None,
        loader_name: str = "",
        *,
        rootdir: Path | None = None,
    ) -> None:
        self.sources = tuple(sources)
        self.loader = loader
        self.loader_name = loader_name
        self.rootdir = rootdir
        self._read: tuple[tuple[Document, ...], tuple[ReferenceNote, ...]] | None = None
        self._finders: dict[Matcher, Finder] = {}

    @property
    def documents(self) -> tuple[Document, ...]:
        """The source files that have reference text, as documents with the corpus's ids."""
        return self._texts()[0]

    @property
    def notes(self) -> tuple[ReferenceNote, ...]:
        """The source files that have none, and why."""
        return self._texts()[1]

    def finder(self, matcher: Matcher) -> Finder:
        """The reference text seen through ``matcher``: the finder of a corpus with no chunks."""
        found = self._finders.get(matcher)
        if found is None:
            found = self._finders[matcher] = Finder(self.documents, ChunkMap(()), (), matcher)
        return found

    def _texts(self) -> tuple[tuple[Document, ...], tuple[ReferenceNote, ...]]:
        if self._read is None:
            documents: list[Document] = []
            notes: list[ReferenceNote] = []
            for doc_id, path in self.sources:
                text = reference_text(
                    path, doc_id, self.loader, self.loader_name, rootdir=self.rootdir
                )
                if isinstance(text, ReferenceNote):
                    notes.append(text)
                else:
                    documents.append(Document(doc_id, text))
            self._read = tuple(documents), tuple(notes)
        return self._read


def reference_text(
    path: Path,
    doc_id: str,
    loader: ReferenceLoader | None,
    loader_name: str = "",
    *,
    rootdir: Path | None = None,
) -> str | ReferenceNote:
    """The reference text of one source file, or the :class:`ReferenceNote` that says why it
    has none (a loader's traceback names the files inside ``rootdir`` relative to it)."""
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES or suffix in MARKUP_SUFFIXES:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            return ReferenceNote(
                doc_id,
                f"{doc_id} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                f"{exc.start}), so it has no reference text to check",
                failed=False,
            )
        except OSError as exc:
            return ReferenceNote(
                doc_id, f"cannot read {doc_id}: {exc.strerror or exc}", failed=False
            )
        return markup_text(text) if suffix in MARKUP_SUFFIXES else text
    if loader is None:
        return ReferenceNote(
            doc_id,
            f"{doc_id} has no reference text: {suffix or 'a file without a suffix'} is no text "
            "format; set chunkrecall_reference_loader to a second extractor for such files",
            failed=False,
        )
    try:
        extracted = loader(path)
    except USER_FAULTS as exc:
        return ReferenceNote(
            doc_id,
            f"reference loader {loader_name} failed on {doc_id}: {raised(exc, root=rootdir)}",
            failed=True,
        )
    if not isinstance(extracted, str):
        return ReferenceNote(
            doc_id,
            f"reference loader {loader_name} returned {type(extracted).__name__} for {doc_id}; "
            "it must return str",
            failed=True,
        )
    return extracted
