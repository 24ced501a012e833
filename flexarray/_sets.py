"""Set functions."""

__all__ = []
