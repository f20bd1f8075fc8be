"""The run: each case's entry, the fold of a run's entries, its spool, the sweep's rows, and
the merge of shards.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
