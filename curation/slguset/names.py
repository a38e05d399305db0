"""Person-name detection for Chinese news sentences: jieba tokens + a small logistic scorer.

jieba's POS tags alone (``nr*`` with HMM) find ~92 % of the People's Daily sentences that name
a person but flag many that do not (precision ~0.57): its dictionary tags ordinary words such
as 许可, 田野, 史实 as ``nr`` and misses names jieba does not tag (罗干 is ``ns``, 桥本 ``n``,
unknown names such as 素帕猜 come out of the segmentation HMM untagged). Every false positive
throws away a good sentence, so the filter here scores each *candidate token* with a logistic
model over cheap, readable features: the jieba tag, dictionary frequency, length, whether it
starts with a surname, transliteration characters, and the neighbouring words (titles such as
主席/先生/同志, speech verbs 说/表示, the middle dot of foreign names, 老/小 before a surname).
The weights are trained on the *tune* half of the People's Daily dev file by
``python -m curation.slguset.train_names`` and shipped as ``data/slguset/name_model.json``;
:mod:`curation.slguset.name_eval` reports precision/recall on the held-out half.

Two token sources, same features: ``fast`` uses jieba's segmentation (HMM on) plus the
dictionary's tag for each word (about 5x faster than POS tagging), ``posseg`` uses
``jieba.posseg`` with HMM (the paper's tool). Both are trained and shipped.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "slguset"
MODEL_PATH = DATA_DIR / "name_model.json"

TITLES = frozenset(
    [
        "同志",
        "先生",
        "女士",
        "小姐",
        "主席",
        "副主席",
        "总理",
        "副总理",
        "首相",
        "总统",
        "副总统",
        "国王",
        "女王",
        "王子",
        "公主",
        "部长",
        "副部长",
        "局长",
        "副局长",
        "市长",
        "副市长",
        "县长",
        "省长",
        "副省长",
        "书记",
        "副书记",
        "委员",
        "主任",
        "副主任",
        "厂长",
        "经理",
        "总经理",
        "董事长",
        "校长",
        "院长",
        "教授",
        "博士",
        "老师",
        "大使",
        "议员",
        "总书记",
        "总督",
        "将军",
        "司令",
        "司令员",
        "政委",
        "军长",
        "师长",
        "团长",
        "队长",
        "村长",
        "乡长",
        "镇长",
        "区长",
        "州长",
        "会长",
        "社长",
        "主编",
        "总编",
        "记者",
        "大夫",
        "医生",
        "律师",
        "法官",
        "秘书长",
        "外长",
        "总裁",
        "主教",
        "教练",
        "选手",
        "老汉",
        "大爷",
        "大娘",
        "大妈",
        "师傅",
        "阿姨",
        "叔叔",
        "老人",
        "夫人",
        "太太",
        "妻子",
        "丈夫",
        "儿子",
        "女儿",
        "一家",
        "等人",
        "一行",
    ]
)
SPEECH = frozenset(
    [
        "说",
        "表示",
        "指出",
        "强调",
        "认为",
        "介绍",
        "告诉",
        "称",
        "说道",
        "回忆",
        "宣布",
        "透露",
        "承认",
        "坦言",
        "笑",
        "问",
        "答",
        "写道",
        "主持",
        "会见",
        "会晤",
        "致电",
        "致信",
        "访问",
        "出席",
        "当选",
        "获得",
    ]
)
OLD_YOUNG = frozenset(["老", "小", "阿"])
AFTER_SURNAME = frozenset(["老", "总", "某", "氏", "家", "姓"])
TRANSLIT = frozenset(
    "阿埃艾安奥巴贝本比彼宾波伯布查达德迪蒂丁杜多厄恩法菲费弗夫盖戈格古哈汉赫亨胡华霍基吉加贾杰金卡凯坎"
    "康柯科克库拉莱赖兰朗劳勒雷里利莉丽林琳隆卢鲁伦罗洛马迈麦曼梅蒙米明莫默姆穆纳娜奈内尼纽努诺欧帕佩蓬皮"
    "普奇乔切琼丘萨塞桑森沙舍什斯松苏索塔泰坦特提托图瓦威韦维温沃乌西希谢辛休雅亚扬耶伊因英尤于约扎泽詹"
    "兹佐娃娅奎妮黛薇"
)
FUNCTION_START = frozenset(
    "这那哪一二三四五是的了在有之地只仍应另连也都就又还把被从对为与和而其此该各每本我你他她它们"
)
PLACE_SUFFIX = frozenset("镇县村市省州乡区山河岛湖港湾城堡街路巷寺庙宫")
ORG_SUFFIX = frozenset("会司厂部局院所社团委队校馆店行")
WEATHER = frozenset(
    ["晴", "转", "阴", "多云", "小雨", "中雨", "大雨", "阵雨", "雷阵雨", "雪", "风", "级"]
)
_MISSING = -20.0
_CJK = re.compile(r"^[\u3400-\u9fff·]+$")
_DIGIT = re.compile(r"^[0-9０-９.．%％]+$")
_PUNCT = frozenset("，。、；：？！“”‘’（）《》「」『』—…·,.;:?!()\"' ")

TAG_GROUPS = ("nr", "nrt", "nrfg", "ns", "n", "nz", "oov", "v", "other")
NEXT_KINDS = ("title", "speech", "dot", "punct", "digit", "after_surname", "other", "end")
PREV_KINDS = ("title", "dot", "old_young", "punct", "digit", "other", "start")


def _load_surnames() -> tuple[frozenset[str], frozenset[str]]:
    single: set[str] = set()
    double: set[str] = set()
    for line in (DATA_DIR / "surnames.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        for item in line.split():
            (single if len(item) == 1 else double).add(item)
    return frozenset(single), frozenset(double)


SURNAMES, COMPOUND_SURNAMES = _load_surnames()


def _load_famous() -> re.Pattern[str]:
    names = []
    for line in (DATA_DIR / "famous_names.txt").read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            names.extend(line.split())
    names.sort(key=len, reverse=True)
    return re.compile("|".join(map(re.escape, names)))


FAMOUS = _load_famous()


def _load_places() -> frozenset[str]:
    words: set[str] = set()
    for line in (DATA_DIR / "places.txt").read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            words.update(line.split())
    return frozenset(words)


PLACES = _load_places()


def _next_kind(word: str | None) -> str:
    if word is None:
        return "end"
    if word in TITLES:
        return "title"
    if word in SPEECH:
        return "speech"
    if word == "·":
        return "dot"
    if word in _PUNCT:
        return "punct"
    if _DIGIT.match(word):
        return "digit"
    if word in AFTER_SURNAME:
        return "after_surname"
    return "other"


def _prev_kind(word: str | None) -> str:
    if word is None:
        return "start"
    if word in TITLES:
        return "title"
    if word == "·":
        return "dot"
    if word in OLD_YOUNG:
        return "old_young"
    if word in _PUNCT:
        return "punct"
    if _DIGIT.match(word):
        return "digit"
    return "other"


def _tag_group(tag: str) -> str:
    if tag in TAG_GROUPS:
        return tag
    if tag.startswith("nr"):
        return "nr"
    if tag.startswith("v"):
        return "v"
    return "other"


class Token(NamedTuple):
    """A jieba token (a NamedTuple: millions are made, a dataclass would be slower)."""

    word: str
    tag: str  # jieba tag; "oov" for a word the dictionary does not know
    start: int
    freq: int  # jieba dictionary frequency, 0 when unknown


def feature_names() -> list[str]:
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
    return names


FEATURES = feature_names()


def is_candidate(tokens: Sequence[Token], i: int) -> bool:
    """Tokens worth scoring: CJK words that jieba tags as a name, does not know, or that stand
    next to a title, a speech verb, a middle dot, or 老/小 (for a one-character surname)."""
    tok = tokens[i]
    if not _CJK.match(tok.word) or tok.word == "·" or len(tok.word) > 8:
        return False
    if tok.tag.startswith("nr") or tok.tag == "oov":
        return True
    nxt = tokens[i + 1].word if i + 1 < len(tokens) else None
    prv = tokens[i - 1].word if i > 0 else None
    if tok.tag in ("r", "m", "q", "p", "c", "u", "uj", "ul", "d", "f", "t"):
        return False
    nk, pk = _next_kind(nxt), _prev_kind(prv)
    if nk in ("title", "speech", "dot", "after_surname") or pk in ("dot", "title"):
        return True
    return len(tok.word) == 1 and tok.word in SURNAMES and pk == "old_young"


def features(tokens: Sequence[Token], i: int) -> dict[str, float]:
    """The features of token ``i``: the dense ones of :data:`FEATURES` (zeros left out) plus
    lexical ones (``w=`` the word, ``f=``/``l=`` its first/last character) that let the model
    learn the dictionary words jieba mis-tags as names (多云, 卫星, 弘扬 …)."""
    tok = tokens[i]
    word = tok.word
    x: dict[str, float] = {"bias": 1.0}
    group = _tag_group(tok.tag)
    x[f"tag={group}"] = 1.0
    n = len(word)
    x[f"len={n if n < 5 else '5+'}"] = 1.0
    log_freq = math.log10(tok.freq + 1) / 5.0
    x["log_freq"] = log_freq
    surname = word[0] in SURNAMES
    x["surname"] = float(surname)
    x["compound_surname"] = float(word[:2] in COMPOUND_SURNAMES)
    translit = sum(ch in TRANSLIT for ch in word) / n
    x["translit_ratio"] = translit
    x["all_translit"] = float(translit == 1.0 and n >= 2)
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    prv = tokens[i - 1] if i > 0 else None
    nk = _next_kind(nxt.word if nxt else None)
    pk = _prev_kind(prv.word if prv else None)
    x[f"next={nk}"] = 1.0
    x[f"prev={pk}"] = 1.0
    x["surname_x_next_title"] = float(surname and nk == "title")
    x["surname_x_next_speech"] = float(surname and nk == "speech")
    x["single_surname_old_young"] = float(
        n == 1 and surname and (pk == "old_young" or nk == "after_surname")
    )
    x["oov_x_surname"] = float(group == "oov" and surname)
    x["nr_x_next_digit"] = float(group.startswith("nr") and nk == "digit")
    x["next_is_short_oov"] = float(
        nxt is not None and nxt.tag == "oov" and len(nxt.word) <= 2 and n == 1 and surname
    )
    x["tag_nr_x_log_freq"] = log_freq if group.startswith("nr") else 0.0
    x["llr_nr_vs_n"] = _llr(word, "nr", "n")
    x["llr_nrt_vs_ns"] = _llr(word, "nrt", "ns")
    x["function_start"] = float(word[0] in FUNCTION_START)
    x["weather_context"] = float(
        (nxt is not None and nxt.word in WEATHER) or (prv is not None and prv.word in WEATHER)
    )
    x["place_suffix"] = float(n >= 2 and word[-1] in PLACE_SUFFIX)
    x["org_suffix"] = float(n >= 2 and word[-1] in ORG_SUFFIX)
    x["ns_x_translit"] = translit if tok.tag == "ns" else 0.0
    x["compound_of_words"] = float(_compound(word))
    x["in_book_title"] = float(_inside_title(tokens, i))
    x["repeated"] = float(sum(t.word == word for t in tokens) > 1)
    x["char_name_prior"] = _char_prior(word)
    x["next_de"] = float(nxt is not None and nxt.word in ("的", "之"))
    x["known_place"] = float(word in PLACES or word[:-1] in PLACES or word[:-2] in PLACES)
    x["w=" + word] = 1.0
    x["f=" + word[0]] = 1.0
    x["l=" + word[-1]] = 1.0
    return {k: v for k, v in x.items() if v}


def _inside_title(tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` sits inside 《…》 (a title of a work, not a person)."""
    for k in range(i - 1, max(-1, i - 12), -1):
        if tokens[k].word == "》":
            return False
        if tokens[k].word == "《":
            return True
    return False


