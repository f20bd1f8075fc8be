"""The run's options, read from the command line and the ini file and checked once, up front."""

from __future__ import annotations

import glob
import numbers
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from ..baseline import saved as baseline
from ..baseline.gating import GATES, GateSettings
from ..baseline.saved import Baseline
from ..config.limits import k_problem
from ..config.resolve import resolve
from ..config.settings import (
    DEFAULT_CANDIDATES,
    DEFAULT_DEPTH,
    DEFAULT_K,
    SETTING_KEYS,
    Settings,
    check_setting,
)
from ..corpus import ROOTS_OPTION, corpus_roots, matches_pattern
from ..discovery import gold_pattern_problem
from ..errors import USER_FAULTS, ChunkrecallError, raised, shown
from ..evaluation.repeat import MAX_REPEAT, POLICIES, Policy
from ..evaluation.suite import Component
from ..files import foreign_content, not_regular, output_problem, real_target
from ..gold.safe_yaml import load_inline
from ..run import sweep
from .ini import ini_number, ini_switch, ini_value, ini_whole, warn_at_ini

DEFAULT_BATCH_SIZE = 64
MAX_BATCH_SIZE = 100_000
MAX_CONCURRENCY = 1_024  # threads, each waiting on one retriever call
# the project's own files, by name: no output of the run may land on one
PROJECT_FILES = frozenset(("pyproject.toml", "pytest.ini", "tox.ini", "setup.cfg", "conftest.py"))


@dataclass(frozen=True)
class BaselineSetup:
    """Where the baseline is and what this run does with it."""

    path: Path | None = None
    name: str = ""
    update: bool = False
    loaded: Baseline | None = None  # what this run compares with (or, when updating, merges into)
    missing: bool = False
    gates: GateSettings = field(default_factory=GateSettings)


@dataclass(frozen=True)
class Options:
    """Everything the command line and the ini file say, validated."""

    ini: Settings = field(default_factory=Settings)
    loader: Component | None = None
    reference_loader: Component | None = None
    length: Component | None = None
    k_override: int | None = None
    sweep_spec: str | None = None
    sweep: list[dict[str, Any]] | None = None
    gold_files: set[Path] | None = None  # None: the default, YAML inside a folder named gold
    baseline: BaselineSetup = field(default_factory=BaselineSetup)
    report: str | None = None
    markdown: str | None = None
    html: str | None = None
    depth: int = DEFAULT_DEPTH
    corpus_roots: tuple[Path, ...] = ()  # where corpus files may lie (the rootdir first)
    batch_size: int = DEFAULT_BATCH_SIZE
    concurrency: int = 1
    xdist_group: bool = True  # under xdist's --dist load, a gold file's cases on one worker
    repeat: int = 1  # how many times each question is asked
    unstable: Policy = "strict"

    @property
    def shows_every_holder(self) -> bool:
        """Whether an output lists every chunk that holds a hit's span: the JSON report
        (what ``export trec`` reads) and the HTML page do; the terminal never does."""
        return self.report is not None or self.html is not None


OPTIONS = pytest.StashKey[Options]()
MAX_DEPTH = 10_000  # a deeper list is no longer a ranking question


def read(config: pytest.Config) -> Options:
    """Read and check every chunkrecall option; raises ``pytest.UsageError`` naming the bad one."""
    k = config.getoption("chunkrecall_k")
    if k is not None and k_problem(k):
        raise pytest.UsageError(f"--chunkrecall-k {k_problem(k)}")
    spec = config.getoption("chunkrecall_sweep")
    try:
        settings = sweep.parse(spec) if spec is not None else None
    except ValueError as exc:
        raise pytest.UsageError(f"--chunkrecall-sweep {spec!r}: {exc}") from None
    gold_files = _gold_files(config)
    setup = _baseline_setup(config)
    force = bool(config.getoption("chunkrecall_force"))
    report = _output(config, "--chunkrecall-report", gold_files, force=force, report=True)
    markdown = _output(config, "--chunkrecall-markdown", gold_files, force=force)
    html = _output(config, "--chunkrecall-html", gold_files, force=force, ini="chunkrecall_html")
    _one_file_each(config, setup, report=report, markdown=markdown, html=html)
    ini = _ini_settings(config)
    _check_candidates(ini, k)
    return Options(
        ini=ini,
        loader=_function(config, "loader", what="loader"),
        reference_loader=_function(config, "reference_loader", what="reference loader"),
        length=_length(config),
        k_override=k,
        sweep_spec=spec,
        sweep=settings,
        gold_files=gold_files,
        baseline=setup,
        report=report,
        markdown=markdown,
        html=html,
        depth=ini_whole(config, "depth", DEFAULT_DEPTH, low=0, high=MAX_DEPTH),
        corpus_roots=corpus_roots(config.rootpath, config.getini(ROOTS_OPTION)),
        batch_size=ini_whole(config, "batch_size", DEFAULT_BATCH_SIZE, low=1, high=MAX_BATCH_SIZE),
        concurrency=ini_whole(config, "concurrency", 1, low=1, high=MAX_CONCURRENCY),
        xdist_group=ini_switch(config, "xdist_group", default=True),
        repeat=ini_whole(config, "repeat", 1, low=1, high=MAX_REPEAT),
        unstable=_unstable(config),
    )


