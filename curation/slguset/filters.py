"""The SlguSet reject rules as datatrove filters: one verdict with a reason per sentence.

Cheap first: :class:`KeywordFilter` (regex: is there a gender form at all, on the whole
document and again on each sentence) and :class:`DuplicateFilter` only count what they drop
(a sentence without a gender form is not a candidate, a duplicate is its first copy). The rules
after them are :class:`RuleFilter` s: ``sentence_length`` (a "sentence" of more than
:data:`~biasforge.curation.slguset.preprocess.MAX_SENTENCE_CHARS` characters, dropped before
anything costly reads it), then the paper's automatic filters: ``preprocess`` (the
sentence could not be cleaned), ``non_gender_word`` (every gender character sits inside a word
such as 吉他/子女, decided on jieba's tokens), ``collective_form`` (the only gender words are
collective forms the run excludes, 他们/她们 by default) and ``person_name`` (the sentence
names someone), then ``person_name_lac`` (Baidu's LAC, a second tagger, on the sentences
every other rule kept). A rule records its verdict on the sentence (``checks``) and, when it drops it, hands it to
datatrove's exclusion writer, so every rejected sentence is kept with its reason.
"""

from __future__ import annotations

import hashlib
import time

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.filters.base_filter import BaseFilter
from datatrove.pipeline.writers.disk_base import DiskWriter

from biasforge.curation.rule_steps import RuleStep
from biasforge.curation.slguset.matching import first_gender_word, target_of
from biasforge.curation.slguset.preprocess import (
    MAX_SENTENCE_CHARS,
    length_problem,
    sentence_problem,
)
from biasforge.curation.slguset.resources import TaskResources, UsesResources


class KeywordFilter(UsesResources, BaseFilter):
    """Regex prefilter: keep a document (or sentence) that contains a gender form."""

    def __init__(self, resources: TaskResources, level: str) -> None:
        self.name = f"keyword_prefilter ({level})"  # before datatrove names the step's stats
        super().__init__(resources)

    def filter(self, doc: Document) -> bool:
        return self.resources.lexicon.pattern.search(doc.text) is not None


class DuplicateFilter(BaseFilter):
    """Drop exact duplicates of a recent sentence of this task, before any costly rule runs.

    Memory stays bounded: the hashes of the last ``window`` to ``2 * window`` sentences are
    remembered (two generations of a set; the older is forgotten when the newer fills up).
    A duplicate it has forgotten goes on through the rules and is dropped by the merge, which
    deduplicates every row across all tasks on disk (:mod:`biasforge.curation.slguset.merge`): the
    candidates and the duplicate count are the same either way, only the work differs.
    """

    name = "duplicate"
    WINDOW = 50_000

    def __init__(self, window: int = WINDOW) -> None:
        super().__init__()
        self.window = window
        self._new: set[bytes] = set()
        self._old: set[bytes] = set()

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1):
        self._new, self._old = set(), set()  # per task
        yield from super().run(data, rank, world_size)

    def filter(self, doc: Document) -> bool:
        digest = hashlib.blake2b(doc.text.encode("utf-8"), digest_size=12).digest()
        if digest in self._new or digest in self._old:
            return False
        if len(self._new) >= self.window:
            self._old, self._new = self._new, set()
        self._new.add(digest)
        return True


class RuleFilter(RuleStep):
    """A reject rule: its verdict goes on the sentence, a failure drops it with the reason."""

    severity = "reject"


class SentenceLengthFilter(RuleFilter):
    """The first reject rule: a "sentence" too long to be one (a line without sentence ends)
    is dropped with its length before the quote repair, the segmenter and the name taggers
    read it, so their cost stays linear in the corpus whatever a line holds."""

    rule = "sentence_length"
    description = (
        f"at most {MAX_SENTENCE_CHARS:,} characters between sentence ends (longer: a list, a "
        "table or text without punctuation)"
    )

    def verdict(self, doc: Document) -> tuple[bool, str]:
        problem = length_problem(doc.text)
        return not problem, problem or f"{len(doc.text)} characters"


class PreprocessFilter(RuleFilter):
    rule = "preprocess"
    description = "sentence cleaned: terminator, CJK/digits/punctuation only, quotes balanced"

    def verdict(self, doc: Document) -> tuple[bool, str]:
        problem = sentence_problem(doc.text, doc.metadata["broken_quotes"])
        return not problem, problem or f"cleaned ({doc.metadata['quote_repairs']} quote repairs)"


