"""The corpus seen through one match mode: where a needle or span occurs, and which chunk holds it."""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from ..chunking.chunk import Chunk
from ..corpus import Document
from ..text import edges
from ..text.folding import Folded, FoldedPassage, fold_passage, widened
from ..text.index import WordIndex
from ..text.matcher import Matcher
from ..text.space import MatchSpace
from .chunk_map import ChunkMap
from .views import ChunkViews

# How many chunk texts each match space keeps prepared (folded) at a time.
_PREPARED_CHUNKS = 4096
# How many chunks' passages of their documents are kept folded: a case's top k,
# vouched for and then placed.
_FOLDED_PASSAGES = 64
# How many patterns' occurrences and holders are kept found: a case's span or
# needles, which explaining its miss locates, then lists every holder of, and
# which its deeper retrieval is read against.
_FOUND_PATTERNS = 8
# How much longer than its chunk a passage may be once widened to whitespace
# before the whole document is folded instead (text with no whitespace nearby).
_WIDENING = 256
# What is known of a chunk being verbatim: not yet asked, yes, no.
_UNKNOWN, _YES, _NO = 0, 1, 2
# rapidfuzz is imported where fuzzy scoring is done: a run that needs none never loads it


@dataclass(frozen=True)
class Occurrence:
    """Where a pattern occurs in a document, in the document's own offsets."""

    doc: str
    start: int
    end: int


@dataclass(frozen=True)
class Location:
    """A pattern's place: the chunk holding it whole, else an occurrence no chunk holds."""

    holder: Chunk | None
    occurrence: Occurrence | None

    @property
    def whole(self) -> bool:
        return self.holder is not None

    @property
    def present(self) -> bool:
        return self.holder is not None or self.occurrence is not None


