"""``filter:`` reaches the retriever as ``filter=``: chromadb, LangChain and BM25 over metadata."""

from __future__ import annotations

import json

import pytest

from .conftest import assert_no_internals, dedent

pytest.importorskip("chromadb")
pytest.importorskip("langchain_community")
pytest.importorskip("rank_bm25")

DOCS = {
    "docs/acme": "Tenant Acme: the refund window is 30 days for every Acme order.\n",
    "docs/globex": "Tenant Globex: the refund window is 14 days for every Globex order.\n",
    "docs/initech": "Tenant Initech: the refund window is 60 days for every Initech order.\n",
}

RETRIEVERS = '''
import json
import uuid

import chromadb
from langchain_community.vectorstores import Chroma
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore
from rank_bm25 import BM25Okapi

# The metadata each chunk carries: its tenant, by document.
TENANT = {"docs/acme.md": "acme", "docs/globex.md": "globex", "docs/initech.md": "initech"}


def words(text):
    return text.lower().replace(":", " ").replace(".", " ").split()


def embed(text):
    """Bag of words hashed into 64 dimensions: deterministic, and no model to download."""
    vector = [0.0] * 64
    for word in words(text):
        vector[sum(map(ord, word)) % 64] += 1.0
    return vector


def chroma(chunks):
    """A chromadb collection in this process, queried with where=filter."""
    collection = chromadb.EphemeralClient().create_collection(
        f"chunks-{uuid.uuid4().hex}", embedding_function=None
    )
    collection.add(
        ids=[str(chunk.index) for chunk in chunks],
        documents=[chunk.text for chunk in chunks],
        metadatas=[{"tenant": TENANT[chunk.doc]} for chunk in chunks],
        embeddings=[embed(chunk.text) for chunk in chunks],
    )

    def search(question, k, filter=None):
        found = collection.query(query_embeddings=[embed(question)], n_results=k, where=filter)
        return [int(index) for index in found["ids"][0]]

    return search


def langchain_chroma(chunks):
    """A LangChain vector-store retriever: the plugin calls invoke(question, filter=...)."""
    store = Chroma.from_documents(
        [Document(chunk.text, metadata={"tenant": TENANT[chunk.doc]}) for chunk in chunks],
        DeterministicFakeEmbedding(size=32),
        client=chromadb.EphemeralClient(),
        collection_name=f"lc-{uuid.uuid4().hex}",
    )
    return store.as_retriever()


class MetadataBM25:
    """BM25 over the chunks whose metadata matches the filter; batches logged to batches.log."""

    def __init__(self, chunks):
        self.chunks = chunks
        self.metadata = [{"tenant": TENANT[chunk.doc]} for chunk in chunks]

    def search(self, question, k, filter=None):
        allowed = [
            index
            for index, metadata in enumerate(self.metadata)
            if all(metadata.get(key) == value for key, value in (filter or {}).items())
        ]
        scores = BM25Okapi([words(self.chunks[i].text) for i in allowed]).get_scores(words(question))
        order = sorted(range(len(allowed)), key=lambda j: -scores[j])
        return [allowed[j] for j in order][:k]

    def search_batch(self, questions, k, filter=None):
        with open("batches.log", "a", encoding="utf-8") as log:
            log.write(json.dumps({"questions": sorted(questions), "filter": filter}) + "\\n")
        return [self.search(question, k, filter) for question in questions]


def bm25(chunks):
    return MetadataBM25(chunks)


class Forgetful:
    """A LangChain InMemoryVectorStore retriever whose search takes the filter and forgets it."""

    def __init__(self, chunks):
        store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
        store.add_documents([Document(chunk.text) for chunk in chunks])
        self.retriever = store.as_retriever(search_kwargs={"k": len(chunks)})

    def search(self, question, k, filter=None):
        return self.retriever.invoke(question)[:k]


def unfiltered(chunks):
    def search(question, k):
        return list(range(len(chunks)))[:k]

    return search
'''

GOLD = """
    corpus: ../docs/*.md
    chunker_args: {size: 400, overlap: 0}
    retriever: rag_filters:RETRIEVER
    k: 2
    filter: {tenant: acme}
    cases:
      - id: acme-refund
        question: What is the refund window?
        needle: 30 days
        must_not_doc: [../docs/globex.md, ../docs/initech.md]
      - id: globex-refund
        question: What is the refund window?
        needle: 14 days
        filter: {tenant: globex}
        must_not_doc: ../docs/acme.md
"""


