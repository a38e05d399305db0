"""The options of a CrowS-Pairs run, declared once: the dataclass the pipeline takes and,
through its ``Annotated`` fields, the options of ``biasforge curate crowspairs``
(:func:`biasforge.curation.options.curate_command`). Light: no pipeline module is imported."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from biasforge.curation import options as common
from biasforge.curation.crowspairs.source import BUNDLED_SAMPLE
from biasforge.curation.translation.settings import TranslationSettings


@dataclass(frozen=True)
class Options(TranslationSettings):
    """Everything one CrowS-Pairs run depends on: the shared translation settings (languages,
    engine, glossary, memory, retries) plus CrowS-Pairs' own."""

    encoding: common.encoding_option("--source, --group-words, --glossary") = "utf-8"
    #: a CrowS-Pairs CSV/TSV (original or revised layout); default: the bundled 100-pair sample
    source: Annotated[
        str,
        typer.Option(
            show_default=False,
            help="CrowS-Pairs CSV/TSV, original or revised layout (default: sample)",
        ),
    ] = str(BUNDLED_SAMPLE)
    limit: common.Limit = None
    #: TSV ``bias_type<TAB>words`` of group words; None: the bundled one
    group_words: common.path_option("TSV 'bias_type<TAB>words' (default: bundled)") = None
    progress: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        # a path as the command line read it (``./pairs.csv`` is recorded as ``pairs.csv``)
        object.__setattr__(self, "source", str(Path(self.source)))
