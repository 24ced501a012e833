"""The namespace (flexarray/__init__.py) exports exactly each chapter's ``__all__``: every
name a chapter declares is the namespace's object of that name, and every public name of
the namespace comes from one chapter (or is a constant, a dtype or an extension module)."""
import importlib

import flexarray as xp

CHAPTERS = ["_dtypes", "_creation", "_data_type_functions", "_elementwise", "_indexing",
            "_linear_algebra", "_manipulation", "_searching", "_sets", "_sorting",
            "_statistical", "_utility", "_extensions"]
OTHERS = {"__array_api_version__", "__array_namespace_info__", "__version__", "Array",
          "Device", "e", "inf", "nan", "pi", "newaxis", "fft", "linalg", "nn", "lib",
          "special"}


def test_every_chapter_name_is_exported_as_itself():
    for chapter in CHAPTERS:
        mod = importlib.import_module(f"flexarray.{chapter}")
        for name in mod.__all__:
            assert getattr(xp, name) is getattr(mod, name), (chapter, name)
            assert name in xp.__all__, (chapter, name)


def test_every_exported_name_comes_from_one_place():
    declared = [n for c in CHAPTERS for n in importlib.import_module(f"flexarray.{c}").__all__]
    assert len(declared) == len(set(declared))
    assert sorted(xp.__all__) == sorted(set(declared) | OTHERS)
    assert len(xp.__all__) == len(set(xp.__all__))
