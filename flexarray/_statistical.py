"""Statistical functions."""

__all__ = []
