"""Analysis: chunk geometry, survival arithmetic, sweeps, the baseline, ranks and statistics.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
