"""Searching functions."""

__all__ = []