@pytest.fixture
def tenants(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".md", **DOCS)
    pytester.makepyfile(rag_filters=RETRIEVERS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester


def run(pytester: pytest.Pytester, gold: str, *args: str) -> tuple[pytest.RunResult, dict]:
    pytester.makefile(".yaml", **{"gold/tenants": dedent(gold)})
    path = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--chunkrecall-report", str(path), *args)
    report = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return result, report


@pytest.mark.parametrize("retriever", ["chroma", "langchain_chroma", "bm25"])
def test_the_filter_reaches_the_retriever_and_the_entry_records_it(tenants, retriever):
    result, report = run(tenants, GOLD.replace("RETRIEVER", retriever))
    result.assert_outcomes(passed=2)
    cases = {case["id"]: case for case in report["cases"]}
    assert cases["acme-refund"]["filter"] == {"tenant": "acme"}
    assert cases["globex-refund"]["filter"] == {"tenant": "globex"}
    # only the tenant's own chunk came back, though k is 2
    assert cases["acme-refund"]["retrieved_ids"] == ["docs/acme.md#0"]
    assert cases["globex-refund"]["retrieved_ids"] == ["docs/globex.md#1"]


def test_a_retriever_that_forgets_the_filter_leaks_another_tenants_document(tenants):
    # k: 3 of the three tenants' chunks, which the forgetful retriever returns in any order
    result, report = run(tenants, GOLD.replace("RETRIEVER", "Forgetful").replace("k: 2", "k: 3"))
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["  leaked at rank ?: docs/*.md#? comes from must_not_doc docs/*.md: 'Tenant *"]
    )
    assert {case["verdict"] for case in report["cases"]} == {"leaked"}


def test_search_batch_is_asked_once_for_each_filter(tenants):
    gold = dedent(GOLD.replace("RETRIEVER", "bm25")) + (
        "  - id: acme-days\n"
        "    question: How many days does Acme give?\n"
        "    needle: 30 days\n"
        "  - id: globex-days\n"
        "    question: How many days does Globex give?\n"
        "    needle: 14 days\n"
        "    filter: {tenant: globex}\n"
    )
    result, _ = run(tenants, gold)
    result.assert_outcomes(passed=4)
    calls = [json.loads(line) for line in (tenants.path / "batches.log").read_text().splitlines()]
    assert sorted(calls, key=lambda call: call["filter"]["tenant"]) == [
        {
            "questions": ["How many days does Acme give?", "What is the refund window?"],
            "filter": {"tenant": "acme"},
        },
        {
            "questions": ["How many days does Globex give?", "What is the refund window?"],
            "filter": {"tenant": "globex"},
        },
    ]


@pytest.mark.parametrize(
    ("retriever", "search"),
    [("rag_filters:unfiltered", "search"), ("pytest_chunkrecall.retrievers:bm25", "search")],
)
def test_a_retriever_that_takes_no_filter_is_an_error_naming_the_gold_file_and_retriever(
    tenants, retriever, search
):
    gold = GOLD.replace("rag_filters:RETRIEVER", retriever)
    result, _ = run(tenants, gold)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [f"*gold/tenants.yaml: retriever *{retriever.split(':')[-1]}* does not accept filter=: *"]
    )
    assert_no_internals(result)


@pytest.mark.parametrize(
    ("value", "line"), [("filter: acme", 5), ("filter: [acme]", 5), ("filter:", 5)]
)
def test_a_filter_that_is_not_a_mapping_is_a_collection_error_naming_the_line(tenants, value, line):
    gold = GOLD.replace("RETRIEVER", "bm25").replace("filter: {tenant: acme}", value)
    result, _ = run(tenants, gold)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [f"chunkrecall: gold/tenants.yaml:{line}: 'filter' must be a mapping*"]
    )
    assert_no_internals(result)


def test_a_case_filter_that_is_not_a_mapping_names_its_line(tenants):
    gold = GOLD.replace("RETRIEVER", "bm25").replace("filter: {tenant: globex}", "filter: globex")
    result, _ = run(tenants, gold)
    result.stdout.fnmatch_lines(["chunkrecall: gold/tenants.yaml:14: 'filter' must be a mapping*"])
