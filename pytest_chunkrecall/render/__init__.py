"""Rendering results for people and tools: terminal, failure messages, Markdown, JSON, HTML.

Internal: the public API is what pytest_chunkrecall itself exports.
"""