def _unstable(config: pytest.Config) -> Policy:
    """What becomes of an unstable case: ``chunkrecall_unstable``, checked now."""
    value = ini_value(config, "unstable") or "strict"
    for policy in POLICIES:
        if value == policy:
            return policy
    raise pytest.UsageError(
        f"ini option chunkrecall_unstable must be one of {', '.join(POLICIES)}, not {value!r}"
    )


def _check_candidates(ini: Settings, k_override: int | None) -> None:
    """A reranker picks k of the candidates: fewer candidates than k is a usage error."""
    if ini.reranker is None and ini.candidates is None:
        return
    candidates = ini.candidates or DEFAULT_CANDIDATES
    k = k_override or ini.k or DEFAULT_K
    if k > candidates:
        named = "chunkrecall_candidates" if ini.candidates else "the default candidates"
        given = "--chunkrecall-k" if k_override else "chunkrecall_k" if ini.k else "the default k"
        raise pytest.UsageError(
            f"ini option {named} ({candidates}) is less than k ({k}, {given}): the reranker "
            "picks the top k from the candidates; raise chunkrecall_candidates or lower k"
        )


def _function(config: pytest.Config, key: str, *, what: str) -> Component | None:
    """The function an ini option names as ``module:attr``, imported once for the whole run."""
    reference = ini_value(config, key)
    if not reference:
        return None
    try:
        return Component.of(reference, resolve(reference, what=what, where=None))
    except ChunkrecallError as exc:
        raise pytest.UsageError(f"ini option chunkrecall_{key}: {exc}") from None


def _length(config: pytest.Config) -> Component | None:
    """The user's length function, checked on a probe text and guarded for every later call."""
    found = _function(config, "length", what="length function")
    if found is None:
        return None
    user, name = found.obj, found.name

    def length(text: str) -> int:
        try:
            value = user(text)
        except USER_FAULTS as exc:
            raise ChunkrecallError(
                f"length function {name} raised {raised(exc)}",
                where="ini option chunkrecall_length",
            ) from None
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ChunkrecallError(
                f"length function {name} returned {shown(value)}; it must return a whole number, 0 or more",
                where="ini option chunkrecall_length",
            )
        return int(value)

    try:
        length("A probe of two sentences. The second one.")
    except ChunkrecallError as exc:
        raise pytest.UsageError(str(exc)) from None
    return Component.of(name, length)


def _output(
    config: pytest.Config,
    option: str,
    gold_files: set[Path] | None,
    *,
    force: bool,
    report: bool = False,
    ini: str | None = None,
) -> str | None:
    """A file the run will write: refused now if it cannot be, rather than lost at the end,
    and refused if it is the user's own (a project file, or a file this plugin did not write).

    The command line's path is relative to the current folder; an ini option's (``ini``)
    to the rootdir.
    """
    value = config.getoption(option.lstrip("-").replace("-", "_"))
    if value == "":  # given, but empty (an emptied variable in a CI script): no silent skip
        raise pytest.UsageError(f"{option} is empty: give the path of the file to write")
    base = config.invocation_params.dir
    if not value and ini is not None:
        value = ini_value(config, ini.removeprefix("chunkrecall_"))
        base = config.rootpath
        if value:
            value = str(base / value)
    if not value:
        return None
    path = base / value
    problem = output_problem(path)
    if problem:
        raise pytest.UsageError(f"{option} {value}: {problem}")
    owned = _project_file(config, path, gold_files)
    if owned:
        raise pytest.UsageError(
            f"{option} {value}: {owned}, and the run never writes over the project's own "
            "files; give another path"
        )
    foreign = None if force else foreign_content(path, report=report)
    if foreign:
        raise pytest.UsageError(
            f"{option} {value}: {foreign}; give another path, or add --chunkrecall-force "
            "to replace it"
        )
    return str(value)


def _project_file(config: pytest.Config, path: Path, gold_files: set[Path] | None) -> str | None:
    """What of the project's own ``path`` is (the ini file, a gold file, a corpus document,
    source), or ``None`` when it is none of them."""
    target = real_target(path)
    if config.inipath is not None and target == real_target(config.inipath):
        return "it is the ini file of this run"
    if target.name in PROJECT_FILES:
        return f"it is the project's {target.name}"
    if target.suffix == ".py":
        return "it is a Python source file"
    if target.suffix in (".yaml", ".yml"):
        parts = (
            target.relative_to(config.rootpath).parts
            if target.is_relative_to(config.rootpath)
            else ()
        )
        if "gold" in parts[:-1] or (gold_files is not None and target in gold_files):
            return "it is a gold file"
    patterns = config.getini("chunkrecall_corpus") or []
    for pattern in [patterns] if isinstance(patterns, str) else patterns:
        if any(matches_pattern(name, pattern, config.rootpath) for name in (path, target)):
            return f"it is a corpus document (ini option chunkrecall_corpus: {pattern!r})"
    return None


