"""shopkb.chroma against a real Chroma server, started here on 127.0.0.1 and stopped afterwards.

The server is Chroma's own (``chroma run`` from the chromadb package) over a
temporary folder; shopkb hands it wordllama vectors, so it runs offline.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from notes import NOTES, Note

from shopkb.ingest import load_passages

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
pytestmark = pytest.mark.skipif(
    find_spec("chromadb") is None or find_spec("wordllama") is None,
    reason="shopkb.chroma needs chromadb and wordllama: pip install -e '.[chroma]'",
)
# The chroma command, run by this interpreter: the console script may not be on PATH.
CHROMA = "import sys; from chromadb.cli.cli import app; sys.argv[0] = 'chroma'; app()"
STARTUP_SECONDS = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def heartbeat(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a Chroma server over a fresh folder, up until the module's tests are done."""
    folder = tmp_path_factory.mktemp("chroma")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (folder / "server.log").open("wb")
    command = [sys.executable, "-c", CHROMA, "run", "--path", str(folder / "vectors")]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not heartbeat(url):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                output = (folder / "server.log").read_text(errors="replace")
                pytest.fail(f"the Chroma server did not answer at {url}:\n{output[-3000:]}")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def chroma() -> ModuleType:
    from shopkb import chroma

    return chroma


def test_search_ranks_by_meaning(server: str, chroma: ModuleType) -> None:
    index = chroma.build(NOTES, url=server)
    assert index.search("How should I clean my bedding?", 1) == [NOTES[2]]
    assert index.search("Do vouchers run out?", 1) == [NOTES[1]]


def test_cosines_are_the_in_process_ones(server: str, chroma: ModuleType) -> None:
    from shopkb import dense

    question = "Is delivery free?"
    served = chroma.build(NOTES, url=server).scored(question, 4)
    local = dense.build(NOTES).scored(question, 4)
    assert [p for p, _ in served] == [p for p, _ in local]
    assert [s for _, s in served] == pytest.approx([s for _, s in local], abs=1e-5)


def test_a_batch_is_one_query_with_the_answers_of_single_ones(
    server: str, chroma: ModuleType
) -> None:
    index = chroma.build(NOTES, url=server)
    questions = ["Is delivery free?", "Do vouchers run out?", "When does the showroom open?"]
    assert index.search_batch(questions, 2) == [index.search(q, 2) for q in questions]
    assert index.search_batch([], 2) == []


def test_equal_distances_go_to_the_earlier_passage(server: str, chroma: ModuleType) -> None:
    notes = [Note("linen care"), Note("linen care"), Note("linen care")]
    found = chroma.build(notes, url=server).search("linen", 3)
    assert [id(note) for note in found] == [id(note) for note in notes]


def test_k_and_an_empty_index(server: str, chroma: ModuleType) -> None:
    assert len(chroma.build(NOTES, url=server).search("linen", 9)) == len(NOTES)
    assert chroma.build(NOTES, url=server).search("linen", 0) == []
    assert chroma.build([], url=server).search("linen", 3) == []


def test_the_same_passages_fill_one_collection(server: str, chroma: ModuleType) -> None:
    first, again = chroma.build(NOTES, url=server), chroma.build(NOTES, url=server)
    other = chroma.build(NOTES[:2], url=server)
    assert first.collection.name == again.collection.name != other.collection.name
    assert again.collection.count() == len(NOTES)
    assert other.collection.count() == 2


def test_a_url_that_is_not_one_says_what_is_expected(chroma: ModuleType) -> None:
    with pytest.raises(
        ValueError, match=r"url must look like http://127\.0\.0\.1:8000, not '8000'"
    ):
        chroma.client("8000")


def test_without_a_server_the_error_names_the_url_and_how_to_start_one(
    chroma: ModuleType,
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ConnectionError, match=f"no Chroma server answers at {url} ") as caught:
        chroma.build(NOTES, url=url)
    assert str(caught.value).endswith(
        f"chroma run --path ./vectors --host 127.0.0.1 --port {url.rsplit(':', 1)[1]}"
    )


def test_without_chromadb_the_error_says_what_to_install(
    chroma: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "chromadb", None)
    with pytest.raises(ImportError, match=r"chromadb, which is not installed; pip install -e"):
        chroma.build(NOTES)


def test_the_articles_rank_as_the_in_process_dense_index(server: str, chroma: ModuleType) -> None:
    from shopkb import dense

    passages = load_passages(DOCS)
    questions = [case["question"] for case in gold_cases()]
    served = chroma.build(passages, url=server).search_batch(questions, 3)
    local = dense.build(passages)
    assert served == [local.search(question, 3) for question in questions]


def gold_cases() -> list[dict[str, Any]]:
    import yaml

    return [
        case
        for path in sorted((ROOT / "gold").glob("*.yaml"))
        for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    ]


def gold_run(server: str, report: Path, concurrency: int) -> dict[str, Any]:
    """The example's gold suite with shopkb.chroma as its retriever, and its JSON report."""
    args = [
        "gold",
        "--strict-config",
        "-o",
        "chunkrecall_retriever=shopkb.chroma:build",
        "-o",
        f"chunkrecall_retriever_args={json.dumps({'url': server})}",
        "-o",
        f"chunkrecall_concurrency={concurrency}",
        "--chunkrecall-report",
        str(report),
    ]
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    finished = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert report.exists(), finished.stdout + finished.stderr
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    setups = {(gold["retriever"], str(gold["retriever_args"])) for gold in data["gold_files"]}
    assert setups == {("shopkb.chroma:build", str({"url": server}))}, finished.stdout
    return data


def test_the_gold_suite_gives_the_same_verdicts_with_eight_queries_in_flight(
    server: str, tmp_path: Path
) -> None:
    serial = gold_run(server, tmp_path / "serial.json", 1)
    concurrent = gold_run(server, tmp_path / "concurrent.json", 8)
    verdicts = [
        {c["nodeid"]: (c["verdict"], c["rank"], c["outcome"]) for c in run["cases"]}
        for run in (serial, concurrent)
    ]
    assert len(verdicts[0]) == len(gold_cases())
    assert verdicts[1] == verdicts[0]
    assert concurrent["totals"] == serial["totals"]