@functools.lru_cache(maxsize=1)
def _char_name_table() -> dict[str, float]:
    """log((names with c + 1) / (words with c + 1)) over jieba's dictionary: how often a
    character appears in words the dictionary tags as person names (nr*)."""
    import jieba.posseg

    names: dict[str, int] = {}
    words: dict[str, int] = {}
    for word, tag in jieba.posseg.dt.word_tag_tab.items():
        is_name = tag.startswith("nr")
        for ch in set(word):
            words[ch] = words.get(ch, 0) + 1
            if is_name:
                names[ch] = names.get(ch, 0) + 1
    return {ch: math.log((names.get(ch, 0) + 1) / (n + 1)) for ch, n in words.items()}


def _char_prior(word: str) -> float:
    table = _char_name_table()
    return sum(table.get(ch, -3.0) for ch in word) / len(word) / 5.0


def _compound(word: str, min_freq: int = 50) -> bool:
    """Whether ``word`` splits into two dictionary words of 2+ characters (努力|提高): names
    almost never do, jieba's ``nr`` mistakes often do."""
    if len(word) < 4:
        return False
    freq = _dictionary_freq()
    return any(
        freq.get(word[:k], 0) >= min_freq and freq.get(word[k:], 0) >= min_freq
        for k in range(2, len(word) - 1)
    )


