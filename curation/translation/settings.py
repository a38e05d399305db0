"""The translation settings every translated family shares, and the engine they name.

StereoSet and CrowS-Pairs runs are described by an ``Options`` that extends
:class:`TranslationSettings`: the languages, the engine and its settings, the translation
memory and the retry policy are declared, validated and turned into an engine once, here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypedDict

from biasforge.curation.translation import options
from biasforge.curation.translation.base import Translator
from biasforge.curation.translation.engines import check_translator_name, make_translator
from biasforge.curation.translation.runner import (
    Outcome,
    RetryPolicy,
    RunStats,
    Unit,
    translate_units,
)
from biasforge.curation.translation.same_language import PassThrough, pass_through
from biasforge.errors import BiasforgeError
from biasforge.translation_memory import TranslationMemory


def _prime(translator: Translator, memory: TranslationMemory) -> None:
    """A backend that answers from stored translations (``--translator written``) puts them
    into the memory first, so the run's plan finds them there and sends nothing."""
    prime = getattr(translator, "prime", None)
    if prime is not None:
        prime(memory)


class Engine(TypedDict, total=False):
    """What a caller may hand a translated pipeline's ``curate`` or ``dry_run`` instead of
    what its settings name (``TranslationSettings.engine``): a ready translator and memory."""

    translator: Translator | None
    memory: TranslationMemory | None


@dataclass(frozen=True)
class TranslationSettings:
    """Languages (lower-cased on creation), engine, glossary, memory and retries of a run."""

    lang: options.Lang = "fr"
    #: the source's language; equal to ``lang``, the run translates nothing
    source_lang: options.SourceLang = "en"
    #: engine name and its settings (see :mod:`biasforge.curation.translation.engines`)
    translator: options.Translator = "deepl"
    server_url: options.ServerUrl = None
    formality: options.Formality = None
    #: TSV ``source<TAB>target`` of fixed term translations
    glossary: options.Glossary = None
    #: encoding of the user's text files (glossary, source …); bundled files are UTF-8 (a
    #: family's options name its files in the option's help)
    encoding: str = "utf-8"
    #: translation memory file; None: ``$BIASFORGE_HOME/translation-memory.sqlite``
    memory: options.Memory = None
    #: attempts per request and the first backoff pause (:attr:`retry`)
    retries: options.Retries = RetryPolicy.attempts
    retry_delay: options.RetryDelay = RetryPolicy.delay
    #: a language pack folder for ``lang`` (:mod:`biasforge.curation.language_pack`); None:
    #: the bundled pack of ``lang``
    language_pack: options.LanguagePack = None
    #: items written in ``lang`` in the family's source format, added untranslated with
    #: ``origin=native`` (:mod:`biasforge.curation.translation.native`); None: none
    native: options.Native = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "lang", self.lang.lower())
        object.__setattr__(self, "source_lang", self.source_lang.lower())
        check_translator_name(self.translator)
        if self.retries < 1:
            raise BiasforgeError("--retries must be at least 1")

    @property
    def retry(self) -> RetryPolicy:
        """How a failed request is retried (``retries``, ``retry_delay``)."""
        return RetryPolicy(attempts=self.retries, delay=self.retry_delay)

    @property
    def same_language(self) -> bool:
        """The target is the source language: curate without translating."""
        return self.lang == self.source_lang

    def make_translator(self) -> Translator:
        """The engine these settings name (DeepL: key from ``DEEPL_AUTH_KEY``, used lazily)."""
        return make_translator(
            self.translator,
            server_url=self.server_url,
            formality=self.formality,
            glossary=self.glossary,
            encoding=self.encoding,
        )

    @contextmanager
    def engine(
        self, translator: Translator | None = None, memory: TranslationMemory | None = None
    ) -> Iterator[tuple[Translator, TranslationMemory | None]]:
        """The given translator and memory, or the ones named here (memory closed after).

        A same-language run gets the pass-through engine and no memory: nothing to pay for,
        and the user's memory is neither read nor written."""
        if self.same_language:
            yield PassThrough(), None
            return
        translator = translator or self.make_translator()
        if memory is not None:
            _prime(translator, memory)
            yield translator, memory
            return
        with TranslationMemory(self.memory) as own:
            _prime(translator, own)
            yield translator, own

    def translate(
        self,
        units: list[Unit],
        translator: Translator,
        memory: TranslationMemory | None,
        *,
        progress: bool = True,
    ) -> tuple[dict[Unit, Outcome], RunStats]:
        """Every unit's translation: through the memory and the engine, or (no memory: a
        same-language run, see :meth:`engine`) the source text itself."""
        if memory is None:
            return pass_through(units)
        return translate_units(
            units,
            translator,
            memory,
            source=self.source_lang,
            target=self.lang,
            retry=self.retry,
            progress=progress,
        )
