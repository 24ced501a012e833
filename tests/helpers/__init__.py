"""Helpers shared by the tests (imported as ``helpers.<module>``; never a test module)."""
