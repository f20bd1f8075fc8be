"""What evaluating a case found, as JSON-safe values, and the totals over many cases."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..chunking.chunk import Chunk
from ..measures import ranks
from ..measures.statistics import wilson

if TYPE_CHECKING:
    from .case_facts import CaseFact

Verdict = Literal["hit", "split", "ranked_out", "absent", "unparsed", "reranked_out"]
VERDICTS: tuple[Verdict, ...] = ("hit", "split", "ranked_out", "absent", "unparsed", "reranked_out")
# Verdicts of a stage only some runs have (a loader's, a reranker's): the terminal shows them
# where they occur, so that a run without one prints the verdicts it always did.
STAGE_VERDICTS: tuple[Verdict, ...] = ("unparsed", "reranked_out")
MISSES = ("split", "ranked_out", "absent", "unparsed", "reranked_out")
PREVIEW = 72


@dataclass(frozen=True, slots=True)
class ChunkView:
    """A chunk as a failure message shows it: where it is and how it begins."""

    doc: str | None
    index: int | None
    start: int | None
    end: int | None
    preview: str
    rank: int | None = None
    size: int | None = None

    @classmethod
    def of(
        cls,
        chunk: Chunk | None,
        *,
        text: str = "",
        rank: int | None = None,
        length: Callable[[str], int] | None = None,
        shown: str | None = None,
    ) -> ChunkView:
        """How ``chunk`` (or a result that is no chunk, by its ``text``) is shown; ``length``
        measures it, and ``shown`` is its :func:`preview`, when that is made already."""
        if chunk is None:
            return cls(None, None, None, None, preview(text), rank)
        size = length(chunk.text) if length else None
        shown = preview(chunk.text) if shown is None else shown
        return cls(chunk.doc, chunk.index, chunk.start, chunk.end, shown, rank, size)


@dataclass(frozen=True, slots=True)
class Held:
    """A span or needle the top k missed, and a chunk that holds it whole."""

    pattern: str
    chunk: ChunkView


@dataclass(frozen=True, slots=True)
class CutView:
    """Where a boundary divided the span: offset, the text either side, the chunks around it."""

    doc: str
    offset: int
    before: str
    after: str
    left: ChunkView | None
    right: ChunkView | None
    overlap: int | None


@dataclass(frozen=True, slots=True)
class SpanAt:
    """Where a case's span (or first needle) was found in its document, in its own offsets."""

    doc: str
    start: int
    end: int


def chunk_id(chunk: Chunk) -> str:
    """A chunk's id across tools: ``<document>#<index>`` (the index in the suite's chunk list)."""
    return f"{chunk.doc}#{chunk.index}"


@dataclass(frozen=True, slots=True)
class Closest:
    """The corpus text most like a needle that is not in the corpus."""

    pattern: str
    text: str
    score: float
    doc: str | None
    index: int | None


@dataclass(frozen=True, slots=True)
class LoadingLoss:
    """What the loader lost: a span or needle (``pattern``, as written) that the loaded
    corpus lacks and the source file ``doc``'s reference text has.

    ``reference`` is the reference text around it; ``loaded`` the closest passage of
    the same document's loaded text (``None`` when it has nothing like it), with its
    similarity ``loaded_score``; ``loaded_chars`` the length of that loaded text.
    """

    pattern: str
    doc: str
    reference: str
    loaded: str | None
    loaded_score: float | None
    loaded_chars: int


