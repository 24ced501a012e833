"""Manipulation functions."""

__all__ = []
