"""The one check of what a file the plugin or its commands write may replace.

Every writer (pytest's JSON report, Markdown and HTML page, the baseline, the outputs of
``merge``, ``compare``, ``import`` and ``export``, and the ``$GITHUB_STEP_SUMMARY`` a run
appends to) names its path to :func:`check` before anything is evaluated or written.
The path is followed through symlinks first: a link onto a corpus document is that
document. Then:

- a project file is never replaced, whatever the options say: the ini files,
  ``conftest.py`` and any Python source, anything inside ``.git/``, every gold file
  (collected, named on the command line, or where the next run would collect one) and
  the corpus of every gold file, however it was named (ini ``chunkrecall_corpus`` or a
  gold file's ``corpus:``);
- the run's inputs and the files other plugins of the run write (``--junitxml``,
  ``--json-report-file``, pytest-html's ``--html``) are never one of its outputs;
- something that is no regular file (a folder, a FIFO, a device, a symlink loop) or a
  name the file system cannot hold is refused, as is a folder the user cannot write;
- an existing file of another kind (one this plugin did not write) is replaced only with
  ``--force``.

What is protected is surveyed once per run or command (:func:`survey`) into a
:class:`Protected` value; the check itself reads nothing but the path's own head.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from .corpus import matches_pattern
from .discovery import is_gold_file
from .errors import ChunkrecallError
from .files import MARKER, lock_path, not_regular, real_target

Holds = Literal["report", "markdown", "html", "baseline", "summary", "file"]
"""What a writer puts at its path: which existing file it may replace without ``--force``
(a report, Markdown or HTML page it wrote before), or that it appends (``summary``)."""

# The project's own files, by name: no output lands on one, wherever it lies.
PROJECT_FILES = frozenset(
    ("pyproject.toml", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "conftest.py")
)
# pytest's default norecursedirs: the folders a survey for gold files does not walk
NORECURSE = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")
_GOLD_SUFFIXES = (".yaml", ".yml")
_NAME_MAX = 255  # bytes in one name, where the file system does not say
REPORT_KEY = '"chunkrecall_report"'
_SNIFF = 4096  # the bytes read to tell one of our outputs from someone else's file


@dataclass(frozen=True)
class Rule:
    """Files named by a glob ``pattern`` relative to ``base``, and what they are."""

    pattern: str
    base: Path
    what: str  # e.g. "the corpus of gold/policies.yaml (corpus: '../docs/*.md')"

    def names(self, path: Path) -> bool:
        """Whether the pattern names ``path``, which need not exist yet."""
        return matches_pattern(path, self.pattern, self.base) or matches_pattern(
            path, self.pattern, real_target(self.base)
        )


@dataclass(frozen=True)
class Protected:
    """What no output of one run or command may replace.

    ``files`` maps real paths to what they are: gold files, the ini file, the run's inputs.
    ``taken`` maps real paths to the other writer that writes there (``--junitxml``).
    ``gold_folders``: a YAML file in a folder named ``gold`` is a gold file (pytest's
    default discovery), unless this writer writes gold files itself (``import``).
    ``recorded`` maps real paths to the corpus documents a report names, by gold file: the
    corpus as the run resolved it, whichever ini file or key named it.
    """

    rootdir: Path
    writer: str = "the run"  # the sentence's subject: "the run", "compare", …
    files: Mapping[Path, str] = field(default_factory=dict)
    rules: tuple[Rule, ...] = ()
    taken: Mapping[Path, str] = field(default_factory=dict)
    gold_folders: bool = True
    recorded: Mapping[Path, str] = field(default_factory=dict)

    def what(self, path: Path) -> str | None:
        """What project file ``path`` (its own name, or its real target) is, or ``None``."""
        path = Path(os.path.abspath(path))
        target = real_target(path)
        said = self.files.get(target)
        if said is not None:
            return said
        if ".git" in target.parts or ".git" in path.parts:
            return "it is inside .git, the repository's own data"
        for name in {target.name, path.name}:
            if name in PROJECT_FILES:
                return f"it is the project's {name}"
        if ".py" in (target.suffix, path.suffix):
            return "it is a Python source file"
        if self.gold_folders and self._in_gold_folder(target):
            return "it is a gold file (a YAML file in a folder named gold)"
        for rule in self.rules:
            if rule.names(path) or rule.names(target):
                return f"it is {rule.what}"
        return self.recorded.get(target)

    def _in_gold_folder(self, target: Path) -> bool:
        if target.suffix not in _GOLD_SUFFIXES:
            return False
        root = real_target(self.rootdir)
        return target.is_relative_to(root) and "gold" in target.parent.relative_to(root).parts


@dataclass(frozen=True)
class OutputPath:
    """A file about to be written: its path, how messages name it, and what it holds."""

    path: Path
    name: str  # e.g. "--chunkrecall-report r.json", with the path quoted when it must be
    holds: Holds = "file"


def quoted(path: Path | str) -> str:
    """``path`` as a message shows it: as written, or quoted when it holds a line break,
    a control character or spaces at its ends, so that the message stays one line."""
    text = str(path)
    if text.isprintable() and text == text.strip():
        return text
    return repr(text)


def check(output: OutputPath, protected: Protected, *, force: bool, force_option: str) -> Path:
    """The real path a write of ``output`` replaces, after checking that it may.

    Raises :class:`ChunkrecallError` naming the output and what it is, with what to do:
    ``force_option`` (``--force``, ``--chunkrecall-force``) is offered, and honoured, only
    for an existing file of another kind; a project file is refused whatever the options.
    """
    name, path = output.name, output.path
    problem = _name_problem(path)
    if problem:
        raise ChunkrecallError(f"{name}: {problem}; give a shorter path")
    # the step summary is named by the environment, not by an option
    elsewhere = (
        "unset it, or name another file (the Markdown summary is appended to it)"
        if output.holds == "summary"
        else "give another path"
    )
    owned = protected.what(path)
    if owned:
        raise ChunkrecallError(
            f"{name}: {owned}, and {protected.writer} never writes over the project's own "
            f"files, even with {force_option}; {elsewhere}"
        )
    target = real_target(path)
    other = protected.taken.get(target)
    if other:
        raise ChunkrecallError(f"{name}: it is {other}; give each output its own path")
    if output.holds == "summary":
        return target  # appended to; what it is said when appending
    problem = _place_problem(path)
    if problem:
        raise ChunkrecallError(f"{name}: {problem}")
    foreign = None if force else _foreign(path, output.holds)
    if foreign:
        raise ChunkrecallError(
            f"{name}: {foreign}; give another path, or add {force_option} to replace it"
        )
    return target


def lock_problem(path: Path) -> str | None:
    """What stops the lock file of ``path`` (see :func:`files.locked`) from being made."""
    lock = lock_path(path)
    problem = not_regular(lock)
    return f"its lock file {quoted(lock)} is in the way: {problem}; remove it" if problem else None


def _foreign(path: Path, holds: Holds) -> str | None:
    if holds == "report":
        return foreign_content(path, report=True)
    if holds in ("markdown", "html"):
        return foreign_content(path, report=False)
    if holds == "file" and os.path.lexists(path):
        return "it exists"
    return None  # a baseline says itself whether it is one, when read


def foreign_content(path: Path, *, report: bool) -> str | None:
    """Why the existing file ``path`` is not one this plugin wrote, or ``None`` (also when it
    does not exist or is empty).

    A JSON report names itself in its first key; a Markdown or HTML file carries
    :data:`MARKER` near its top or its end.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF)
            if not report and handle.read(1):  # Markdown ends with the marker
                handle.seek(-_SNIFF, os.SEEK_END)
                head += handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be read to check what it holds: {exc.strerror or exc}"
    return _not_ours(head.decode("utf-8", errors="replace"), report=report)


