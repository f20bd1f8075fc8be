"""Evaluation: plan, suite, finder, chunk map and the verdict, from a gold file to results.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
