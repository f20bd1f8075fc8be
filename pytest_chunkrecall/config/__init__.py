"""Settings: what configures an evaluation, resolving "module:attr", did-you-mean.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
