"""Utility functions: all, any, diff."""

__all__ = []
