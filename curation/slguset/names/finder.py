"""Finding person names in a sentence: a gazetteer first, then the scored candidate tokens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from biasforge.curation.slguset.names.features import NameFeatures
from biasforge.curation.slguset.names.model import NameModel
from biasforge.curation.slguset.names.priors import DictionaryPriors
from biasforge.curation.slguset.names.tokens import Token, Tokenizer
from biasforge.curation.slguset.names.words import NameWords, load_name_words


@dataclass(frozen=True)
class NameHit:
    text: str
    start: int
    end: int
    score: float


class NameFinder:
    """A name model with everything it reads: its tokenizer (whose frequency table the
    features use), the word lists and the dictionary priors. Build one per process or task;
    nothing is shared behind the caller's back."""

    def __init__(
        self, model: NameModel, tokenizer: Tokenizer | None = None, words: NameWords | None = None
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer if tokenizer is not None else Tokenizer()
        self.words = words if words is not None else load_name_words()
        self.features = NameFeatures(self.words, DictionaryPriors(self.tokenizer))

    def tokens(self, sentence: str) -> list[Token]:
        """The sentence's tokens from the model's own token source."""
        return self.tokenizer.tokens(sentence, self.model.tagger)

    def find_in(self, sentence: str) -> list[NameHit]:
        return self.find(self.tokens(sentence))

    def find(self, tokens: Sequence[Token]) -> list[NameHit]:
        """Well-known names (``famous_names.txt``) and candidate tokens scored at or above the
        model's threshold, with their spans. A token that overlaps a well-known name is not
        scored (马克思主义 after 马克思 was found): the gazetteer decides there."""
        text = "".join(t.word for t in tokens)
        hits = [
            NameHit(m.group(), m.start(), m.end(), 1.0) for m in self.words.famous.finditer(text)
        ]
        known = [(h.start, h.end) for h in hits]
        model, features = self.model, self.features
        for i, tok in enumerate(tokens):
            end = tok.start + len(tok.word)
            if any(a < end and tok.start < b for a, b in known):
                continue
            if features.is_candidate(tokens, i):
                p = model.score(features.features(tokens, i))
                if p >= model.threshold:
                    hits.append(NameHit(tok.word, tok.start, end, p))
        return hits


def jieba_nr_names(tokens: Sequence[Token]) -> list[NameHit]:
    """The baseline: every token jieba's POS tagger tags ``nr*`` (use posseg tokens)."""
    return [
        NameHit(t.word, t.start, t.start + len(t.word), 1.0)
        for t in tokens
        if t.tag.startswith("nr")
    ]
