"""The one table of settings: every ini option, what kind of value it takes, its default and
help, whether a gold file may set it, and whether the baseline records it as the setup.

Registration with pytest, ``--help``, the check of each value, the gold file's keys, the
baseline's setup and the sweep's axes are all read from :data:`SETTINGS`, so a new setting
is one row here (and its entry in ``docs/options.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from .kinds import (
    Arguments,
    Checked,
    Choice,
    Chunks,
    FilePath,
    Function,
    Kind,
    Number,
    Patterns,
    Switch,
    Whole,
)
from .limits import MAX_K

MATCH_MODES = ("exact", "normalized", "fuzzy")

Policy = Literal["strict", "quarantine"]
"""``chunkrecall_unstable``: an unstable case's outcome is its worst result (``strict``), or an
expected failure left out of the baseline comparison (``quarantine``)."""
POLICIES: tuple[Policy, ...] = get_args(Policy)

Gate = Literal["cases", "significant"]
"""``chunkrecall_gate``: ``cases``: every regression fails; ``significant``: only a significant
drop does."""
GATES: tuple[Gate, ...] = get_args(Gate)
DEFAULT_CHUNKER = "pytest_chunkrecall.chunkers:fixed_size"
DEFAULT_RETRIEVER = "pytest_chunkrecall.retrievers:bm25"
DEFAULT_K = 5
DEFAULT_DEPTH = 50  # how deep a ranked_out case's holding chunk is looked for
DEFAULT_CANDIDATES = 50  # how many chunks the first stage gives a reranker
DEFAULT_MATCH = "normalized"
DEFAULT_FUZZY_THRESHOLD = 90.0
DEFAULT_BATCH_SIZE = 64
MAX_DEPTH = 10_000  # a deeper list is no longer a ranking question
MAX_BATCH_SIZE = 100_000
MAX_CONCURRENCY = 1_024  # threads, each waiting on one retriever call
MAX_REPEAT = 100
MAX_BUDGET = 1_000_000_000  # units of context a case may read
MAX_GROWTH_PERCENT = 1_000_000.0  # of the context to the answer


@dataclass(frozen=True)
class Setting:
    """One row: the ini option ``chunkrecall_<name>`` and, where ``gold``, the gold key ``<name>``.

    ``setup``: the baseline records it among a gold file's setup, a compare run names its
    change, and a sweep may vary it.
    """

    name: str
    kind: Kind
    default: Any
    help: str
    gold: bool = False
    setup: bool = False

    @property
    def option(self) -> str:
        """The ini option's name."""
        return f"chunkrecall_{self.name}"

    def check(self, value: Any) -> Checked:
        """The value as the settings keep it, and the problem with it (``None``: it is fine)."""
        return self.kind.check(value)


