"""Exact counting, enumeration and uniform sampling of legal splits, from the structure of
the legal space.
"""
