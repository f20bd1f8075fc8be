"""What evaluating a case found, as JSON-safe values, and the totals over many cases."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from ..chunking.chunk import Chunk
from ..config.settings import MATCH_MODES
from ..measures import ranks
from ..measures.statistics import wilson
from . import codec
from .codec import Items, Least, Note, NullIsDefault, OneOf, Printable, Together

# re-exported for the modules that read them here; their home is .verdicts
from .verdicts import STAGE_VERDICTS as STAGE_VERDICTS
from .verdicts import VERDICTS as VERDICTS
from .verdicts import Verdict as Verdict

if TYPE_CHECKING:
    from .case_facts import CaseFact

PREVIEW = 72
T = TypeVar("T")

codec.name_choices(Verdict, "verdict")  # the schema's one list of verdicts, in its $defs

Rank = Annotated[int, Least(1)]
"""A 1-based rank."""
Name = Annotated[str, Printable()]
"""A node id, a gold file's path or a case's id as a report read back gives it: every
summary prints it as it is, so it may hold no control characters."""
Count = Annotated[int, Least(0)]
"""A length, an offset, an index: a whole number from 0."""
Line = Annotated[int, Least(1)]
"""A 1-based line of a gold file."""
Unstable = Annotated[
    bool | None,
    Together("repeats"),
    Note(
        "Only with chunkrecall_repeat above 1, on every evaluated case: whether its repeats "
        "differed in verdict, rank or holding rank (false: they agreed). The case's verdict "
        "and ranks are then the worst repeat's."
    ),
]
"""Whether a case's repeats differed; ``None`` (and no key in its JSON): it was asked once."""
RanksSeen = Annotated[
    list[Rank | None] | None,
    Items(least=2),
    Together("repeats"),
    Note(
        "Only with chunkrecall_repeat above 1 (or a merge --repeats): the rank in each "
        "repeat, in the order asked; null where that repeat missed the top k."
    ),
]
"""Each repeat's rank (``None``: it missed the top k); ``None`` itself: asked once."""
Varied = Annotated[
    str | None,
    Together("varied"),  # absent, never null, where an older merge did not say
    Note(
        "Only with chunkrecall_repeat above 1: what differed between the repeats besides the "
        "rank, in words (the verdict, the holding rank, the chunk that answered or holds the "
        "span), e.g. 'holding rank 7, 12, 7'; empty when nothing did."
    ),
]
"""What differed between a case's repeats, in words; ``None``: asked once."""


@dataclass(frozen=True, slots=True)
class ChunkView:
    """A chunk as a failure message shows it: where it is and how it begins."""

    doc: str | None
    index: Count | None
    start: Count | None
    end: Count | None
    preview: str
    rank: Rank | None = None
    size: Count | None = None

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
    offset: Count
    before: str
    after: str
    left: ChunkView | None
    right: ChunkView | None
    overlap: int | None


@dataclass(frozen=True, slots=True)
class SpanAt:
    """Where a case's span (or first needle) was found in its document, in its own offsets."""

    doc: str
    start: Count
    end: Count


def chunk_id(chunk: Chunk) -> str:
    """A chunk's id across tools: ``<document>#<index>`` (the index in the suite's chunk list)."""
    return f"{chunk.doc}#{chunk.index}"


@dataclass(frozen=True, slots=True)
class NearestText:
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
    loaded_chars: Count


Change = Literal["new", "still_hit", "regression", "improvement", "known_miss", "stage_change"]
"""What a case's result is against the baseline's entry for it: ``new`` (the baseline lacks
it), ``still_hit``, ``regression`` (a hit then, a miss now), ``improvement`` (a miss then, a
hit now), ``known_miss`` (a miss then and now) and ``stage_change`` (a known miss whose
first stage now finds it and whose reranker drops it: ranked_out then, reranked_out now)."""


@dataclass(frozen=True, slots=True)
class BaselineMark:
    """What the baseline held of a case, and what this run's result is against it.

    ``verdict``, ``rank`` and ``span_split`` are the baseline's; ``change`` is
    :data:`Change` (``None`` in a report written before it was recorded);
    ``document_changed``: a regression whose span lies in a document whose text
    changed since the baseline was written.
    """

    verdict: Verdict
    rank: Rank | None
    span_split: bool
    change: Change | None = None
    document_changed: bool = False
    context_to_answer: Count | None = None  # the baseline's; None: a miss, or not recorded


@dataclass(frozen=True, slots=True)
class Glued:
    """A retrieved chunk that holds a missed span or needle (``pattern``, as written) only
    once its whitespace is ignored: ``text`` is the run of text there (``token90days``),
    ``rank`` the chunk's rank. What a loader that joins table cells or lines leaves."""

    pattern: str
    text: str
    rank: Rank