_MAPPING = "an inline YAML or JSON mapping (a TOML table in [tool.pytest])"

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "gold",
        Patterns("gold/*.yaml"),
        None,
        "Glob patterns of gold files, relative to the rootdir; replaces the default "
        "(*.yaml and *.yml files inside a folder named gold)",
    ),
    Setting(
        "corpus",
        Patterns("../docs/*.md"),
        None,
        "Glob patterns of the corpus files, relative to the rootdir (one per line)",
        gold=True,
    ),
    Setting(
        "corpus_roots",
        Patterns("../shared-docs"),
        None,
        "Folders outside the rootdir that corpus files may come from, relative to the rootdir "
        "(one per line); files elsewhere are a collection error",
    ),
    Setting(
        "chunker",
        Function(),
        DEFAULT_CHUNKER,
        f"The chunker as module:attr (default: {DEFAULT_CHUNKER})",
        gold=True,
        setup=True,
    ),
    Setting(
        "chunker_args",
        Arguments(),
        None,
        f"Arguments for the chunker, as {_MAPPING}",
        gold=True,
        setup=True,
    ),
    Setting(
        "retriever",
        Function(),
        DEFAULT_RETRIEVER,
        f"The retriever factory as module:attr (default: {DEFAULT_RETRIEVER})",
        gold=True,
        setup=True,
    ),
    Setting(
        "retriever_args",
        Arguments(),
        None,
        f"Arguments for the retriever factory, as {_MAPPING}",
        gold=True,
        setup=True,
    ),
    Setting(
        "k",
        Chunks(example=DEFAULT_K),
        DEFAULT_K,
        f"How many retrieved chunks a needle may be found in, 1 to {MAX_K:,} "
        f"(default: {DEFAULT_K})",
        gold=True,
        setup=True,
    ),
    Setting(
        "budget",
        Whole(1, MAX_BUDGET),
        None,
        "How much context a case may read, in chunkrecall_length's units (characters by "
        "default): the top-k chunks count in rank order while their total fits, the first "
        "always; unset: the whole top k",
        gold=True,
        setup=True,
    ),
    Setting(
        "match",
        Choice(MATCH_MODES),
        DEFAULT_MATCH,
        f"How needles are matched: exact, normalized or fuzzy (default: {DEFAULT_MATCH})",
        gold=True,
        setup=True,
    ),
    Setting(
        "fuzzy_threshold",
        Number(0.0, 100.0),
        DEFAULT_FUZZY_THRESHOLD,
        "Lowest rapidfuzz partial-ratio score that counts as found with match fuzzy "
        f"(default: {DEFAULT_FUZZY_THRESHOLD:g})",
        gold=True,
    ),
    Setting(
        "reranker",
        Function(),
        None,
        "The second stage as module:attr: a function rerank(question, chunks, k), or a "
        "factory of one, of an object with rerank, of a LangChain compressor or LlamaIndex "
        "node postprocessors",
        gold=True,
        setup=True,
    ),
    Setting(
        "reranker_args",
        Arguments(),
        None,
        f"Arguments for the reranker, as {_MAPPING}",
        gold=True,
        setup=True,
    ),
    Setting(
        "candidates",
        Chunks(example=DEFAULT_CANDIDATES),
        DEFAULT_CANDIDATES,
        "How many chunks the retriever gives the reranker for each question "
        f"(default: {DEFAULT_CANDIDATES})",
        gold=True,
        setup=True,
    ),
    Setting(
        "loader",
        Function(),
        None,
        "A function module:attr that reads a corpus file (loader(path) -> str), for files "
        "that are not UTF-8 text",
        gold=True,
        setup=True,
    ),
    Setting(
        "reference_loader",
        Function(),
        None,
        "A second, independent function module:attr, loader(path) -> str, that reads the "
        "source files that are not text (PDF, DOCX) to tell a fact the loader lost (unparsed) "
        "from one the corpus never had (absent)",
        gold=True,
        setup=True,
    ),
    Setting(
        "depth",
        Whole(0, MAX_DEPTH),
        DEFAULT_DEPTH,
        "How many results a ranked_out case asks the retriever for, to find where the chunk "
        f"that holds its span ranks (default: {DEFAULT_DEPTH}; 0 turns the second call off)",
    ),
    Setting(
        "length",
        Function(),
        None,
        "A function module:attr, length(text) -> int, that measures spans and chunks in the "
        "geometry summary (e.g. in tokens); default: characters",
    ),
    Setting(
        "batch_size",
        Whole(1, MAX_BATCH_SIZE),
        DEFAULT_BATCH_SIZE,
        "How many questions go to a retriever's search_batch(questions, k) in one call "
        f"(default: {DEFAULT_BATCH_SIZE})",
    ),
    Setting(
        "concurrency",
        Whole(1, MAX_CONCURRENCY),
        1,
        "How many retriever calls may be in flight at once, in threads; the retriever must "
        "then be thread-safe (default: 1)",
    ),
    Setting(
        "repeat",
        Whole(1, MAX_REPEAT),
        1,
        "How many times each question is asked, through the same batches and threads; a case "
        "whose verdict or rank differs between them is unstable, its outcome the worst "
        "(default: 1)",
    ),
    Setting(
        "unstable",
        Choice(POLICIES),
        "strict",
        "What becomes of an unstable case: 'strict' (default) takes its worst result; "
        "'quarantine' makes it an expected failure, left out of the baseline comparison",
    ),
    Setting(
        "xdist_group",
        Switch(),
        True,
        "Under pytest-xdist's --dist load, send all cases of a gold file to one worker, so "
        "that each worker builds only the suites of the files it runs (default: true)",
    ),
    Setting(
        "html",
        FilePath(),
        None,
        "The HTML page to write, relative to the rootdir (the command line's "
        "--chunkrecall-html wins)",
    ),
    Setting(
        "annotations",
        Choice(("auto", "off")),
        "auto",
        "GitHub workflow commands on the gold line of each failing case when "
        "GITHUB_ACTIONS=true: auto (default) or off",
    ),
    Setting(
        "baseline",
        FilePath(),
        None,
        "The baseline file, relative to the rootdir (the command line's "
        "--chunkrecall-baseline wins)",
    ),
    Setting(
        "gate",
        Choice(GATES),
        "cases",
        "How a baseline comparison fails the run: 'cases' (default) fails on every regression; "
        "'significant' makes regressions expected failures and fails only when the hit-rate is "
        "significantly worse (exact McNemar test on the paired cases)",
    ),
    Setting(
        "alpha",
        # Above 0.5 a one-sided test could call one change both worse and better.
        Number(0.0, 0.5, above_low=True),
        0.05,
        "Significance level of the gate and of the sweep's evidence, above 0 and at most 0.5 "
        "(default: 0.05)",
    ),
    Setting(
        "min_effect",
        Number(0.0, 100.0),
        0.0,
        "With chunkrecall_gate = significant, fail only on a drop of at least this many "
        "percentage points of hit-rate (default: 0)",
    ),
    Setting(
        "max_drop",
        Number(0.0, 100.0),
        None,
        "Fail the run when the hit-rate falls by more than this many percentage points "
        "against the baseline (default: 0 with chunkrecall_gate = cases, no limit with "
        "significant)",
    ),
    Setting(
        "max_context_growth",
        Number(0.0, MAX_GROWTH_PERCENT),
        None,
        "Fail the run when the mean context to the answer grows by more than this many "
        "percent against the baseline, over the cases hit in both runs, and the sign test "
        "is below chunkrecall_alpha (default: no limit)",
    ),
    Setting(
        "min_hit_rate",
        Number(0.0, 1.0),
        None,
        "Fail the run when the hit-rate is below this share, from 0 to 1",
    ),
)