class Finder:
    """Documents and chunks prepared for one :class:`Matcher`, located against lazily."""

    def __init__(
        self,
        documents: Sequence[Document],
        chunk_map: ChunkMap,
        chunks: Sequence[Chunk],
        matcher: Matcher,
        *,
        space: MatchSpace | None = None,
    ) -> None:
        self.documents = documents
        self.chunk_map = chunk_map
        self.chunks = chunks
        self.matcher = matcher
        # Each document in match space, made when first needed: explaining a miss,
        # or listing every holder of a span (:meth:`holders`), reads the whole
        # corpus; deciding a hit only the passages of its holding chunks. The
        # space may be shared with the finders of the other modes that compare
        # text the same way (see :mod:`..text.space`).
        if space is None:
            texts = [doc.text for doc in documents]
            space = MatchSpace(texts, folded=MatchSpace.folds(matcher.mode))
        self.space = space
        self._passages = functools.lru_cache(maxsize=_FOLDED_PASSAGES)(self._fold_passage)
        self._found = functools.lru_cache(maxsize=_FOUND_PATTERNS)(self._find)
        self._held = functools.lru_cache(maxsize=_FOUND_PATTERNS)(self._holders)
        # The chunks of recent results in match space: enough for the top k of
        # the questions that retrieve the same chunks, without keeping a folded
        # copy of every chunk ever retrieved (a second corpus, in a large suite).
        self._prepare = functools.lru_cache(maxsize=_PREPARED_CHUNKS)(matcher.prepare)
        self._all_prepared: list[str] | None = None
        # Whether each chunk is :meth:`verbatim`, found when first asked: a byte a chunk.
        self._verbatim = bytearray(len(chunks))
        self.views = ChunkViews(chunks)
        self._by_id: dict[str, Document] | None = None
        self._numbers: dict[str, int] | None = None

    def expect_searches(self, count: int) -> None:
        """Know that ``count`` searches of the corpus will come (a case that lists every
        holder of its span searches it once): the index, when first needed, is then
        built at once if they are many (see :mod:`..text.index`)."""
        self.space.expect_searches(count)

    def document(self, doc_id: str) -> Document:
        """The document with id ``doc_id``."""
        if self._by_id is None:
            self._by_id = {doc.id: doc for doc in self.documents}
        return self._by_id[doc_id]

    def prepared(self, chunk: Chunk) -> str:
        """The chunk's text in match space."""
        return self._prepare(chunk.text)

    def owns(self, chunk: Chunk) -> bool:
        """Whether ``chunk`` is one of this corpus's chunks (not one of another chunking's)."""
        return 0 <= chunk.index < len(self.chunks) and self.chunks[chunk.index] is chunk

    def vouches(self, chunk: Chunk, pattern: str) -> bool:
        """Whether ``chunk``, which holds the prepared ``pattern``, shows that the corpus has it.

        It does when its document has the pattern where the chunk sits; a chunk
        without offsets (the chunker rewrote its text) and a fuzzy match count
        as the corpus's own: :meth:`locate` looks for the pattern in such chunks too.
        """
        if not self.owns(chunk):
            return False
        if self.matcher.mode == "fuzzy" or not chunk.placed:
            return True
        return self.held_at(chunk, pattern) is not None

    def held_at(self, chunk: Chunk, pattern: str) -> Occurrence | None:
        """Where ``chunk``'s document has the prepared ``pattern`` within the chunk's offsets.

        For a chunk without offsets, the first place in its document. ``None``
        where the document does not have it there, and in fuzzy mode, where a
        match has no exact place.
        """
        doc_no = self._doc_no(chunk.doc)
        if self.matcher.mode == "fuzzy" or doc_no < 0:
            return None
        if chunk.start is None or chunk.end is None:
            text = self._match_text(doc_no)
            at = edges.find(text, pattern)
            if at < 0:
                return None
            return Occurrence(chunk.doc, *self._original(doc_no, at, at + len(pattern)))
        if self.matcher.mode == "exact":  # match space is the text itself
            at = edges.find(self.documents[doc_no].text, pattern, chunk.start, chunk.end)
            return Occurrence(chunk.doc, at, at + len(pattern)) if at >= 0 else None
        passage = self._passages(doc_no, chunk.start, chunk.end)
        low, high = passage.folded_start(chunk.start), passage.folded_start(chunk.end)
        first: Occurrence | None = None
        at = edges.find(passage.text, pattern, low, high)
        while at >= 0:
            start, end = passage.original_start(at), passage.original_end(at + len(pattern))
            if chunk.start <= start and end <= chunk.end:
                return Occurrence(chunk.doc, start, end)
            # A chunk that starts or ends inside what folding joins (an accent cut from
            # its letter) shares that folded character with its neighbour: a match there
            # begins outside the chunk, so look on for one inside it.
            first = first or Occurrence(chunk.doc, start, end)
            at = edges.find(passage.text, pattern, at + 1, high)
        return first

    def locate(self, pattern: str, docs: Collection[str] | None = None) -> Location:
        """Where the prepared ``pattern`` is: whole in a chunk, cut by a boundary, or absent.

        Only the documents ``docs`` count, when given. The occurrences are mapped to
        chunks up to the first that a chunk holds whole, however often the pattern occurs.
        """
        if self.matcher.mode == "fuzzy":
            return self._locate_fuzzy(pattern, docs)
        first: Occurrence | None = None
        for occurrence in self.occurrences(pattern, docs):
            holder = self.holder(occurrence, pattern)
            if holder is not None:
                return Location(holder, occurrence)
            first = first or occurrence
        if first is None:  # a chunker that rewrites text may still hold it
            for doc in self.chunk_map.unplaced:
                if docs is not None and doc not in docs:
                    continue
                holder = self._unplaced_holder(pattern, doc)
                if holder is not None:
                    return Location(holder, None)
        elif self.matcher.mode == "exact":
            # Placed up to normalization (e + U+0301 where the chunk says é), a chunk can
            # sit beside the occurrence it holds verbatim: its own text has the last word.
            for index, text in enumerate(self.every_prepared()):
                chunk = self.chunks[index]
                if (docs is None or chunk.doc in docs) and edges.holds(text, pattern):
                    return Location(chunk, first)
        return Location(None, first)

    def holder(self, occurrence: Occurrence, pattern: str) -> Chunk | None:
        """The chunk that holds ``occurrence`` of the prepared ``pattern`` whole, if one does.

        Of the chunks that cover it, the one reaching farthest (see
        :meth:`ChunkMap.holder`); in exact mode, one whose own text has it.
        """
        holder = self.chunk_map.holder(occurrence.doc, occurrence.start, occurrence.end)
        if holder is not None and self.matcher.mode == "exact":
            holder = self._exact_holder(holder, occurrence, pattern)
        if holder is None:
            holder = self._unplaced_holder(pattern, occurrence.doc)
        return holder

    def holders(self, pattern: str, docs: Collection[str] | None = None) -> list[Chunk]:
        """Every chunk that holds the prepared ``pattern`` whole (in ``docs``), in chunk order.

        What a hit's and a miss's report list as relevant (the qrels of ``export
        trec``): every occurrence is mapped to the chunks that cover it. In fuzzy
        mode a match has no place, and only the chunks known otherwise count:
        an empty list here. They are kept for the last few patterns: a miss lists
        them, then reads its deeper retrieval against them (:meth:`holds`).
        """
        return list(self._held(pattern, None if docs is None else frozenset(docs)).values())

    def holds(self, chunk: Chunk, pattern: str, docs: Collection[str] | None = None) -> bool:
        """Whether ``chunk`` holds the prepared ``pattern`` whole: the matcher's answer on
        its prepared text.

        A chunk of the documents ``docs`` (all, when ``None``) whose text holds
        patterns exactly where the corpus does (:meth:`verbatim`) is looked up
        among the :meth:`holders` instead, which explaining a miss has listed
        already: the results of a deeper retrieval, most of which do not hold
        it, are then neither folded nor compared.
        """
        if (docs is None or chunk.doc in docs) and self.verbatim(chunk):
            return chunk.index in self._held(pattern, None if docs is None else frozenset(docs))
        return self.matcher.contains(self.prepared(chunk), pattern)

    def verbatim(self, chunk: Chunk) -> bool:
        """Whether ``chunk``'s own text holds a pattern exactly where :meth:`holders` finds it.

        It does for a chunk of this corpus whose text is its document's between
        its offsets, cut where no number goes on across the cut: its edges then
        make whole no number that the document's text has inside a longer one.
        In normalized mode the chunk and the characters either side of it must
        be ASCII too, which folds character by character (lowered, whitespace
        runs made one space): its prepared text is then the document's in match
        space, with the same neighbours. Never in fuzzy mode, where a match has
        no place.
        """
        if self.matcher.mode == "fuzzy" or not self.owns(chunk):
            return False
        known = self._verbatim[chunk.index]
        if known == _UNKNOWN:
            known = self._verbatim[chunk.index] = _YES if self._is_verbatim(chunk) else _NO
        return known == _YES

    def _is_verbatim(self, chunk: Chunk) -> bool:
        start, end = chunk.start, chunk.end
        if start is None or end is None:
            return False
        text = self.document(chunk.doc).text
        if end - start != len(chunk.text) or not text.startswith(chunk.text, start):
            return False
        if self.matcher.mode != "exact" and not (
            chunk.text.isascii()
            and text[start - 1 : start].isascii()
            and text[end : end + 1].isascii()
        ):
            return False
        return not (edges.inside_number(text, start) or edges.inside_number(text, end))

    def _holders(self, pattern: str, docs: frozenset[str] | None) -> dict[int, Chunk]:
        """:meth:`holders` by chunk index, in chunk order (never changed once made)."""
        if self.matcher.mode == "fuzzy":
            return {}
        found: dict[int, Chunk] = {}
        for occurrence in self.occurrences(pattern, docs):
            for chunk in self.chunk_map.holders(occurrence.doc, occurrence.start, occurrence.end):
                if self.matcher.mode != "exact" or self.matcher.contains(
                    self.prepared(chunk), pattern
                ):
                    found.setdefault(chunk.index, chunk)
        for doc, chunks in self.chunk_map.unplaced.items():
            if docs is not None and doc not in docs:
                continue
            for chunk in chunks:
                if self.matcher.contains(self.prepared(chunk), pattern):
                    found.setdefault(chunk.index, chunk)
        return {index: found[index] for index in sorted(found)}

    def occurrences(
        self, pattern: str, docs: Collection[str] | None = None
    ) -> Iterator[Occurrence]:
        """The occurrences of the prepared ``pattern`` in the corpus (in ``docs``), in corpus order.

        The corpus is searched once for the last few patterns (a miss is located,
        then every chunk holding it listed); each occurrence is mapped back to its
        document's offsets only when asked for.
        """
        for doc_no, pos in self._found(pattern):
            doc_id = self.documents[doc_no].id
            if docs is not None and doc_id not in docs:
                continue
            start, end = self._original(doc_no, pos, pos + len(pattern))
            yield Occurrence(doc_id, start, end)

    def occurs(self, pattern: str, docs: Collection[str] | None = None) -> bool:
        """Whether the prepared ``pattern`` occurs at all (in ``docs``)."""
        return next(self.occurrences(pattern, docs), None) is not None

    def passage(
        self, start: str, end: str, docs: Collection[str] | None = None
    ) -> tuple[str, Occurrence] | None:
        """The shortest passage that starts with ``start`` and ends with ``end`` (in ``docs``).

        Returns the passage in match space and where it is in its document.
        """
        texts = self._match_texts()
        index = self._index_of()
        allowed = None if docs is None else {self._doc_no(doc) for doc in docs}
        starts: dict[int, list[int]] = {}
        for doc_no, pos in index.find(start):
            if allowed is None or doc_no in allowed:
                starts.setdefault(doc_no, []).append(pos)
        best: tuple[int, int, int] | None = None  # (length, doc, start)
        for doc_no, pos in index.find(end):
            candidates = starts.get(doc_no, [])
            finish = pos + len(end)
            nearest = bisect_right(candidates, pos) - 1
            # The nearest start may reach past this end (the end text occurs
            # inside the start text); an earlier start can still begin a passage.
            while nearest >= 0 and candidates[nearest] + len(start) > finish:
                nearest -= 1
            if nearest < 0:
                continue
            begin = candidates[nearest]
            if best is None or finish - begin < best[0]:
                best = (finish - begin, doc_no, begin)
        if best is None:
            return None
        length, doc_no, begin = best
        first, last = self._original(doc_no, begin, begin + length)
        where = Occurrence(self.documents[doc_no].id, first, last)
        return texts[doc_no][begin : begin + length], where

    def nearest(self, pattern: str, doc_id: str) -> tuple[Occurrence, float] | None:
        """The passage of document ``doc_id`` most like the prepared ``pattern`` (rapidfuzz's
        partial-ratio alignment, in match space), in the document's own offsets, with its
        score; ``None`` for a document that is empty or not in the corpus."""
        doc_no = self._doc_no(doc_id)
        text = self._match_text(doc_no) if doc_no >= 0 else ""
        if not text or not pattern:
            return None
        from rapidfuzz import fuzz

        alignment = fuzz.partial_ratio_alignment(pattern, text)
        if alignment is None or alignment.dest_end <= alignment.dest_start:
            return None
        start, end = self._original(doc_no, alignment.dest_start, alignment.dest_end)
        return Occurrence(doc_id, start, end), float(alignment.score)

    def every_prepared(self) -> list[str]:
        """Every chunk's text as the matcher compares it, in chunk order (kept once built)."""
        if self._all_prepared is None:
            self._all_prepared = [self.matcher.prepare(chunk.text) for chunk in self.chunks]
        return self._all_prepared

    def _find(self, pattern: str) -> tuple[tuple[int, int], ...]:
        """Every ``(document number, offset)`` where the prepared ``pattern`` is in match space."""
        return tuple(self._index_of().find(pattern))

    def _index_of(self) -> WordIndex:
        return self.space.index()

    def _doc_no(self, doc_id: str) -> int:
        if self._numbers is None:
            self._numbers = {doc.id: number for number, doc in enumerate(self.documents)}
        return self._numbers.get(doc_id, -1)

    def _match_texts(self) -> list[str]:
        """Every document in match space, in corpus order."""
        return self.space.texts()

    def _match_text(self, doc_no: int) -> str:
        """One document in match space: its text, or its folded text."""
        return self.space.text(doc_no)

    def _fold(self, doc_no: int) -> Folded:
        return self.space.fold(doc_no)

    def _fold_passage(self, doc_no: int, start: int, end: int) -> FoldedPassage:
        """The passage folded on its own, or where no whitespace is near it, as part of
        the whole document."""
        text = self.documents[doc_no].text
        low, high = widened(text, start, end)
        if high - low > end - start + _WIDENING:
            return FoldedPassage(0, self._fold(doc_no))
        return fold_passage(text, low, high)

    def _original(self, doc_no: int, start: int, end: int) -> tuple[int, int]:
        """A passage of a document in match space, in the document's own offsets."""
        if self.matcher.mode == "exact":
            return start, end
        folded = self._fold(doc_no)
        return folded.original_start(start), folded.original_end(end)

    def _folded(self, doc_no: int, position: int) -> int:
        """An offset of a document, in match space."""
        if self.matcher.mode == "exact":
            return position
        return self._fold(doc_no).folded_start(position)

    def _exact_holder(self, holder: Chunk, occurrence: Occurrence, pattern: str) -> Chunk | None:
        # Placed up to whitespace and case, a chunk may cover the text without
        # holding it exactly: its own text is the judge, and another chunk that
        # covers the occurrence may hold it where the farthest-reaching does not.
        if self.matcher.contains(self.prepared(holder), pattern):
            return holder
        for chunk in self.chunk_map.placed(occurrence.doc):  # in start order
            assert chunk.start is not None and chunk.end is not None
            if chunk.start > occurrence.start:
                break
            if chunk.end >= occurrence.end and self.matcher.contains(self.prepared(chunk), pattern):
                return chunk
        return None

    def _unplaced_holder(self, pattern: str, doc: str) -> Chunk | None:
        for chunk in self.chunk_map.unplaced.get(doc, ()):
            if self.matcher.contains(self.prepared(chunk), pattern):
                return chunk
        return None

    def _locate_fuzzy(self, pattern: str, docs: Collection[str] | None) -> Location:
        from rapidfuzz import fuzz, process

        prepared = self.every_prepared()
        matcher = self.matcher
        threshold = matcher.threshold
        counted = [
            number for number, chunk in enumerate(self.chunks) if docs is None or chunk.doc in docs
        ]
        # rapidfuzz ranks the candidates at C speed; the matcher then has the
        # last word on each, since it also asks that numbers agree exactly.
        long_enough = [number for number in counted if len(prepared[number]) >= len(pattern)]
        short = [number for number in counted if len(prepared[number]) < len(pattern)]
        for pool, scorer in ((long_enough, fuzz.partial_ratio), (short, fuzz.ratio)):
            ranked = process.extract(
                pattern,
                [prepared[number] for number in pool],
                scorer=scorer,
                processor=None,
                score_cutoff=threshold,
                limit=None,
            )
            for _, _, position in ranked:
                if matcher.contains(prepared[pool[position]], pattern):
                    return Location(self.chunks[pool[position]], None)
        texts = self._match_texts()
        found: tuple[float, int, int, int] | None = None
        for doc_no, text in enumerate(texts):
            if docs is not None and self.documents[doc_no].id not in docs:
                continue
            alignment = matcher.aligned(text, pattern)
            if alignment is None:
                continue
            if found is None or alignment.score > found[0]:
                found = (alignment.score, doc_no, alignment.dest_start, alignment.dest_end)
        if found is None:
            return Location(None, None)
        _, doc_no, start, end = found
        start, end = self._original(doc_no, start, end)
        return Location(None, Occurrence(self.documents[doc_no].id, start, end))
