"""The command-line options of the translation settings (``--lang``, ``--formality``, …),
declared once for every translated family, and their checks against DeepL's own lists."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.curation.options import finite
from biasforge.errors import BiasforgeError


def formality(value: str | None) -> str | None:
    """``--formality``: one of DeepL's settings."""
    if value is None:
        return None
    allowed = _deepl_values("formalities")
    if allowed is not None and value not in allowed:
        raise BiasforgeError(f"--formality {value!r}: choose one of {', '.join(allowed)}")
    return value


def language(param: typer.CallbackParam, value: str) -> str:
    """``--lang``/``--source-lang`` of a translated family: a language DeepL knows."""
    allowed = _deepl_values("languages")
    if allowed is not None and value.lower() not in allowed:
        raise BiasforgeError(
            f"{param.opts[0]} {value!r} is not a language DeepL translates; choose one of "
            f"{', '.join(allowed)}"
        )
    return value


def _deepl_values(name: str) -> tuple[str, ...] | None:
    """DeepL's list ``name``, or None without the ``deepl`` package (nothing to check
    against: such a run can only curate in the source language)."""
    try:
        from biasforge.curation.translation import choices
    except ImportError:  # pragma: no cover - the curation extra is not installed
        return None
    try:
        return getattr(choices, name)()
    except ImportError:
        return None


Lang = Annotated[
    str,
    typer.Option(
        "--lang",
        callback=language,
        help="target language (a DeepL code, e.g. fr); the source's own: no translation",
    ),
]
LanguagePack = Annotated[
    Path | None,
    typer.Option(
        "--language-pack",
        help="a language pack folder for --lang (default: the bundled pack of --lang; "
        "docs/your-language.md)",
    ),
]
Native = Annotated[
    Path | None,
    typer.Option(
        "--native",
        help="items written in --lang, in the family's source format: curated without "
        "translation, same checks and review, marked origin=native (docs/parallel-releases.md)",
    ),
]
SourceLang = Annotated[str, typer.Option(callback=language, help="language of the source")]
Translator = Annotated[
    str,
    typer.Option(
        "--translator",
        help="translation backend: deepl, or written (the French written for the bundled "
        "samples, not DeepL output; sends nothing)",
    ),
]
ServerUrl = Annotated[
    str | None,
    typer.Option(
        "--server-url",
        envvar="DEEPL_SERVER_URL",
        help="DeepL API server (default: chosen by the client from DEEPL_AUTH_KEY)",
    ),
]
Formality = Annotated[
    str | None,
    typer.Option(
        callback=formality, help="DeepL formality: default, more, less, prefer_more, prefer_less"
    ),
]
Glossary = Annotated[
    Path | None, typer.Option(help="TSV 'source<TAB>target' of fixed term translations")
]
Memory = Annotated[
    Path | None,
    typer.Option(help="translation memory (default $BIASFORGE_HOME/translation-memory.sqlite)"),
]
Retries = Annotated[int, typer.Option(min=1, help="attempts per request on 429/5xx/network")]
RetryDelay = Annotated[
    float, typer.Option(min=0, callback=finite, help="first backoff pause in seconds")
]
