"""What jieba's own dictionary and POS model say about how name-like a word is.

Built from one :class:`~biasforge.curation.slguset.names.tokens.Tokenizer` (its frequency table, which
includes the caller's extra words) and jieba's read-only tag table and HMM emissions; every
lookup is a pure function of those tables, cached per instance.
"""

from __future__ import annotations

import functools
import math

from biasforge.curation.slguset.names.tokens import Tokenizer

_MISSING = -20.0  # log-probability floor for a character the HMM never emits


class DictionaryPriors:
    """Character priors, HMM likelihood ratios and word frequencies of one tokenizer."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        from jieba.posseg import prob_emit

        self.freq = tokenizer.freq
        self.word_tags = tokenizer.word_tags
        self.emissions = prob_emit.P
        self.char_names = _char_name_table(self.word_tags)
        self.first_chars, self.last_chars = _position_prior(self.word_tags)
        self.char_prior = functools.lru_cache(maxsize=100_000)(self._char_prior)
        self.llr = functools.lru_cache(maxsize=100_000)(self._llr)

    def _char_prior(self, word: str) -> float:
        """Mean name log-odds of the characters of ``word``, scaled by 1/5."""
        table = self.char_names
        return sum(table.get(ch, -3.0) for ch in word) / len(word) / 5.0

    def _llr(self, word: str, tag: str, other: str) -> float:
        """Mean per-character log-likelihood ratio of ``tag`` vs ``other`` under jieba's POS HMM
        emissions (B/M/E/S by position), scaled to about [-1, 1]: how name-like the characters
        are."""
        emit = self.emissions
        n = len(word)
        total = 0.0
        for k, ch in enumerate(word):
            state = "S" if n == 1 else "B" if k == 0 else "E" if k == n - 1 else "M"
            a = max(emit.get((state, tag), {}).get(ch, _MISSING), _MISSING)
            b = max(emit.get((state, other), {}).get(ch, _MISSING), _MISSING)
            total += a - b
        return total / n / 10.0

    def plain_word_freq(self, part: str) -> float:
        """Scaled log frequency of ``part`` as a dictionary word not tagged as a name (0 if
        none)."""
        tag = self.word_tags.get(part)
        if tag is None or tag.startswith("nr"):
            return 0.0
        return math.log10(self.freq.get(part, 0) + 1) / 5.0

    def compound(self, word: str, min_freq: int = 50) -> bool:
        """Whether ``word`` splits into two dictionary words of 2+ characters (努力|提高): names
        almost never do, jieba's ``nr`` mistakes often do."""
        if len(word) < 4:
            return False
        freq = self.freq
        return any(
            freq.get(word[:k], 0) >= min_freq and freq.get(word[k:], 0) >= min_freq
            for k in range(2, len(word) - 1)
        )

    def oov_part_freq(self, word: str) -> float:
        """For a word the dictionary does not know: the best split into two known parts, as the
        scaled log frequency of the rarer part."""
        freq = self.freq
        return (
            max(
                min(math.log10(freq.get(word[:k], 0) + 1), math.log10(freq.get(word[k:], 0) + 1))
                for k in range(1, len(word))
            )
            / 5.0
        )


def _char_name_table(word_tags: dict[str, str]) -> dict[str, float]:
    """log((names with c + 1) / (words with c + 1)) over jieba's dictionary: how often a
    character appears in words the dictionary tags as person names (nr*)."""
    names: dict[str, int] = {}
    words: dict[str, int] = {}
    for word, tag in word_tags.items():
        is_name = tag.startswith("nr")
        for ch in set(word):
            words[ch] = words.get(ch, 0) + 1
            if is_name:
                names[ch] = names.get(ch, 0) + 1
    return {ch: math.log((names.get(ch, 0) + 1) / (n + 1)) for ch, n in words.items()}


def _position_prior(word_tags: dict[str, str]) -> tuple[dict[str, float], dict[str, float]]:
    """Like :func:`_char_name_table` but by position: log-odds that a dictionary word starting
    (ending) with ``c`` is tagged as a name. Word-final characters such as 章, 车, 赛, 书, 性
    (纪念章, 吉普车, 白皮书) are rare at the end of names; surnames dominate the first position."""
    counts: list[dict[str, list[int]]] = [{}, {}]
    for word, tag in word_tags.items():
        if len(word) < 2:
            continue
        for side, ch in ((0, word[0]), (1, word[-1])):
            c = counts[side].setdefault(ch, [0, 0])
            c[0] += tag.startswith("nr")
            c[1] += 1
    first, last = (
        {ch: math.log((k + 1) / (n + 2)) for ch, (k, n) in side.items()} for side in counts
    )
    return first, last