def _dictionary_freq() -> dict[str, int]:
    return _STATE.get("freq") or jieba_tools()[0].FREQ


_STATE: dict[str, dict[str, int]] = {}  # the FREQ table of this process's tokenizer


@functools.lru_cache(maxsize=1)
def _emissions() -> dict:
    from jieba.posseg import prob_emit

    return prob_emit.P


def _llr(word: str, tag: str, other: str) -> float:
    """Mean per-character log-likelihood ratio of ``tag`` vs ``other`` under jieba's POS HMM
    emissions (B/M/E/S by position), scaled to about [-1, 1]: how name-like the characters are."""
    emit = _emissions()
    n = len(word)
    total = 0.0
    for k, ch in enumerate(word):
        state = "S" if n == 1 else "B" if k == 0 else "E" if k == n - 1 else "M"
        a = max(emit.get((state, tag), {}).get(ch, _MISSING), _MISSING)
        b = max(emit.get((state, other), {}).get(ch, _MISSING), _MISSING)
        total += a - b
    return total / n / 10.0


@dataclass(frozen=True)
class NameModel:
    """Logistic weights over :data:`FEATURES` and the decision threshold on P(name)."""

    weights: dict[str, float]
    threshold: float
    tagger: str

    def score(self, x: dict[str, float]) -> float:
        z = sum(self.weights.get(k, 0.0) * v for k, v in x.items())
        return 1.0 / (1.0 + math.exp(-z)) if z > -50 else 0.0


