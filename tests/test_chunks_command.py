"""``python -m pytest_chunkrecall chunks``: the boundaries of a gold file's configuration."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import pytest

from .conftest import POLICIES, Shop
from .html_site import html_site, loaded
from .import_support import command


@pytest.fixture
def project(shop: Shop, monkeypatch: pytest.MonkeyPatch) -> Iterator[Shop]:
    shop.ini("chunkrecall_chunker_args = {size: 80, overlap: 0}\n")
    shop.gold("corpus: ../docs/policies.md\ncases:\n  - question: q\n    needle: 30 days\n")
    monkeypatch.chdir(shop.path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command adds the ini's pythonpath
    yield shop
    sys.modules.pop("rag", None)  # the project's module, which later scenarios write anew


def test_each_chunk_is_listed_with_offsets_length_and_edge_words(capsys, project):
    status, out, err = command(capsys, "chunks", "gold/policies.yaml")
    assert status == 0, err
    lines = out.splitlines()
    # the ini file's chunker_args are those the gold file resolves to
    assert lines[0] == (
        "chunks of gold/policies.yaml: chunker pytest_chunkrecall.chunkers:fixed_size"
        "(size=80, overlap=0), 7 chunks in 1 document"
    )
    assert lines[1] == "docs/policies.md (502 chars):"
    first, last = " ".join(POLICIES[:80].split()[:4]), " ".join(POLICIES[:80].split()[-4:])
    assert lines[2] == f"  chunk 0 [0:80] 80 chars: {first!r} … {last!r}"
    assert lines[-1].startswith("  chunk 6 [480:502] 22 chars: ")


def test_around_shows_the_boundary_inside_a_passage_and_json_gives_the_same(capsys, project):
    status, out, _ = command(
        capsys, "chunks", "gold/policies.yaml", "--around", "refund window is 30 days"
    )
    assert status == 0
    start = POLICIES.index("refund window is 30 days")
    assert f"  'refund window is 30 days' at [{start}:{start + 24}]: 1 boundary inside it" in out
    assert "    offset 80: …refund w|indow is 30 days…" in out
    assert "chunk 0 [0:80]" in out and "chunk 1 [80:160]" in out and "chunk 2" not in out
    status, out, _ = command(
        capsys, "chunks", "gold/policies.yaml", "--around", "refund window is 30 days", "--json"
    )
    data = json.loads(out)
    assert data["around"]["places"] == [
        {"doc": "docs/policies.md", "start": start, "end": start + 24, "cuts": [80]}
    ]
    assert [c["index"] for c in data["documents"][0]["chunks"]] == [0, 1]
    assert data["documents"][0]["chunks"][1] == {
        "index": 1, "start": 80, "end": 160, "length": 80,
        "first_words": " ".join(POLICIES[80:160].split()[:4]),
        "last_words": " ".join(POLICIES[80:160].split()[-4:]),
    }  # fmt: skip


def test_corpus_glob_without_a_gold_file(capsys, project):
    status, out, _ = command(capsys, "chunks", "--corpus", "docs/care.md", "--json")
    assert status == 0
    data = json.loads(out)
    assert (data["source"], data["chunker_args"]) == ("--corpus", {"size": 80, "overlap": 0})
    assert [d["doc"] for d in data["documents"]] == ["docs/care.md"]


@pytest.mark.parametrize(
    ("args", "gold", "message"),
    [
        (["gold/nope.yaml"], None, "error: gold file gold/nope.yaml does not exist"),
        (
            ["gold/policies.yaml"],
            "corpus: ../docs/policies.md\nchunker: rag:chunkr\ncases:\n  - question: q\n    needle: x\n",
            "error: gold/policies.yaml:2: chunker 'rag:chunkr': 'rag' has no attribute 'chunkr'",
        ),
        (["gold/policies.yaml", "--around", "no such passage"], None,
         "error: 'no such passage' occurs in no document of gold/policies.yaml"),
        ([], None, "error: give a gold file or --corpus GLOB"),
    ],
)  # fmt: skip
def test_clear_errors(capsys, project, args, gold, message):
    if gold is not None:
        project.gold(gold)
    status, out, err = command(capsys, "chunks", *args)
    assert status in (1, 2)
    assert err.startswith(message), err
    assert "Traceback" not in err + out


@pytest.fixture
def site(shop: Shop, monkeypatch: pytest.MonkeyPatch) -> Iterator[Shop]:
    html_site(shop)
    shop.gold(
        "corpus: ../site/*.html\ncases:\n  - question: q\n    needle: 30 days\n", "gold/site.yaml"
    )
    monkeypatch.chdir(shop.path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield shop
    sys.modules.pop("site_loader", None)


def test_chunks_are_those_the_tests_use_with_the_loader_applied(capsys, site):
    status, out, err = command(capsys, "chunks", "gold/site.yaml", "--json")
    assert status == 0, err
    data = json.loads(out)
    texts = {doc: loaded(site, doc) for doc in ("site/returns.html", "site/shipping.html")}
    assert {d["doc"]: d["chars"] for d in data["documents"]} == {
        doc: len(text) for doc, text in texts.items()
    }
    words = [
        c["first_words"] + " " + c["last_words"] for d in data["documents"] for c in d["chunks"]
    ]
    assert not [text for text in words if "<" in text]
    _, report = site.report()
    assert sum(len(d["chunks"]) for d in data["documents"]) == report["gold_files"][0]["chunks"]


def test_around_finds_a_passage_that_markup_interrupts_in_the_source(capsys, site):
    status, out, err = command(
        capsys, "chunks", "gold/site.yaml", "--around", "refund window is 30 days"
    )
    assert status == 0, err
    assert "'refund window is 30 days' at [" in out


def test_corpus_outside_the_roots_is_refused_with_the_error_pytest_gives(
    capsys, site, tmp_path_factory
):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "hosts.txt").write_text("127.0.0.1 localhost\n", encoding="utf-8")
    site.gold(
        f"corpus: {outside}/host*\ncases:\n  - question: q\n    needle: localhost\n",
        "gold/site.yaml",
    )
    status, out, err = command(capsys, "chunks", "gold/site.yaml")
    assert status == 2 and "localhost" not in out
    result = site.run("gold/site.yaml")
    collected = [line for line in result.stdout.lines if "lies outside the rootdir" in line]
    assert collected, result.stdout.str()
    message = err.strip().removeprefix("error: ")
    assert message.startswith("gold/site.yaml:1: corpus file ")
    assert any(line.endswith(message) for line in collected), (message, collected)


def test_corpus_option_errors_name_the_option_used(capsys, project):
    status, out, err = command(capsys, "chunks", "--corpus", "/etc/host*")
    assert out == ""
    assert status == 2
    assert err.startswith("error: --corpus: corpus file /etc/host"), err
    assert "chunkrecall_corpus " not in err and "ini option chunkrecall_corpus:" not in err


def test_a_folder_or_a_fifo_is_named_for_what_it_is(capsys, project):
    status, _, err = command(capsys, "chunks", "gold")
    assert status == 2
    assert err.startswith(
        "error: gold file gold is a folder, not a file; give the gold YAML files in it"
    ), err
    os.mkfifo(project.path / "gold" / "pipe.yaml")
    status, _, err = command(capsys, "chunks", "gold/pipe.yaml")
    assert status == 2
    assert err.startswith("error: gold file gold/pipe.yaml: it is a FIFO"), err


@pytest.mark.parametrize("text", ["", "  \n"])
def test_around_an_empty_text_is_refused(capsys, project, text):
    status, out, err = command(capsys, "chunks", "gold/policies.yaml", "--around", text)
    assert (status, out) == (2, "")
    assert "has no text to look for; give a passage" in err
    assert "occurs in no document" not in err


def test_pytest_9_native_toml_table_configures_the_command(capsys, project):
    (project.path / "pytest.ini").unlink()
    project.write(
        "pyproject.toml",
        '[tool.pytest]\npythonpath = ["."]\n'
        'chunkrecall_corpus = ["docs/care.md"]\n'
        "chunkrecall_chunker_args = {size = 50, overlap = 10}\n",
    )
    project.gold("cases:\n  - question: q\n    needle: saddle soap\n")
    status, out, err = command(capsys, "chunks", "gold/policies.yaml", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["chunker_args"] == {"size": 50, "overlap": 10}
    assert [d["doc"] for d in data["documents"]] == ["docs/care.md"]
