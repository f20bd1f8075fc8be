"""The run: its record of every case, the sweep's rows over it, and the merge of shards.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
