"""Indexing functions: take, take_along_axis."""

__all__ = []
