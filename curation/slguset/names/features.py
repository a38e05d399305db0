"""The features of a candidate token: readable, cheap, and the same for training and use.

The jieba tag, dictionary frequency, length, whether it starts with a surname, transliteration
characters, and the neighbouring words (titles and roles such as 主席/先生/同志/记者/教练,
speech verbs 说/表示, the middle dot of foreign names, 老/小 before a surname, a following
县/公司/中心 that makes the token part of a place or organisation name), position-specific
character priors from jieba's dictionary (a name rarely ends in 章, 车, 书), grammatical
characters inside HMM fragments (已高达, 更多地), and a surname glued to a preceding
conjunction (可唐|四清). Lexical features (``w=`` the word, ``f=``/``l=`` its first/last
character, ``c=`` its other characters, ``p=``/``n=`` the words before and after it) let the
model learn the dictionary words jieba mis-tags as names (多云, 卫星, 弘扬) and the company
names keep (会见, 总统, 同志); the 43k hand-tagged sentences of the PKU 1998-01 corpus the
shipped model is fitted on are what make them generalise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from biasforge.curation.slguset.names.context import (
    CJK,
    NEXT_KINDS,
    PREV_KINDS,
    TAG_GROUPS,
    inside_title,
    next_kind,
    place_or_org_word,
    prev_kind,
    tag_group,
)
from biasforge.curation.slguset.names.priors import DictionaryPriors
from biasforge.curation.slguset.names.tokens import Token
from biasforge.curation.slguset.names.words import NameWords

WORD_CACHE = 20_000  # word features cached per instance: ~1 kB an entry
_CLOSED_TAGS = ("r", "m", "q", "p", "c", "u", "uj", "ul", "d", "f", "t")


def feature_names() -> list[str]:
    """The dense features, in the order the shipped model file lists them."""
    names = ["bias"]
    names += [f"tag={t}" for t in TAG_GROUPS]
    names += [f"len={n}" for n in ("1", "2", "3", "4", "5+")]
    names += ["log_freq", "surname", "compound_surname", "translit_ratio", "all_translit"]
    names += [f"next={k}" for k in NEXT_KINDS]
    names += [f"prev={k}" for k in PREV_KINDS]
    names += ["surname_x_next_title", "surname_x_next_speech", "single_surname_old_young"]
    names += ["oov_x_surname", "nr_x_next_digit", "next_is_short_oov", "tag_nr_x_log_freq"]
    names += ["llr_nr_vs_n", "llr_nrt_vs_ns", "function_start", "weather_context"]
    names += ["place_suffix", "org_suffix", "ns_x_translit", "compound_of_words"]
    names += ["in_book_title", "repeated", "char_name_prior", "next_de", "known_place"]
    names += ["is_role", "admin_suffix", "next_place_or_org", "function_inner", "country_pair"]
    names += ["oov_part_freq", "head2_word", "tail2_word", "len1_next_given", "len1_unsupported"]
    names += ["title_ctx_x_prior", "title_ctx_x_name_tag", "first_char_prior", "last_char_prior"]
    names += ["len4_native", "surname_char_x_title", "glued_surname", "len1_next_freq"]
    return names


FEATURES = feature_names()


def _neighbours(tokens: Sequence[Token], i: int) -> tuple[Token | None, Token | None]:
    return (tokens[i - 1] if i > 0 else None), (tokens[i + 1] if i + 1 < len(tokens) else None)


class NameFeatures:
    """Candidate selection and features over one tokenizer's priors and one set of word lists.

    The features of the word alone are cached per instance; only the context ones are
    computed for every occurrence.
    """

    def __init__(self, words: NameWords, priors: DictionaryPriors) -> None:
        self.words = words
        self.priors = priors
        self.word_features = functools.lru_cache(maxsize=WORD_CACHE)(self._word_features)

    def is_candidate(self, tokens: Sequence[Token], i: int) -> bool:
        """Tokens worth scoring: CJK words that jieba tags as a name or does not know, that
        start with a surname or a transliteration character (whatever jieba's tag: it tags
        许立群 ``m``, 常 ``d``, 辛业江 ``nz``), or that stand next to a title, a speech verb, a
        middle dot, or 老/小 (for a one-character surname). The model sees many easy negatives
        this way, which also teaches it what the context features are worth."""
        tok, words = tokens[i], self.words
        if not CJK.match(tok.word) or tok.word == "·" or len(tok.word) > 8:
            return False
        if tok.tag.startswith("nr") or tok.tag == "oov":
            return True
        if tok.word[0] in words.surnames or tok.word[0] in words.translit:
            return True
        prv, nxt = _neighbours(tokens, i)
        nk = next_kind(nxt.word if nxt else None, words)
        pk = prev_kind(prv.word if prv else None, words)
        if tok.tag in _CLOSED_TAGS:
            return False
        return nk in ("title", "speech", "dot", "after_surname") or pk in ("dot", "title")

    def features(self, tokens: Sequence[Token], i: int) -> dict[str, float]:
        """The features of token ``i`` (zeros left out): the cached ones of the word, then
        those of its neighbours, then those of a one-character surname or a glued one."""
        tok = tokens[i]
        x = dict(self.word_features(tok.word, tok.tag, tok.freq))
        x.update(self._context_features(tokens, i))
        return {k: v for k, v in x.items() if v}

    def _context_features(self, tokens: Sequence[Token], i: int) -> dict[str, float]:
        tok, words = tokens[i], self.words
        word, n = tok.word, len(tok.word)
        group = tag_group(tok.tag)
        surname = word[0] in words.surnames
        prv, nxt = _neighbours(tokens, i)
        nk = next_kind(nxt.word if nxt else None, words)
        pk = prev_kind(prv.word if prv else None, words)
        nxt_cjk = nxt is not None and CJK.match(nxt.word) is not None
        x: dict[str, float] = {f"next={nk}": 1.0, f"prev={pk}": 1.0}
        # the neighbouring words themselves (learned from the training corpus: 会见, 总统, 同志 …)
        x["p=" + (prv.word if prv is not None else "<s>")] = 1.0
        x["n=" + (nxt.word if nxt is not None else "</s>")] = 1.0
        x["surname_x_next_title"] = float(surname and nk == "title")
        x["surname_x_next_speech"] = float(surname and nk == "speech")
        x["single_surname_old_young"] = float(
            n == 1 and surname and (pk == "old_young" or nk == "after_surname")
        )
        x["nr_x_next_digit"] = float(group.startswith("nr") and nk == "digit")
        x["next_is_short_oov"] = float(
            nxt is not None
            and nxt.tag == "oov"
            and len(nxt.word) <= 2
            and n == 1
            and surname
            and nxt_cjk
        )
        x["weather_context"] = float(
            (nxt is not None and nxt.word in words.weather)
            or (prv is not None and prv.word in words.weather)
        )
        x["in_book_title"] = float(inside_title(tokens, i))
        x["repeated"] = float(sum(t.word == word for t in tokens) > 1)
        x["next_de"] = float(nxt is not None and nxt.word in ("的", "之"))
        x["next_place_or_org"] = float(nxt is not None and place_or_org_word(nxt, words))
        x["surname_char_x_title"] = float(n == 1 and surname and nk == "title")
        short_next = nxt is not None and nxt_cjk and 1 <= len(nxt.word) <= 2 and nk == "other"
        x.update(self._surname_features(tok, group, surname, nxt if short_next else None))
        given = short_next and n == 1 and surname
        x["len1_unsupported"] = float(
            n == 1
            and not given
            and pk not in ("old_young", "dot", "title")
            and nk not in ("title", "after_surname", "dot", "speech")
        )
        if pk == "title" or nk == "title":
            x["title_ctx_x_prior"] = self.priors.char_prior(word) + 1.0
            x["title_ctx_x_name_tag"] = float(group.startswith("nr") or group == "oov")
        return x

    def _surname_features(
        self, tok: Token, group: str, surname: bool, short_next: Token | None
    ) -> dict[str, float]:
        """A surname glued to a preceding conjunction (可唐|四清), or a one-character surname
        followed by a short given name, scored by how name-like that next word is."""
        x: dict[str, float] = {}
        if short_next is None:
            return x
        word, prior = tok.word, self.priors.char_prior
        if (
            len(word) == 2
            and group == "oov"
            and word[0] in self.words.glue_first
            and word[1] in self.words.surnames
        ):
            x["glued_surname"] = prior(short_next.word) + 1.0
        if len(word) == 1 and surname:
            x["len1_next_given"] = prior(short_next.word) + 1.0
            x["len1_next_freq"] = math.log10(short_next.freq + 1) / 5.0
        return x

    def _word_features(self, word: str, tag: str, freq_of_word: int) -> dict[str, float]:
        """The features that depend on the word (and its tag and frequency) only."""
        words, priors = self.words, self.priors
        x: dict[str, float] = {"bias": 1.0}
        group = tag_group(tag)
        x[f"tag={group}"] = 1.0
        n = len(word)
        x[f"len={n if n < 5 else '5+'}"] = 1.0
        log_freq = math.log10(freq_of_word + 1) / 5.0
        x["log_freq"] = log_freq
        surname = word[0] in words.surnames
        x["surname"] = float(surname)
        x["compound_surname"] = float(word[:2] in words.compound_surnames)
        translit = sum(ch in words.translit for ch in word) / n
        x["translit_ratio"] = translit
        x["all_translit"] = float(translit == 1.0 and n >= 2)
        x["oov_x_surname"] = float(group == "oov" and surname)
        x["tag_nr_x_log_freq"] = log_freq if group.startswith("nr") else 0.0
        x["llr_nr_vs_n"] = priors.llr(word, "nr", "n")
        x["llr_nrt_vs_ns"] = priors.llr(word, "nrt", "ns")
        x["function_start"] = float(word[0] in words.function_start)
        x.update(self._shape_features(word, tag, translit))
        if group == "oov" and n >= 2:
            x["oov_part_freq"] = priors.oov_part_freq(word)
        if n == 3:
            x["head2_word"] = priors.plain_word_freq(word[:2])
            x["tail2_word"] = priors.plain_word_freq(word[1:])
        x["first_char_prior"] = priors.first_chars.get(word[0], -3.0) / 5.0
        x["last_char_prior"] = priors.last_chars.get(word[-1], -3.0) / 5.0 if n >= 2 else 0.0
        x["w=" + word] = 1.0
        x["f=" + word[0]] = 1.0
        x["l=" + word[-1]] = 1.0
        if 2 <= n <= 4:  # the characters after the first: given names use a few thousand
            for ch in word[1:]:
                x["c=" + ch] = 1.0
        return {k: v for k, v in x.items() if v}

    def _shape_features(self, word: str, tag: str, translit: float) -> dict[str, float]:
        """Suffixes, gazetteers and character classes of the word."""
        words, n = self.words, len(word)
        return {
            "place_suffix": float(n >= 2 and word[-1] in words.place_suffix),
            "org_suffix": float(n >= 2 and word[-1] in words.org_suffix),
            "ns_x_translit": translit if tag == "ns" else 0.0,
            "compound_of_words": float(self.priors.compound(word)),
            "char_name_prior": self.priors.char_prior(word),
            "known_place": float(
                word in words.places or word[:-1] in words.places or word[:-2] in words.places
            ),
            "is_role": float(word in words.persons),
            "admin_suffix": float(n >= 2 and word[-1] in words.admin_suffix),
            "len4_native": float(
                n == 4 and word[:2] not in words.compound_surnames and translit < 0.75
            ),
            "function_inner": float(any(ch in words.function_inner for ch in word[1:])),
            "country_pair": float(2 <= n <= 3 and all(ch in words.country_abbr for ch in word)),
        }
