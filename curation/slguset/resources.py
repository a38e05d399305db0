"""What the steps of one datatrove task read: the lexicon, a jieba tokenizer, the name finder.

One :class:`TaskResources` is handed to every step that needs it when the pipeline is built.
It loads on first use and pickles as its settings only, so each task (a worker process, a
Slurm job, a Ray actor) builds its own copy once, shared by its steps: the tokenizer that
segments a sentence for the non-gender rule is the one whose frequencies the name features
read.
"""

from __future__ import annotations

from typing import Any

from biasforge.curation.slguset.lexicon import Lexicon, load_lexicon
from biasforge.curation.slguset.names import (
    LacNames,
    NameFinder,
    ThulacNames,
    Tokenizer,
    load_models,
)

#: what a :class:`TaskResources` pickles as (the keywords of its constructor)
_SETTINGS = ("lexicon_dir", "tagger", "include_collective", "lexicon_encoding", "name_check")


class TaskResources:
    def __init__(
        self,
        lexicon_dir: str | None = None,
        tagger: str = "fast",
        include_collective: bool = False,
        lexicon_encoding: str = "utf-8",
        name_check: str = "lac",
    ) -> None:
        self.lexicon_dir = lexicon_dir
        self.lexicon_encoding = lexicon_encoding
        self.tagger = tagger
        self.include_collective = include_collective
        self.name_check = name_check
        self._lexicon: Lexicon | None = None
        self._finder: NameFinder | None = None
        self._thulac: ThulacNames | None = None
        self._lac: LacNames | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _SETTINGS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # a setting the state lacks takes its default

    @property
    def lexicon(self) -> Lexicon:
        if self._lexicon is None:
            self._lexicon = load_lexicon(self.lexicon_dir, self.lexicon_encoding)
        return self._lexicon

    @property
    def excluded(self) -> frozenset[str]:
        """Collective forms that cannot be a keyword in this run (他们 … unless included)."""
        return self.lexicon.excluded(self.include_collective)

    @property
    def token_mode(self) -> str:
        """The jieba token source of the name model (``thulac``'s first stage: ``fast``)."""
        return self.finder.model.tagger

    @property
    def finder(self) -> NameFinder:
        """The name finder, over a tokenizer that keeps the lexicon's non-gender words whole."""
        if self._finder is None:
            tokenizer = Tokenizer(self.lexicon.jieba_words())
            self._finder = NameFinder(load_models()[self.tagger], tokenizer)
        return self._finder

    @property
    def thulac(self) -> ThulacNames:
        """THULAC's person names (the second stage of ``--tagger thulac``)."""
        if self._thulac is None:
            self._thulac = ThulacNames()
        return self._thulac

    @property
    def lac(self) -> LacNames:
        """LAC's person names (the second-stage check, ``name_check="lac"``)."""
        if self._lac is None:
            self._lac = LacNames()
        return self._lac

    @property
    def tokenizer(self) -> Tokenizer:
        return self.finder.tokenizer


class UsesResources:
    """A step of a task that reads its :class:`TaskResources` (first base, before the
    datatrove step class, whose constructor gets the other arguments)."""

    def __init__(self, resources: TaskResources, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.resources = resources
