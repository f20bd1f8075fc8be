"""Text: folding with its offset map, the match modes, the word index.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