@dataclass(frozen=True, slots=True)
class Glued:
    """A retrieved chunk that holds a missed span or needle (``pattern``, as written) only
    once its whitespace is ignored: ``text`` is the run of text there (``token90days``),
    ``rank`` the chunk's rank. What a loader that joins table cells or lines leaves."""

    pattern: str
    text: str
    rank: int


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The outcome of evaluating one gold case; every field is JSON-safe.

    ``verdict`` is one of :data:`VERDICTS`; ``rank`` the 1-based rank of
    the top-k chunk that holds the span (without one, the rank by which every
    needle was held), ``None`` unless a hit. ``span_split``: the span is whole in
    no chunk of the corpus. ``holding_rank``: where the holding chunk ranks in a
    deeper retrieval of ``depth`` results (a ranked_out case), or ``None`` when
    deeper still; for a hit, ``rank``. ``pieces_retrieved``: for a split, whether
    every piece of the span between the cuts came back in the top k.
    ``retrieved_ids`` are the top k as ``<doc>#<index>`` (``None``: a result that
    is no chunk of the corpus), ``holding_ids`` every chunk that holds the span
    whole (without one: every needle), retrieved or not; in fuzzy mode, and
    for a hit judged without ``every_holder``, the retrieved ones that do and
    the one holding it where ``span_at`` is.
    ``span_at`` is where the span was found: for a hit, in the first retrieved
    chunk that holds it; for a miss, its first place in the corpus held whole
    (else its first place). ``docs`` the documents a ``doc:``
    pin allows, and ``elsewhere`` the other documents that have absent text.
    ``closest`` is the corpus text most like absent text, ``also_close`` the next
    ones (two at most).
    ``top``, ``held``, ``cut``, ``closest``, ``also_close`` and ``missing`` feed the failure message.
    With a reranker, ``candidates`` is how many chunks the first stage was asked
    for, ``candidate_rank`` the rank among them of the chunk that holds the span
    (``None``: none held it), ``candidate_score`` the first stage's score of that
    chunk where it gives one, and ``reranker`` the second stage's name.
    ``glued`` is a retrieved chunk that holds a missed unit with its spaces lost.
    ``loading`` is what the loader lost (an unparsed case); ``reference_notes`` the
    source files whose reference text a missing span could not be checked against, and why.
    With ``chunkrecall_repeat`` above 1 the result is the worst of the case's repeats
    (see :mod:`.repeat`): ``unstable`` says whether they differed, ``ranks_seen`` gives
    each one's rank (``None``: it missed the top k), and ``varied`` says in words what
    differed between them (the verdict, the holding rank, the chunk), ``""`` when they
    agreed. Asked once, all three are ``None`` and its JSON has none of the keys.
    """

    gold_file: str
    id: str
    line: int
    question: str
    needles: list[str]
    span: str | None
    verdict: Verdict
    rank: int | None
    span_split: bool
    k: int
    match: str
    needle_lengths: list[int]
    span_length: int
    unit: str
    top: list[ChunkView] = field(default_factory=list)
    held: list[Held] = field(default_factory=list)
    cut: CutView | None = None
    closest: Closest | None = None
    also_close: list[Closest] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    baseline: dict[str, Any] | None = None
    holding_rank: int | None = None
    depth: int | None = None
    depth_error: str | None = None
    pieces_retrieved: bool | None = None
    retrieved_ids: list[str | None] = field(default_factory=list)
    holding_ids: list[str] = field(default_factory=list)
    span_at: SpanAt | None = None
    docs: list[str] | None = None
    elsewhere: list[str] = field(default_factory=list)
    candidates: int | None = None
    candidate_rank: int | None = None
    candidate_score: float | None = None
    reranker: str | None = None
    loading: LoadingLoss | None = None
    glued: Glued | None = None
    reference_notes: list[str] = field(default_factory=list)
    unstable: bool | None = None
    ranks_seen: list[int | None] | None = None
    varied: str | None = None

    @property
    def hit(self) -> bool:
        return self.verdict == "hit"

    def __str__(self) -> str:
        return outcome_text(self.verdict, self.rank)

    def to_json(self) -> dict[str, Any]:
        """The result as plain dicts and lists (what ``dataclasses.asdict`` gives, without its
        deep copies); a case asked once has no ``unstable``, ``ranks_seen`` and ``varied`` keys."""
        plain: dict[str, Any] = _plain(self)
        if self.ranks_seen is None:
            del plain["unstable"], plain["ranks_seen"], plain["varied"]
        elif self.varied is None:
            del plain["varied"]
        return plain

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CaseResult:
        """The result ``to_json`` gave (keys it does not know, such as a report's ``nodeid``,
        are left out)."""

        def view(data: Mapping[str, Any]) -> ChunkView:
            return ChunkView(**data)

        known = _FIELDS
        values = {key: value for key, value in data.items() if key in known}
        values["top"] = [view(item) for item in values.get("top") or []]
        values["held"] = [Held(h["pattern"], view(h["chunk"])) for h in values.get("held") or []]
        values["retrieved_ids"] = list(values.get("retrieved_ids") or [])
        values["holding_ids"] = list(values.get("holding_ids") or [])
        if values.get("cut"):
            cut = dict(values["cut"])
            for side in ("left", "right"):
                cut[side] = view(cut[side]) if cut.get(side) else None
            values["cut"] = CutView(**cut)
        if values.get("closest"):
            values["closest"] = Closest(**values["closest"])
        values["also_close"] = [Closest(**item) for item in values.get("also_close") or []]
        if values.get("span_at"):
            values["span_at"] = SpanAt(**values["span_at"])
        if values.get("loading"):
            values["loading"] = LoadingLoss(**values["loading"])
        if values.get("glued"):
            values["glued"] = Glued(**values["glued"])
        values["reference_notes"] = list(values.get("reference_notes") or [])
        if values.get("ranks_seen") is not None:
            values["ranks_seen"] = list(values["ranks_seen"])
        return cls(**values)


_FIELDS = frozenset(f.name for f in fields(CaseResult))


@dataclass(frozen=True)
class Totals:
    """Hit rate, ranking measures and verdict counts over the evaluated cases.

    ``cases`` counts every evaluated case (xfail included, skipped excluded);
    ``hits`` those whose span came back whole in the top k; ``split_spans`` those
    whose span no chunk holds whole; ``verdicts`` the count of each verdict;
    ``ranks`` each case's rank (``None`` for a miss), for MRR and hit-rate at
    each cut-off up to ``largest_k``; ``pieces_retrieved`` the split cases whose
    pieces all came back.
    """

    cases: int
    hits: int
    split_spans: int
    verdicts: dict[str, int]
    ranks: tuple[int | None, ...] = ()
    largest_k: int = 0
    pieces_retrieved: int = 0

    @property
    def hit_rate(self) -> float:
        return self.hits / self.cases if self.cases else 0.0

    @property
    def mrr(self) -> float:
        """Mean reciprocal rank (see :func:`analysis.ranks.mrr`)."""
        return ranks.mrr(self.ranks)

    @property
    def hit_rate_at(self) -> dict[str, float]:
        """Hit-rate at each cut-off 1..largest k (see :func:`analysis.ranks.hit_rate_at`)."""
        return ranks.hit_rate_at(self.ranks, self.largest_k)

    @property
    def hit_rate_ci95(self) -> tuple[float, float]:
        """The hit-rate's 95% Wilson score interval."""
        return wilson(self.hits, self.cases)

    @classmethod
    def of(cls, results: Iterable[CaseResult | CaseFact]) -> Totals:
        """The totals of ``results``, in their order (which MRR's sum follows)."""
        seen: list[Verdict] = []
        cases = split = pieces = largest = 0
        found: list[int | None] = []
        for result in results:
            cases += 1
            seen.append(result.verdict)
            split += result.span_split
            pieces += bool(result.pieces_retrieved)
            largest = max(largest, result.k)
            found.append(result.rank if result.hit else None)
        verdicts = verdict_counts(seen)
        return cls(cases, verdicts["hit"], split, verdicts, tuple(found), largest, pieces)

    def to_json(self) -> dict[str, Any]:
        low, high = self.hit_rate_ci95
        return {
            "cases": self.cases,
            "hits": self.hits,
            "hit_rate": round(self.hit_rate, 6),
            "hit_rate_ci95": [round(low, 6), round(high, 6)],
            "mrr": round(self.mrr, 6),
            "hit_rate_at": {r: round(share, 6) for r, share in self.hit_rate_at.items()},
            "split_spans": self.split_spans,
            "pieces_retrieved": self.pieces_retrieved,
            "verdicts": dict(self.verdicts),
        }


