"""``python -m shopkb "question"``: the passages the help articles offer for a question."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from . import dense, search
from .ingest import OVERLAP, SIZE, load_passages

DOCS = Path(__file__).resolve().parent.parent / "docs"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="shopkb", description="Find the help-article passages that answer a question."
    )
    parser.add_argument("question", help="The customer's question, in quotes")
    parser.add_argument("-k", type=int, default=3, help="How many passages to show (default: 3)")
    parser.add_argument(
        "--docs", type=Path, default=DOCS, help=f"Folder of articles (default: {DOCS})"
    )
    parser.add_argument(
        "--size", type=int, default=SIZE, help=f"Passage size in characters (default: {SIZE})"
    )
    parser.add_argument(
        "--overlap",
        type=int,
        default=OVERLAP,
        help=f"Characters neighbouring passages share (default: {OVERLAP})",
    )
    parser.add_argument(
        "--dense",
        action="store_true",
        help="Rank by wordllama embeddings instead of BM25 (needs the dense extra)",
    )
    args = parser.parse_args(argv)

    if args.k < 1:
        parser.error(f"-k must be at least 1, not {args.k}")
    if not args.docs.is_dir():
        parser.error(f"no article folder at {args.docs}; pass --docs")
    try:
        passages = load_passages(args.docs, size=args.size, overlap=args.overlap)
    except ValueError as exc:
        parser.error(str(exc))
    if not passages:
        parser.error(f"no *.md articles in {args.docs}")
    build = dense.build if args.dense else search.build
    try:
        results = build(passages).scored(args.question, args.k)
    except ImportError as exc:
        parser.error(str(exc))
    if not results:
        print("No passage shares a word with that question.")
        return 1
    for rank, (passage, score) in enumerate(results, start=1):
        print(
            f"{rank}. {passage.doc} [{passage.start_index}:{passage.end_index}]  score {score:.2f}"
        )
        body = " ".join(passage.text.split())
        print(textwrap.indent(textwrap.fill(body, width=88), "   "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
