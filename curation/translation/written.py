"""Translations written by people for the bundled samples, served through the translation memory.

Why: ``./dev demo`` must show a newcomer French a reviewer can judge, without a DeepL key. The
local fake DeepL server (``tests/fake_deepl.py``) only substitutes words, so its "French" can
neither be reviewed nor scored. The bundled samples therefore ship with translations their
developers wrote (``curation/data/<family>/written_<lang>.jsonl``), one line per text exactly
as the pipeline sends it to an engine: the slot of a StereoSet context as ``<x>BLANK</x>``, the
attribute of a sentence and the differing words of a CrowS-Pairs pair in ``<a>`` tags, the
context an intersentence sentence is sent with. ``--translator written`` puts them into the
translation memory (:meth:`WrittenTranslations.prime`) under an engine id that says what they
are, so every output (candidates' ``translation.engine``, run report, dataset card) names
them as written for the sample, not DeepL output. A text none of the files holds is not
translated: the translator refuses it and the item is reported, never sent anywhere.

A line: ``{"source_lang": "en", "target_lang": "fr", "options": {...}, "source": "...",
"text": "..."}``, ``options`` being what the memory keys a request by besides its text
(``{"xml": true}`` for tagged texts, ``{"context": "..."}`` for a text sent with context, ``{}``
otherwise).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from biasforge.curation.translation.base import Request, TranslationError, Translator
from biasforge.errors import InputError
from biasforge.resources import package_path
from biasforge.translation_memory import TranslationMemory

#: the engine id of these translations: what every output shows as their engine
ENGINE_ID = "written for the bundled sample by the biasforge developers, not DeepL output"
#: the translator's name on the command line (``--translator written``)
NAME = "written"
DATA = package_path("biasforge.curation", "data")
#: the bundled files: one per family and target language, beside the family's sample
PATTERN = "*/written_*.jsonl"


class WrittenLine(BaseModel):
    """One written translation, keyed as the memory keys an engine's answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source_lang: str = Field(min_length=2)
    target_lang: str = Field(min_length=2)
    #: request options besides the engine's own: ``xml`` (tagged text), ``context``
    options: dict[str, bool | str]
    source: str = Field(min_length=1)
    text: str = Field(min_length=1)


def bundled_files() -> list[Path]:
    """The written translations shipped with the bundled samples."""
    return sorted(DATA.glob(PATTERN))


def read_written(path: str | Path) -> list[WrittenLine]:
    """The lines of one file, or an :class:`InputError` naming the file and line."""
    lines = []
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                lines.append(WrittenLine.model_validate(json.loads(raw)))
            except (json.JSONDecodeError, ValidationError) as exc:
                first = str(exc).splitlines()[:3]
                raise InputError(path, " ".join(first), line=number) from None
            unknown = set(lines[-1].options) - {"xml", "context"}
            if unknown:
                raise InputError(path, f"unknown option(s) {sorted(unknown)}", line=number)
    return lines


def load_written(paths: Iterable[str | Path], memory: TranslationMemory) -> int:
    """Put the written translations of ``paths`` into ``memory`` under :data:`ENGINE_ID`
    (billed characters 0: nothing was paid for); returns how many lines were stored."""
    stored = 0
    for path in paths:
        groups: dict[tuple[str, str, str], list[tuple[str, str, int]]] = {}
        for line in read_written(path):
            key = (line.source_lang, line.target_lang, json.dumps(line.options, sort_keys=True))
            groups.setdefault(key, []).append((line.source, line.text, 0))
        for (source, target, options), pairs in groups.items():
            memory.put_many(ENGINE_ID, source, target, json.loads(options), pairs)
            stored += len(pairs)
    return stored


class WrittenTranslations(Translator):
    """The translator of ``--translator written``: it answers from the memory only, once
    :meth:`prime` has put the written translations there; asked for anything else, it
    refuses (no engine stands behind it)."""

    engine_id = ENGINE_ID
    max_batch = 1000

    def __init__(self, files: Iterable[str | Path] | None = None) -> None:
        self.files = list(files) if files is not None else bundled_files()

    def options_key(self) -> dict[str, Any]:
        return {}

    def prime(self, memory: TranslationMemory) -> None:
        """Load the written translations into ``memory`` before a run plans its requests."""
        load_written(self.files, memory)

    def send(self, request: Request) -> list[str]:
        first = request.texts[0] if request.texts else ""
        raise TranslationError(
            f"no written translation {request.source}→{request.target} for {first[:80]!r} "
            f"(and {len(request.texts) - 1} more): --translator written knows only the bundled "
            "samples' texts; use --translator deepl for others",
            retryable=False,
        )
