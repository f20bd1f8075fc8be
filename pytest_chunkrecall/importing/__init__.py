"""Gold files from what a team already has: SQuAD sets, question/answer tables, Chroma's data.

Each importer reads its input whole, checks it, locates every answer in the
corpus, and only then writes anything (see :mod:`.writing`). ``export trec``
turns a JSON report into the qrels and run files that IR tools read.
"""

from __future__ import annotations
