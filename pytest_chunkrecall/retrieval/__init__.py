"""Retrievers as users write them: the shapes a search comes in, and library retrievers."""