MustNot = Annotated[
    list[T] | None,
    Together("must_not"),
    Note(
        "Only on a case with must_not or must_not_doc: the texts that must not come back (as "
        "written), the documents must_not_doc names, and each top-k chunk that held one "
        "(a leaked case)."
    ),
]
"""What must not come back, or what did; ``None`` (no key): the case names nothing."""


@dataclass(frozen=True, slots=True)
class Leak:
    """A top-k chunk that holds what the case says must not come back: at ``rank``, the
    chunk ``chunk`` (``<doc>#<index>``; ``None``: a result that is no chunk of the corpus)
    of document ``doc``, holding the ``must_not`` text ``text`` (as written), or, with
    ``text`` ``None``, from a ``must_not_doc`` document; ``preview`` how it begins."""

    rank: Rank
    chunk: str | None
    doc: str | None
    text: str | None
    preview: str


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
    ``context`` is the total length of the top-k chunks that came back (in ``unit``),
    ``context_to_answer`` the length of those from rank 1 through ``rank`` (``None``: a miss).
    With a ``budget``, the top k is the chunks within it; ``past_budget_rank`` is the rank
    in the whole top k of the chunk that holds the span when the budget cut it off.
    ``must_not`` and ``must_not_docs`` are what must not come back (the texts as written,
    the documents a ``must_not_doc`` names), and ``leaks`` each top-k chunk that holds one
    (a ``leaked`` case; its other fields say what the needle's own verdict found); all three
    ``None`` (and no keys in its JSON) for a case that names nothing that must not come back.
    ``filter`` is the mapping the retriever was asked with (``filter=``), where there is one.
    With ``any_of``, ``alternative`` is the index of the alternative whose result this is
    (the first hit, else the best verdict) and ``alternatives`` each one's verdict.
    With ``chunkrecall_repeat`` above 1 the result is the worst of the case's repeats
    (see :mod:`.repeat`): ``unstable`` says whether they differed, ``ranks_seen`` gives
    each one's rank (``None``: it missed the top k), and ``varied`` says in words what
    differed between them (the verdict, the holding rank, the chunk), ``""`` when they
    agreed. Asked once, all three are ``None`` and its JSON has none of the keys.
    """

    gold_file: str
    id: str
    line: Line
    question: str
    needles: list[str]
    span: str | None
    verdict: Verdict
    rank: Rank | None
    span_split: bool
    k: Rank
    match: Annotated[str, OneOf(MATCH_MODES)]
    needle_lengths: list[Count]
    span_length: Count
    unit: str
    top: list[ChunkView] = field(default_factory=list)
    held: list[Held] = field(default_factory=list)
    cut: CutView | None = None
    closest: NearestText | None = None
    also_close: Annotated[list[NearestText], Items(most=2)] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    baseline: BaselineMark | None = None
    holding_rank: Rank | None = None
    depth: Count | None = None
    depth_error: str | None = None
    pieces_retrieved: bool | None = None
    retrieved_ids: Annotated[list[str | None], NullIsDefault()] = field(default_factory=list)
    holding_ids: Annotated[list[str], NullIsDefault()] = field(default_factory=list)
    span_at: SpanAt | None = None
    docs: list[str] | None = None
    elsewhere: list[str] = field(default_factory=list)
    candidates: Rank | None = None
    candidate_rank: Rank | None = None
    candidate_score: float | None = None
    reranker: str | None = None
    loading: LoadingLoss | None = None
    glued: Glued | None = None
    reference_notes: list[str] = field(default_factory=list)
    # what the answer cost (see ContextFigures)
    context: Count | None = None
    context_to_answer: Count | None = None
    # a context budget (see .budget): the one applied, and the rank inside the top k of
    # the chunk that held the span past it (a ranked_out case)
    budget: Rank | None = None
    past_budget_rank: Rank | None = None
    unstable: Unstable = None
    ranks_seen: RanksSeen = None
    varied: Varied = None
    # what must not come back, and what did
    must_not: MustNot[str] = None
    must_not_docs: MustNot[str] = None
    leaks: MustNot[Leak] = None
    filter: Annotated[
        dict[str, Any] | None,
        Together("filter"),
        Note("Only on a case with a filter: the mapping passed as filter= to the retriever."),
    ] = None
    alternative: Annotated[
        Count | None,
        Together("any_of"),
        Note(
            "Only on a case with any_of: the 0-based index of the alternative that decided the "
            "verdict (the first hit, else the best verdict among them)."
        ),
    ] = None
    alternatives: Annotated[
        list[Verdict] | None,
        Together("any_of"),
        Note("Only on a case with any_of: each alternative's own verdict, in order."),
    ] = None

    @property
    def hit(self) -> bool:
        return self.verdict == "hit"

    def __str__(self) -> str:
        return outcome_text(self.verdict, self.rank)

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON values (see :func:`.codec.encode`); a case asked once has
        no ``unstable`` and ``ranks_seen`` keys."""
        plain: dict[str, Any] = codec.encode(self)
        return plain

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CaseResult:
        """The result ``to_json`` gave (keys it does not know, such as a report's ``nodeid``,
        are left out); raises :class:`.codec.Malformed` where ``data`` is not one."""
        return codec.decode(cls, data)


@dataclass(frozen=True)
class ContextFigures:
    """What the answers cost: the length of the context that came back, in ``unit``.

    ``mean`` is the mean ``context`` over the cases that record one; ``to_answer_mean``
    the mean ``context_to_answer`` over the hits that record one (``None``: no hit);
    ``hits_per_1k`` = 1000 · hits / Σ context over the cases that record one (``None``:
    no context came back).
    """

    unit: str
    mean: float | None
    to_answer_mean: float | None
    hits_per_1k: float | None

    @classmethod
    def of(cls, totals: Totals) -> ContextFigures | None:
        """The figures of ``totals``; ``None``: no case records its context."""
        if not totals.context_cases:
            return None
        mean = totals.context_sum / totals.context_cases
        to_answer = (
            totals.to_answer_sum / totals.to_answer_cases if totals.to_answer_cases else None
        )
        per_1k = 1000 * totals.context_hits / totals.context_sum if totals.context_sum else None
        return cls(totals.unit, mean, to_answer, per_1k)

    def to_json(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return round(value, 6) if value is not None else None

        return {
            "unit": self.unit,
            "mean": rounded(self.mean),
            "to_answer_mean": rounded(self.to_answer_mean),
            "hits_per_1k": rounded(self.hits_per_1k),
        }


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
    # what the answers cost, summed over the cases that record it (see ContextFigures)
    unit: str = "chars"
    context_cases: int = 0
    context_sum: int = 0
    context_hits: int = 0
    to_answer_cases: int = 0
    to_answer_sum: int = 0

    @property
    def context(self) -> ContextFigures | None:
        """What the answers cost (``None``: no case records its context)."""
        return ContextFigures.of(self)

    @property
    def hit_rate(self) -> float:
        return self.hits / self.cases if self.cases else 0.0

    @property
    def mrr(self) -> float:
        """Mean reciprocal rank (see :func:`..measures.ranks.mrr`)."""
        return ranks.mrr(self.ranks)

    @property
    def hit_rate_at(self) -> dict[str, float]:
        """Hit-rate at each cut-off 1..largest k (see :func:`..measures.ranks.hit_rate_at`)."""
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
        cost = _Cost()
        for result in results:
            cases += 1
            seen.append(result.verdict)
            split += result.span_split
            pieces += bool(result.pieces_retrieved)
            largest = max(largest, result.k)
            found.append(result.rank if result.hit else None)
            cost.add(result)
        verdicts = verdict_counts(seen)
        return cls(
            cases,
            verdicts["hit"],
            split,
            verdicts,
            tuple(found),
            largest,
            pieces,
            unit=cost.unit or "chars",
            context_cases=cost.cases,
            context_sum=cost.total,
            context_hits=cost.hits,
            to_answer_cases=cost.answered,
            to_answer_sum=cost.to_answer,
        )

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
            "context": figures.to_json() if (figures := self.context) is not None else None,
        }


@dataclass
class _Cost:
    """The context sums :meth:`Totals.of` folds, case by case; units that differ between
    gold files are ``mixed``."""

    unit: str | None = None
    cases: int = 0
    total: int = 0
    hits: int = 0
    answered: int = 0
    to_answer: int = 0

    def add(self, result: CaseResult | CaseFact) -> None:
        if result.context is None:
            return
        self.unit = result.unit if self.unit in (None, result.unit) else "mixed"
        self.cases += 1
        self.total += result.context
        self.hits += result.hit
        if result.hit and result.context_to_answer is not None:
            self.answered += 1
            self.to_answer += result.context_to_answer


def verdict_counts(verdicts: Iterable[str]) -> dict[str, int]:
    """How many of ``verdicts`` are each verdict, every verdict in :data:`VERDICTS` order."""
    counts: dict[str, int] = dict.fromkeys(VERDICTS, 0)
    for verdict in verdicts:
        counts[verdict] += 1
    return counts


def outcome_text(verdict: str, rank: int | None) -> str:
    """``hit at rank 2``, or the verdict of a miss."""
    return f"hit at rank {rank}" if verdict == "hit" else verdict


def preview(text: str, width: int = PREVIEW) -> str:
    """``text`` on one line, trimmed to ``width`` characters with an ellipsis."""
    # Flattening the start of a long chunk gives the same line as flattening
    # all of it, unless the start is mostly whitespace.
    flat = " ".join(text[: 4 * width].split())
    if len(flat) <= width:
        flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
