"""Sorting functions."""

__all__ = []
