"""chunking"""
