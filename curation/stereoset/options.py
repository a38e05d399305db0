"""The options of a StereoSet run, declared once: the dataclass the pipeline takes and, through
its ``Annotated`` fields, the options of ``biasforge curate stereoset``
(:func:`biasforge.curation.options.curate_command`). Light: no pipeline module is imported."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import typer

from biasforge.curation import options as common
from biasforge.curation.stereoset.source import BUNDLED_SAMPLE
from biasforge.curation.translation.runner import DEFAULT_PRICE_PER_MILLION
from biasforge.curation.translation.settings import TranslationSettings


@dataclass(frozen=True)
class Options(TranslationSettings):
    """Everything one StereoSet run depends on: the shared translation settings (languages,
    engine, glossary, memory, retries) plus StereoSet's own."""

    encoding: common.encoding_option("--source, --glossary, --synonyms, --lexicon") = "utf-8"
    #: official JSON, flattened JSONL or a hub id; default: the bundled 205-item sample
    source: Annotated[
        str,
        typer.Option(
            "--source",
            show_default=False,
            help="StereoSet as official JSON, flattened JSONL, or a Hugging Face hub id "
            "(default: the bundled sample)",
        ),
    ] = str(BUNDLED_SAMPLE)
    hf_split: Annotated[str, typer.Option(help="split when --source is a hub id")] = "validation"
    limit: common.Limit = None
    #: TSV ``attribute<TAB>synonym[<TAB>target]``: extra items with one attribute replaced
    synonyms: common.path_option(
        "TSV 'attribute<TAB>synonym[<TAB>target]': add synonym variants"
    ) = None
    #: TSV of words with no exact translation; None: the bundled one
    lexicon: common.path_option("TSV of words with no exact translation (default: bundled)") = None
    price_per_million: Annotated[
        float,
        typer.Option(
            min=0,
            callback=common.finite,
            help="price per million characters (DeepL API Pro list: 20 EUR)",
        ),
    ] = DEFAULT_PRICE_PER_MILLION
    progress: bool = True