def _not_ours(head: str, *, report: bool) -> str | None:
    if not head.strip():
        return None
    if report:
        if head.lstrip().startswith("{") and REPORT_KEY in head:
            return None
        return "it exists and is not a chunkrecall report"
    if MARKER in head:
        return None
    return "it exists and was not written by pytest-chunkrecall"


def _place_problem(path: Path) -> str | None:
    """Why no regular file can be written at ``path``, or ``None``."""
    problem = not_regular(path)
    if problem:
        return f"{problem}; give the path of a regular file (it is replaced whole)"
    target = real_target(path)
    folder = target.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        return f"{quoted(folder)} is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {quoted(folder)} is read-only for this user"
    if target.exists() and not os.access(target, os.W_OK):
        return f"{quoted(target)} is read-only for this user"
    return None


def _name_problem(path: Path) -> str | None:
    """A name in ``path`` longer than the file system holds (said before any ``stat``
    fails on it), or a path it cannot otherwise examine."""
    folder = Path(os.path.abspath(path))
    while not os.path.isdir(folder) and folder != folder.parent:
        folder = folder.parent
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = _NAME_MAX
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > limit:
            shown = part if len(part) <= 40 else f"{part[:20]}…{part[-12:]}"
            return (
                f"the name {quoted(shown)} is {size:,} bytes long, and this file system "
                f"holds names of at most {limit}"
            )
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return "the path is longer than this file system holds"
        if exc.errno not in (errno.ENOTDIR, errno.ELOOP, errno.EACCES):
            return f"it cannot be examined: {exc.strerror or exc}"
    return None


