"""Building a translator from settings (engine name, server, formality, glossary file).

Pipelines take a ready :class:`~biasforge.curation.translation.base.Translator`; this module is where a
name and a few settings become one, so the pipelines never read keys, URLs or glossary files.
DeepL's key comes from ``DEEPL_AUTH_KEY`` and is only needed once something is translated.
"""

from __future__ import annotations

import os
from pathlib import Path

from biasforge.curation.tables import read_tsv
from biasforge.curation.translation.base import Translator
from biasforge.errors import BiasforgeError

#: engines a pipeline can be asked for by name (``written``: the translations written for the
#: bundled samples, :mod:`biasforge.curation.translation.written`)
TRANSLATORS = ("deepl", "written")


def check_translator_name(name: str) -> None:
    if name not in TRANSLATORS:
        raise BiasforgeError(f"unknown translator {name!r}; available: {', '.join(TRANSLATORS)}")


def read_glossary(path: str | Path, encoding: str = "utf-8") -> dict[str, str]:
    """A TSV with header ``source<TAB>target``: fixed translations of terms."""
    rows = read_tsv(path, ["source", "target"], non_empty=["source", "target"], encoding=encoding)
    return {row["source"]: row["target"] for _, row in rows}


def make_translator(
    name: str = "deepl",
    *,
    server_url: str | None = None,
    formality: str | None = None,
    glossary: str | Path | None = None,
    encoding: str = "utf-8",
) -> Translator:
    """The engine called ``name``; ``server_url`` None lets the client pick it from the key.

    ``written`` answers from files, not from a server: a formality or glossary asked of it
    could not change a word, so asking is refused rather than silently ignored."""
    check_translator_name(name)
    if name == "written":
        if formality or glossary:
            raise BiasforgeError(
                "--translator written serves translations written in advance: "
                "--formality and --glossary do not apply to it"
            )
        from biasforge.curation.translation.written import WrittenTranslations

        return WrittenTranslations()
    from biasforge.curation.translation.deepl_backend import DeepLTranslator

    return DeepLTranslator(
        server_url=server_url,
        formality=formality,
        glossary=read_glossary(glossary, encoding) if glossary else None,
    )


def quota_note(translator: Translator, characters: int) -> str | None:
    """What the account has left vs what the run needs (DeepL ``/v2/usage``; free of charge).

    Only asked when a key is configured; a run that does not fit still starts, stops at the
    quota with every untranslated item reported, and resumes from the memory next time.
    """
    usage = getattr(translator, "usage", None)
    if not characters or usage is None or not os.environ.get("DEEPL_AUTH_KEY"):
        return None
    try:
        used, limit = usage()
    except Exception as exc:  # usage is advice only: never block a run on it
        return f"DeepL usage unavailable ({exc})"
    if used is None or limit is None:
        return None
    left = max(limit - used, 0)
    verdict = "fits" if characters <= left else "does NOT fit: the run will stop at the quota"
    return (
        f"DeepL account: {used} of {limit} characters used this period, {left} left; "
        f"this run needs {characters} ({verdict})"
    )
