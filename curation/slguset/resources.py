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
        return {
            "lexicon_dir": self.lexicon_dir,
            "tagger": self.tagger,
            "include_collective": self.include_collective,
            "lexicon_encoding": self.lexicon_encoding,
            "name_check": self.name_check,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(
            state["lexicon_dir"],
            state["tagger"],
            state.get("include_collective", False),
            state.get("lexicon_encoding", "utf-8"),
            state.get("name_check", "lac"),
        )

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