class NonGenderWordFilter(RuleFilter):
    rule = "non_gender_word"
    description = "a gender keyword stands as a word of its own, not inside 吉他/他杀/子女 …"

    def verdict(self, doc: Document) -> tuple[bool, str]:
        matches = doc.metadata["matches"]
        first = first_gender_word(matches)
        if first is not None:
            return True, f"{first.form} in 「{first.token}」"
        words = sorted({m.token or m.form for m in matches})
        return False, "gender characters only inside non-gender words: " + "、".join(words)


class CollectiveFormFilter(UsesResources, RuleFilter):
    rule = "collective_form"
    description = (
        "the keyword is not only a collective form excluded by default (他们/她们 …, "
        "collective_forms.tsv); --include-collective keeps them, flagged for review"
    )

    def verdict(self, doc: Document) -> tuple[bool, str]:
        matches = doc.metadata["matches"]
        target = target_of(matches)
        if target is not None:
            return True, f"keyword {target.form}"
        collective = self.resources.lexicon.collective
        forms = dict.fromkeys(m.form for m in matches if m.genuine and m.excluded)
        return False, "only collective forms: " + "; ".join(
            f"{form} ({collective[form].reason})" for form in forms
        )


class PersonNameFilter(UsesResources, RuleFilter):
    rule = "person_name"

    def __init__(
        self, resources: TaskResources, exclusion_writer: DiskWriter | None = None
    ) -> None:
        super().__init__(resources, exclusion_writer)
        self.description = self.describe(resources.tagger)

    @staticmethod
    def describe(tagger: str) -> str:
        mode = "fast" if tagger == "thulac" else tagger
        return f"sentence names a person (jieba tokens + name model, {mode})"

    def verdict(self, doc: Document) -> tuple[bool, str]:
        hits = self.resources.finder.find(doc.metadata["tokens"])
        if not hits:
            return True, "no person name found"
        return False, "person names: " + "、".join(f"{h.text}({h.score:.2f})" for h in hits)


class SecondStageNameFilter(UsesResources, RuleFilter):
    """A slow person-name tagger that reads only the sentences that passed every other
    reject rule, and drops those where it tags a name. ``stage`` names the tagger in
    :class:`TaskResources` (loaded once per task, before the first sentence, so its load time
    is not counted per sentence); ``label`` names it in the verdict. The tagger reads
    ``batch`` sentences at a time (its ``find_many``): LAC costs less per sentence in a batch,
    with the same tags."""

    stage: str
    label: str
    batch = 1

    def __init__(
        self, resources: TaskResources, exclusion_writer: DiskWriter | None = None
    ) -> None:
        super().__init__(resources, exclusion_writer)
        self.batch_size = self.batch  # datatrove hands filter_batch this many sentences

    def tagger(self):
        return getattr(self.resources, self.stage)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1):
        started = time.process_time()
        self.tagger().load()
        self.stat_update("load_cpu_seconds", value=time.process_time() - started)
        yield from super().run(data, rank, world_size)

    def filter_batch(self, batch: list[Document]) -> list[bool | tuple[bool, str]]:
        started = time.process_time()  # CPU, not wall: what the check costs on a busy machine
        found = self.tagger().find_many([doc.text for doc in batch])
        self.stat_update("cpu_seconds", value=time.process_time() - started)
        pairs = zip(batch, found, strict=True)
        return [self.apply(doc, *self.judge(doc, names)) for doc, names in pairs]

    def verdict(self, doc: Document) -> tuple[bool, str]:
        return self.judge(doc, self.tagger().find(doc.text))

    def judge(self, doc: Document, names: list[tuple[str, int, int]]) -> tuple[bool, str]:
        """The verdict on a sentence from the names the tagger found in it."""
        self.stat_update("chars", value=len(doc.text))
        if not names:
            return True, f"{self.label}: no person name"
        return False, f"{self.label} person names: " + "、".join(n for n, _, _ in names)


class ThulacNameFilter(SecondStageNameFilter):
    """``--tagger thulac``: THULAC (``np`` tag) after the fast name model at a lower
    threshold."""

    rule = "person_name_thulac"
    description = "second stage: THULAC tags a person name (np) in a sentence every rule kept"
    stage = "thulac"
    label = "THULAC"


class LacNameFilter(SecondStageNameFilter):
    """The last reject rule of every run (unless turned off): Baidu's LAC (``PER`` tag) on the
    sentences that every other rule kept. The person-name model lets through a few per cent
    of sentences that name someone; LAC, an independent tagger, catches most of those at the
    cost of a few per cent of clean candidates (``curation/data/slguset/README.md``)."""

    rule = "person_name_lac"
    description = "second stage: Baidu LAC tags a person name (PER) in a sentence every rule kept"
    stage = "lac"
    label = "LAC"
    batch = 2048  # survivors per LAC batch (~100k characters): more share an ONNX call
