"""The linalg extension (Array API 2025.12)."""

__all__ = []