def verdict_counts(verdicts: Iterable[str]) -> dict[str, int]:
    """How many of ``verdicts`` are each verdict, every verdict in :data:`VERDICTS` order."""
    counts: dict[str, int] = dict.fromkeys(VERDICTS, 0)
    for verdict in verdicts:
        counts[verdict] += 1
    return counts


def outcome_text(verdict: str, rank: int | None) -> str:
    """``hit at rank 2``, or the verdict of a miss."""
    return f"hit at rank {rank}" if verdict == "hit" else verdict


def _plain(value: Any) -> Any:
    # Every leaf here is an immutable str, int, float, bool or None: copying
    # the containers is enough, and several times cheaper than asdict's deepcopy.
    # Leaves are most values, so each container recognises them itself rather
    # than making a call for each (a result is a few dozen values, made per case).
    if isinstance(value, list):
        return [item if isinstance(item, _LEAVES) else _plain(item) for item in value]
    if isinstance(value, dict):
        return {
            key: item if isinstance(item, _LEAVES) else _plain(item) for key, item in value.items()
        }
    if isinstance(value, tuple):
        return tuple(item if isinstance(item, _LEAVES) else _plain(item) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        return {
            key: item if isinstance(item := getattr(value, key), _LEAVES) else _plain(item)
            for key in field_names(type(value))
        }
    return value


@functools.cache
def field_names(kind: type) -> tuple[str, ...]:
    """The names of a result dataclass's fields, in order."""
    # Results have slots, so no __dict__ to read their fields from.
    return tuple(f.name for f in fields(kind))


_LEAVES = (str, int, float, type(None))


def preview(text: str, width: int = PREVIEW) -> str:
    """``text`` on one line, trimmed to ``width`` characters with an ellipsis."""
    # Flattening the start of a long chunk gives the same line as flattening
    # all of it, unless the start is mostly whitespace.
    flat = " ".join(text[: 4 * width].split())
    if len(flat) <= width:
        flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
