"""The options of a BEC-Pro run, declared once: the dataclass the pipeline takes and, through
its ``Annotated`` fields, the options of ``biasforge curate becpro``
(:func:`biasforge.curation.options.curate_command`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from biasforge.curation import options as common
from biasforge.errors import BiasforgeError

if TYPE_CHECKING:  # the lexicon loads (with pydantic) when a run reads it, not at start-up
    from biasforge.curation.becpro.lexicon import Language


@dataclass(frozen=True)
class Options:
    """Everything one BEC-Pro run depends on (the run's config is derived from it)."""

    #: a language of the lexicon (``en``, ``de``…) or the path of a language folder (``./it``)
    lang: Annotated[
        str,
        typer.Option(
            "--lang",
            help="a language of the lexicon (bundled: de, en, es, eu, fr) or the path of a "
            "language folder (./it); see docs/becpro-languages.md",
        ),
        common.REQUIRED,
    ] = "en"
    #: one of the language's variants (language.toml); None: its first
    variant: Annotated[
        str | None,
        typer.Option(
            help="one of the language's variants (language.toml); es: with_articles (default) "
            "or without_articles"
        ),
    ] = None
    #: folder of language folders and the profession list; None: the bundled lexicon
    lexicon: common.path_option(
        "a lexicon: professions.tsv and one folder per language, laid out as the "
        "bundled curation/data/becpro (default: bundled)"
    ) = None
    #: encoding of the user's files (the bundled lexicon is UTF-8)
    encoding: common.encoding_option("--lexicon, a --lang folder") = "utf-8"

    def language(self) -> Language:
        from biasforge.curation.becpro.lexicon import load_language

        return load_language(self.lang, self.lexicon, self.encoding)

    def resolved_variant(self, language: Language | None = None) -> str:
        """The variant to build, checked against the language (a one-line error otherwise)."""
        variants = (language or self.language()).grammar.variants
        variant = self.variant or variants[0]
        if variant not in variants:
            raise BiasforgeError(
                f"language {self.lang!r} has no variant {variant!r}; "
                f"choose one of {', '.join(variants)}"
            )
        return variant
