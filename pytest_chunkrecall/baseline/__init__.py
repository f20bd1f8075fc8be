"""The baseline: the saved verdicts, what drifted since, the gates over a comparison, and the update.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