BY_NAME: Mapping[str, Setting] = {setting.name: setting for setting in SETTINGS}
"""Each row by its name."""

GOLD_KEYS: tuple[str, ...] = tuple(setting.name for setting in SETTINGS if setting.gold)
"""The settings a gold file may set, at its top, in table order."""

SETUP_KEYS: tuple[str, ...] = tuple(setting.name for setting in SETTINGS if setting.setup)
"""What the baseline records of each gold file's setup, and what a sweep may vary."""

FUNCTION_KEYS: tuple[str, ...] = tuple(
    setting.name for setting in SETTINGS if isinstance(setting.kind, Function)
)
"""Settings that name a function as ``module:attr``."""


def check_setting(key: str, value: Any) -> Checked:
    """Validate one setting's value through its row; returns (kept value, problem or None).

    Gold files, ini files and code all go through here, so all say the same thing.
    """
    return BY_NAME[key].check(value)


def resolved_k(override: int | None, *given: int | None) -> int:
    """k: ``--chunkrecall-k``, else the first of ``given`` that is set (a case's own k, then the
    gold file's or the ini file's), else the default."""
    return override or next((k for k in given if k), DEFAULT_K)


def candidates_problem(
    candidates: int, k: int, *, k_from: str | None = None, named: str = "candidates"
) -> str | None:
    """Why a first stage of ``candidates`` chunks cannot feed a reranker asked for ``k``
    (set by ``k_from``), or ``None``; ``named`` is how the message names the candidates."""
    if k <= candidates:
        return None
    given = f", {k_from}" if k_from else ""
    return (
        f"is less than k ({k}{given}): the reranker picks the top k from the candidates; "
        f"raise {named} or lower k"
    )
