"""Machine translation behind a small protocol, with a persistent translation memory in front.

``Translator`` (``translate(texts, source, target) -> texts``) is what a backend implements;
``DeepLTranslator`` is the DeepL one; ``TranslationMemory`` stores every answer (and
reviewers' preferred translations); ``translate_units`` ties them together with batching,
retries and per-item failure reports.
"""

from biasforge.curation.translation.base import TranslationError, Translator
from biasforge.curation.translation.runner import Outcome, RetryPolicy, Unit, plan, translate_units
from biasforge.translation_memory import TranslationMemory, default_memory_path

__all__ = [
    "Outcome",
    "RetryPolicy",
    "TranslationError",
    "TranslationMemory",
    "Translator",
    "Unit",
    "default_memory_path",
    "plan",
    "translate_units",
]
