"""Chunking: the chunk value, the shapes user chunkers come in, library chunkers, placement.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
