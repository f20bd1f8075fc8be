"""The RAG libraries whose objects are recognised, each as a family of classes."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from .errors import ChunkrecallError


@dataclass(frozen=True)
class Family:
    """A family of library objects: the class they descend from and the package shipping it."""

    library: str  # as people call it
    what: str  # what the objects are, in the library's words
    packages: tuple[str, ...]  # the top-level packages the base class may be defined in
    base: str  # the base class's name
    distribution: str  # the package to name in messages
    known: str  # the versions whose API this adapter was written against

    def describes(self, obj: Any) -> bool:
        """Whether ``obj`` (a class or an instance) descends from this family's base class."""
        cls = obj if inspect.isclass(obj) else type(obj)
        for ancestor in getattr(cls, "__mro__", ()):
            package = (getattr(ancestor, "__module__", "") or "").partition(".")[0]
            if ancestor.__name__ == self.base and package in self.packages:
                return True
        return False

    def changed(self, role: str, name: str, problem: str, where: str | None) -> ChunkrecallError:
        """The error for an object of this family whose API is not the one the adapter knows."""
        try:
            installed = f"{self.distribution} {metadata.version(self.distribution)}"
        except metadata.PackageNotFoundError:
            installed = f"an unknown version of {self.distribution}"
        return ChunkrecallError(
            f"{role} {name} is a {self.library} {self.what}, but {problem}: {installed} is "
            f"installed, and pytest-chunkrecall knows the API of {self.distribution} "
            f"{self.known}; install such a version, or wrap the {self.what} in a plain "
            f"function",
            where=where,
        )


_LANGCHAIN = ("langchain_core", "langchain_text_splitters", "langchain")
_LLAMAINDEX = ("llama_index",)
_LANGCHAIN_VERSIONS = "1.x"
_LLAMAINDEX_VERSIONS = "0.14"

LANGCHAIN_SPLITTER = Family(
    library="LangChain",
    what="text splitter",
    packages=_LANGCHAIN,
    base="TextSplitter",
    distribution="langchain-text-splitters",
    known=_LANGCHAIN_VERSIONS,
)
LLAMAINDEX_PARSER = Family(
    library="LlamaIndex",
    what="node parser",
    packages=_LLAMAINDEX,
    base="NodeParser",
    distribution="llama-index-core",
    known=_LLAMAINDEX_VERSIONS,
)
CHONKIE_CHUNKER = Family(
    library="chonkie",
    what="chunker",
    packages=("chonkie",),
    base="BaseChunker",
    distribution="chonkie",
    known="1.x",
)
SEMCHUNK_CHUNKER = Family(
    library="semchunk",
    what="chunker",
    packages=("semchunk",),
    base="Chunker",
    distribution="semchunk",
    known="3.x and 4.x",
)
LANGCHAIN_STORE = Family(
    library="LangChain",
    what="vector store",
    packages=_LANGCHAIN,
    base="VectorStore",
    distribution="langchain-core",
    known=_LANGCHAIN_VERSIONS,
)
LANGCHAIN_RETRIEVER = Family(
    library="LangChain",
    what="retriever",
    packages=_LANGCHAIN,
    base="BaseRetriever",
    distribution="langchain-core",
    known=_LANGCHAIN_VERSIONS,
)
LLAMAINDEX_RETRIEVER = Family(
    library="LlamaIndex",
    what="retriever",
    packages=_LLAMAINDEX,
    base="BaseRetriever",
    distribution="llama-index-core",
    known=_LLAMAINDEX_VERSIONS,
)
LLAMAINDEX_INDEX = Family(
    library="LlamaIndex",
    what="index",
    packages=_LLAMAINDEX,
    base="BaseIndex",
    distribution="llama-index-core",
    known=_LLAMAINDEX_VERSIONS,
)


def library_method(
    obj: Any, method: str, family: Family, name: str, where: str | None, role: str = "retriever"
) -> Callable[..., Any]:
    found = getattr(obj, method, None)
    if not callable(found):
        raise family.changed(role, name, f"it has no {method}() method", where)
    return found  # type: ignore[no-any-return]