def load_models(path: str | Path = MODEL_PATH) -> dict[str, NameModel]:
    """Read the shipped weights; refuse a file trained on another feature list."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data["features"] != FEATURES:
        raise ValueError(f"{path}: trained on another feature list; retrain the name model")
    return {
        tagger: NameModel(dict(m["weights"]), float(m["threshold"]), tagger)
        for tagger, m in data["models"].items()
    }


@functools.lru_cache(maxsize=4)
def jieba_tools(extra_words: tuple[str, ...] = ()):
    """A private jieba tokenizer + POS tagger for this process (no global jieba state changes).

    ``extra_words`` (e.g. the non-gender words of the lexicon) are added to this tokenizer's
    dictionary so that segmentation keeps them whole.
    """
    import logging

    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    for word in extra_words:
        if tokenizer.FREQ.get(word, 0) < 2000:
            tokenizer.add_word(word, freq=2000)
    # share the module tagger's word-tag table (read only) instead of parsing dict.txt again
    tagger = jieba.posseg.POSTokenizer.__new__(jieba.posseg.POSTokenizer)
    tagger.tokenizer = tokenizer
    tagger.word_tag_tab = jieba.posseg.dt.word_tag_tab
    return tokenizer, tagger


def tokenize(sentence: str, mode: str = "fast", extra_words: tuple[str, ...] = ()) -> list[Token]:
    """Tokens with tags: ``fast`` = segmentation + dictionary tag; ``posseg`` = jieba POS."""
    tokenizer, tagger = jieba_tools(extra_words)
    freq = tokenizer.FREQ
    _STATE["freq"] = freq
    tags = tagger.word_tag_tab
    out: list[Token] = []
    pos = 0
    if mode == "posseg":
        pairs = [(p.word, p.flag) for p in tagger.cut(sentence, HMM=True)]
    elif mode == "fast":
        pairs = [(w, tags.get(w, "oov")) for w in tokenizer.cut(sentence, HMM=True)]
    else:
        raise ValueError(f"unknown tagger {mode!r}: choose fast or posseg")
    for word, tag in pairs:
        out.append(Token(word, tag, pos, freq.get(word, 0)))
        pos += len(word)
    return out


@dataclass(frozen=True)
class NameHit:
    text: str
    start: int
    end: int
    score: float


def find_names(tokens: Sequence[Token], model: NameModel) -> list[NameHit]:
    """Well-known names (``famous_names.txt``) and candidate tokens scored at or above the
    model's threshold, with their spans."""
    text = "".join(t.word for t in tokens)
    hits = [NameHit(m.group(), m.start(), m.end(), 1.0) for m in FAMOUS.finditer(text)]
    for i, tok in enumerate(tokens):
        if is_candidate(tokens, i):
            p = model.score(features(tokens, i))
            if p >= model.threshold:
                hits.append(NameHit(tok.word, tok.start, tok.start + len(tok.word), p))
    return hits


def jieba_nr_names(tokens: Sequence[Token]) -> list[NameHit]:
    """The baseline: every token jieba's POS tagger tags ``nr*`` (use posseg tokens)."""
    return [
        NameHit(t.word, t.start, t.start + len(t.word), 1.0)
        for t in tokens
        if t.tag.startswith("nr")
    ]
