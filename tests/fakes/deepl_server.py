"""Moved to :mod:`curation.translation.fake_deepl` (the demo runs it from the package).

Only ``benchmarks/bench_translation_memory.py`` still imports it from here; delete this file
once that import points at the package.
"""

from curation.translation.fake_deepl import FakeDeepL, fake_translate

__all__ = ["FakeDeepL", "fake_translate"]
