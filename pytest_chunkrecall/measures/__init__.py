"""Measures: the statistics and ranking formulas, pure functions that know no case or run.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
