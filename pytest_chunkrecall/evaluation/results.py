"""What evaluating a case found, as JSON-safe values, and the totals over many cases."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, TypedDict, final

from ..analysis.geometry import Geometry
from ..analysis.survival import SpanAnalysis
from ..chunking.chunk import Chunk

VERDICTS = ("hit", "split", "ranked_out", "absent")
MISSES = ("split", "ranked_out", "absent")
PREVIEW = 72


@dataclass(frozen=True)
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
    ) -> ChunkView:
        """How ``chunk`` (or a result that is no chunk, by its ``text``) is shown; ``length`` measures it."""
        if chunk is None:
            return cls(None, None, None, None, preview(text), rank)
        size = length(chunk.text) if length else None
        return cls(chunk.doc, chunk.index, chunk.start, chunk.end, preview(chunk.text), rank, size)


@dataclass(frozen=True)
class Held:
    """A span or needle the top k missed, and a chunk that holds it whole."""

    pattern: str
    chunk: ChunkView


@dataclass(frozen=True)
class CutView:
    """Where a boundary divided the span: offset, the text either side, the chunks around it."""

    doc: str
    offset: int
    before: str
    after: str
    left: ChunkView | None
    right: ChunkView | None
    overlap: int | None


@dataclass(frozen=True)
class Closest:
    """The corpus text most like a needle that is not in the corpus."""

    pattern: str
    text: str
    score: float
    doc: str | None
    index: int | None


@dataclass(frozen=True)
class CaseResult:
    """The outcome of evaluating one gold case; every field is JSON-safe."""

    gold_file: str
    id: str
    line: int
    question: str
    needles: list[str]
    span: str | None
    verdict: str
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
    missing: list[str] = field(default_factory=list)
    baseline: dict[str, Any] | None = None

    @property
    def hit(self) -> bool:
        return self.verdict == "hit"

    def __str__(self) -> str:
        return outcome_text(self.verdict, self.rank)

    def to_json(self) -> dict[str, Any]:
        """The result as plain dicts and lists (what ``dataclasses.asdict`` gives, without its deep copies)."""
        return _plain(self)  # type: ignore[no-any-return]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CaseResult:
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        values["top"] = [ChunkView(**view) for view in values.get("top") or []]
        values["held"] = [
            Held(item["pattern"], ChunkView(**item["chunk"])) for item in values.get("held") or []
        ]
        if values.get("cut"):
            cut = dict(values["cut"])
            for side in ("left", "right"):
                cut[side] = ChunkView(**cut[side]) if cut.get(side) else None
            values["cut"] = CutView(**cut)
        if values.get("closest"):
            values["closest"] = Closest(**values["closest"])
        return cls(**values)


@dataclass(frozen=True)
class Totals:
    """Hit rate and verdict counts over the evaluated cases."""

    cases: int
    hits: int
    split_spans: int
    verdicts: dict[str, int]

    @property
    def hit_rate(self) -> float:
        return self.hits / self.cases if self.cases else 0.0

    @classmethod
    def of(cls, results: Iterable[CaseResult]) -> Totals:
        verdicts = dict.fromkeys(VERDICTS, 0)
        cases = split = 0
        for result in results:
            cases += 1
            verdicts[result.verdict] += 1
            split += result.span_split
        return cls(cases, verdicts["hit"], split, verdicts)

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "hits": self.hits,
            "hit_rate": round(self.hit_rate, 6),
            "split_spans": self.split_spans,
            "verdicts": dict(self.verdicts),
        }


def outcome_text(verdict: str, rank: int | None) -> str:
    """``hit at rank 2``, or the verdict of a miss."""
    return f"hit at rank {rank}" if verdict == "hit" else verdict


def _plain(value: Any) -> Any:
    # Every leaf here is an immutable str, int, float, bool or None: copying
    # the containers is enough, and several times cheaper than asdict's deepcopy.
    # Leaves are the common case, so they are recognised first.
    if isinstance(value, _LEAVES):
        return value
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if is_dataclass(value):
        return {key: _plain(item) for key, item in vars(value).items()}
    return value


_LEAVES = (str, int, float, type(None))


def preview(text: str, width: int = PREVIEW) -> str:
    """``text`` on one line, trimmed to ``width`` characters with an ellipsis."""
    # Flattening the start of a long chunk gives the same line as flattening
    # all of it, unless the start is mostly whitespace.
    flat = " ".join(text[: 4 * width].split())
    if len(flat) <= width:
        flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@final
class GoldFacts(TypedDict):
    """What the summary and the JSON report say about a gold file's configuration."""

    corpus: str
    documents: int
    corpus_chars: int
    chunker: str
    chunker_args: dict[str, Any]  # as the user wrote them: any YAML value
    chunks: int
    retriever: str
    retriever_args: dict[str, Any]
    k: int
    match: str
    unit: str
    geometry: Geometry
    fingerprints: dict[str, str]  # sha256 of each corpus document's text, by document id


@final
class GoldFailure(TypedDict):
    """A gold file whose corpus, chunker or retriever could not be built: why."""

    error: str


GoldInfo = GoldFacts | GoldFailure


@dataclass(frozen=True)
class GoldFileSummary:
    """One gold file of a run: its facts (``None`` until a case of it ran), results and span arithmetic."""

    path: str
    info: GoldInfo | None
    results: list[CaseResult]
    analysis: SpanAnalysis | None