def survey(
    rootdir: Path,
    *,
    writer: str,
    search: Iterable[Path] = (),
    gold_files: Iterable[tuple[Path, str]] = (),
    rules: Sequence[Rule] = (),
    files: Mapping[Path, str] | None = None,
    taken: Mapping[Path, str] | None = None,
    norecurse: Sequence[str] = NORECURSE,
    gold_folders: bool = True,
    replaced: Iterable[Path] = (),
    documents: Mapping[str, Iterable[str]] | None = None,
) -> Protected:
    """What a writer may not replace in the project at ``rootdir``.

    ``gold_files`` are the gold files already known (with what to call them); gold files
    in ``gold`` folders under the ``search`` paths (not walking into ``norecurse``
    folders, as pytest does not) are found too. Each one's ``corpus:`` becomes a rule,
    beside the ``rules`` given (such as ini ``chunkrecall_corpus``). ``files``:
    other files to protect (the ini file, a command's inputs), by path. ``replaced``: the
    gold files this writer writes itself (an import), which it may replace with their corpus.
    ``documents``: the corpus documents a report records, by gold file, both as ids relative
    to ``rootdir``.
    """
    protected: dict[Path, str] = {real_target(path): what for path, what in (files or {}).items()}
    every_rule = list(rules)
    found = dict(gold_files)
    for path in _gold_files_under(search, rootdir, norecurse):
        found.setdefault(path, "a gold file")
    own = {real_target(path) for path in replaced}
    for path, what in found.items():
        if real_target(path) in own:
            continue
        protected.setdefault(real_target(path), f"it is {what}")
        shown = _relative(path, rootdir)
        every_rule += [
            Rule(pattern, path.parent, f"the corpus of {shown} (corpus: {pattern!r})")
            for pattern in corpus_patterns(path)
        ]
    return Protected(
        rootdir=rootdir,
        writer=writer,
        files=protected,
        rules=tuple(every_rule),
        taken={real_target(path): what for path, what in (taken or {}).items()},
        gold_folders=gold_folders,
        recorded={
            real_target(rootdir / document): f"it is a corpus document of {gold_file}"
            for gold_file, ids in (documents or {}).items()
            for document in ids
        },
    )


def _gold_files_under(
    search: Iterable[Path], rootdir: Path, norecurse: Sequence[str]
) -> Iterator[Path]:
    """The gold files pytest's default discovery collects under the ``search`` paths."""
    for top in search:
        if top.is_file():
            continue  # a file named on the command line is the caller's to name
        for folder, folders, names in os.walk(top):
            folders[:] = sorted(
                name
                for name in folders
                if not any(fnmatch.fnmatch(name, pattern) for pattern in norecurse)
            )
            here = Path(folder)
            if not here.is_relative_to(rootdir) or "gold" not in here.relative_to(rootdir).parts:
                continue
            for name in sorted(names):
                path = here / name
                if path.suffix in _GOLD_SUFFIXES and is_gold_file(path):
                    yield path


def corpus_patterns(path: Path) -> list[str]:
    """The glob patterns of the gold file ``path``'s top-level ``corpus:`` key (relative
    to its folder), or ``[]``: read from the parser's events, as discovery reads keys.

    The events end at ``cases`` (most of a large file), unless a top-level ``corpus:``
    line follows it.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        later = _CORPUS_LINE.search(text) is not None
        return list(_corpus_values(yaml.parse(text, Loader=_LOADER), through_cases=later))
    except (OSError, yaml.YAMLError):
        return []  # the collector says what is wrong with it


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CORPUS_LINE = re.compile(r"^cases\s*:.*^corpus\s*:", re.MULTILINE | re.DOTALL)


def _corpus_values(events: Iterable[yaml.Event], *, through_cases: bool) -> Iterator[str]:
    depth, at_key, in_corpus = 0, True, False
    for event in events:
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            depth += 1
            at_key = True
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            depth -= 1
            if depth == 1:
                in_corpus, at_key = False, True
            if depth == 0:
                return
        elif isinstance(event, yaml.ScalarEvent) and depth == 1:
            if at_key:
                in_corpus = event.value == "corpus"
                if event.value == "cases" and not through_cases:
                    return
            elif in_corpus:
                yield str(event.value)
                in_corpus = False
            at_key = not at_key
        elif isinstance(event, yaml.ScalarEvent) and depth == 2 and in_corpus:
            yield str(event.value)
        elif isinstance(event, yaml.AliasEvent) and depth == 1:
            at_key = not at_key


def _relative(path: Path, rootdir: Path) -> str:
    try:
        return path.relative_to(rootdir).as_posix()
    except ValueError:
        return str(path)