def _one_file_each(
    config: pytest.Config,
    setup: BaselineSetup,
    *,
    report: str | None,
    markdown: str | None,
    html: str | None,
) -> None:
    """Refuse two of the run's files on one path: the last written would replace the others."""
    base = config.invocation_params.dir
    named = [
        (f"--chunkrecall-report {report}", report),
        (f"--chunkrecall-markdown {markdown}", markdown),
        (f"--chunkrecall-html {html}", html),
    ]
    files = [(what, real_target(base / value)) for what, value in named if value]
    if setup.path is not None:
        files.insert(0, (f"the baseline {setup.name}", real_target(setup.path)))
    seen: dict[Path, str] = {}
    for what, target in files:
        if target in seen:
            raise pytest.UsageError(
                f"{seen[target]} and {what} are one file; give each its own path "
                "(nothing was written)"
            )
        seen[target] = what


def _baseline_setup(config: pytest.Config) -> BaselineSetup:
    """Where the baseline is, read now so that a bad one stops the run before any test."""
    gates = _gate_settings(config)
    update = bool(config.getoption("chunkrecall_update_baseline"))
    option = config.getoption("chunkrecall_baseline")
    ini = ini_value(config, "baseline")
    if option:
        path, name = config.invocation_params.dir / option, option
    elif ini:
        path, name = config.rootpath / ini, ini
    elif update:
        raise pytest.UsageError(
            "--chunkrecall-update-baseline needs to know where to write: add "
            "--chunkrecall-baseline PATH, or set the ini option chunkrecall_baseline"
        )
    else:
        return BaselineSetup(gates=gates)
    problem = output_problem(path) if update else not_regular(path)
    if update and not path.parent.is_dir():
        problem = f"the folder {path.parent} does not exist; create it first"
    if problem:
        raise pytest.UsageError(
            f"cannot {'write' if update else 'read'} baseline {name}: {problem}"
        )
    if not path.exists():
        return BaselineSetup(path, name, update, None, not update, gates)
    try:
        loaded = baseline.load(path, name=name)
    except ChunkrecallError as exc:
        if update:
            raise pytest.UsageError(
                f"{exc}\n(the file was left as it is; nothing was written)"
            ) from None
        raise pytest.UsageError(str(exc)) from None
    return BaselineSetup(path, name, update, loaded, False, gates)


def _gate_settings(config: pytest.Config) -> GateSettings:
    """The gates' ini options; a bad one stops the run before any test, naming it."""
    gate = ini_value(config, "gate") or "cases"
    if gate not in GATES:
        raise pytest.UsageError(
            f"ini option chunkrecall_gate must be one of {', '.join(GATES)}, not {gate!r}"
        )
    try:
        alpha = ini_number(config, "alpha", 0.05, 0.0, 0.5)
    except pytest.UsageError:
        alpha = 0.0
    if alpha == 0.0:
        # Above 0.5 a one-sided test could call one change both worse and better.
        raise pytest.UsageError(
            "ini option chunkrecall_alpha must be a number above 0 and at most 0.5, "
            f"not {ini_value(config, 'alpha')!r}"
        )
    return GateSettings(
        gate=gate,
        alpha=alpha,
        min_effect=ini_number(config, "min_effect", 0.0, 0.0, 100.0),
        max_drop=ini_number(config, "max_drop", None, 0.0, 100.0),
        min_hit_rate=ini_number(config, "min_hit_rate", None, 0.0, 1.0),
    )


_INLINE = ("chunker_args", "retriever_args", "reranker_args", "k", "fuzzy_threshold", "candidates")


def _ini_settings(config: pytest.Config) -> Settings:
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key in SETTING_KEYS:
        raw = ini_value(config, key)
        if not raw:
            continue
        option = f"chunkrecall_{key}"
        value: Any = raw
        if key in _INLINE and isinstance(raw, str):
            try:
                value = load_inline(raw, key=option)
            except yaml.YAMLError:
                raise pytest.UsageError(
                    f"ini option {option}: cannot read {shown(raw)} as YAML or JSON"
                ) from None
            except ChunkrecallError as exc:
                raise pytest.UsageError(str(exc)) from None
        if key == "corpus":
            value = list(raw)
        value, problem = check_setting(key, value)
        if problem:
            raise pytest.UsageError(f"ini option {option} {problem}")
        values[key] = value
        origins[key] = f"ini option {option}"
    return Settings(**values, corpus_base=config.rootpath, origins=origins)


def _gold_files(config: pytest.Config) -> set[Path] | None:
    patterns = config.getini("chunkrecall_gold")
    if not patterns:
        return None
    found: set[Path] = set()
    for pattern in patterns:
        matches = [
            Path(match).resolve()
            for match in glob.glob(str(config.rootpath / pattern), recursive=True)
        ]
        problem = gold_pattern_problem(pattern, matches, config.rootpath)
        if problem is not None:
            warn_at_ini(config, pytest.PytestConfigWarning(problem), "chunkrecall_gold")
        found.update(matches)
    return found
