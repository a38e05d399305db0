"""What one datatrove task does to its documents after reading them: the mining steps.

Cheap work first: a document with no gender form at all is dropped after one regex search;
only sentences with a form and of a sentence's length are repaired, deduplicated, cleaned and
segmented by jieba (once, for every rule after it). Reject rules hand what they drop to their exclusion writers
(``rejected/RULE/``); the sentences left are flagged by the review rules and written to
``kept/``. Every step counts and times itself in datatrove's stats.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from datatrove.pipeline.base import PipelineStep

from biasforge.curation.slguset.filters import (
    CollectiveFormFilter,
    DuplicateFilter,
    KeywordFilter,
    LacNameFilter,
    NonGenderWordFilter,
    PersonNameFilter,
    PreprocessFilter,
    SentenceLengthFilter,
    ThulacNameFilter,
)
from biasforge.curation.slguset.flags import (
    BiologicalSexFlag,
    CollectiveKeywordFlag,
    CounterpartSenseFlag,
    OtherGenderTermFlag,
)
from biasforge.curation.slguset.resources import TaskResources
from biasforge.curation.slguset.rows import RowWriter
from biasforge.curation.slguset.steps import QuoteRepair, Segmenter, SentenceSplitter, TaskUsage

KEPT = "kept"
REJECTED = "rejected"


def mining_steps(
    resources: TaskResources, parts_dir: str | Path, sources: Sequence[str] = ()
) -> list[PipelineStep]:
    """The steps after the reader, in order; rows go to ``parts_dir``, ordered by the
    corpus's ``sources`` (see :class:`~biasforge.curation.slguset.rows.RowWriter`)."""
    parts = Path(parts_dir)

    def excluded(rule: str) -> RowWriter:
        return RowWriter(parts / REJECTED / rule, resources, sources, kind="r")

    return [
        KeywordFilter(resources, "document"),
        SentenceSplitter(),
        KeywordFilter(resources, "sentence"),
        SentenceLengthFilter(exclusion_writer=excluded("sentence_length")),
        QuoteRepair(),
        DuplicateFilter(),
        PreprocessFilter(exclusion_writer=excluded("preprocess")),
        Segmenter(resources),
        NonGenderWordFilter(exclusion_writer=excluded("non_gender_word")),
        CollectiveFormFilter(resources, exclusion_writer=excluded("collective_form")),
        PersonNameFilter(resources, exclusion_writer=excluded("person_name")),
        *(
            [ThulacNameFilter(resources, exclusion_writer=excluded(ThulacNameFilter.rule))]
            if resources.tagger == "thulac"
            else []
        ),
        *(
            [LacNameFilter(resources, exclusion_writer=excluded(LacNameFilter.rule))]
            if resources.name_check == "lac"
            else []
        ),
        OtherGenderTermFlag(resources),
        BiologicalSexFlag(resources),
        CounterpartSenseFlag(resources),
        CollectiveKeywordFlag(resources),
        RowWriter(parts / KEPT, resources, sources, kind="k"),
        TaskUsage(),
    ]
