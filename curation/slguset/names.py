"""Person-name detection for Chinese news sentences: jieba tokens + a small logistic scorer.

jieba's POS tags alone (``nr*`` with HMM) find ~92 % of the People's Daily sentences that name
a person but flag many that do not (precision ~0.57): its dictionary tags ordinary words such
as 许可, 田野, 史实 as ``nr`` and misses names jieba does not tag (罗干 is ``ns``, 桥本 ``n``,
unknown names such as 素帕猜 come out of the segmentation HMM untagged). Every false positive
throws away a good sentence, so the filter here scores each *candidate token* with a logistic
model over cheap, readable features: the jieba tag, dictionary frequency, length, whether it
starts with a surname, transliteration characters, and the neighbouring words (titles and roles
such as 主席/先生/同志/记者/教练, speech verbs 说/表示, the middle dot of foreign names, 老/小
before a surname, a following 县/公司/中心 that makes the token part of a place or organisation
name), position-specific character priors from jieba's dictionary (a name rarely ends in 章,
车, 书), grammatical characters inside HMM fragments (已高达, 更多地), and a surname glued to a
preceding conjunction (可唐|四清). Every token that starts with a surname or transliteration
character is scored whatever its jieba tag (jieba tags 许立群 ``m``, 常 ``d``).
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
# Role nouns that stand right before or after a person's name in news prose (记者某某报道,
# 教练某某说, 某某院士); general knowledge, used like TITLES for the neighbour features and, when
# a candidate *is* one of them (一位农民说), as evidence that it is not a name.
ROLES = frozenset(
    [
        "领袖",
        "领导人",
        "行长",
        "院士",
        "学者",
        "作家",
        "诗人",
        "画家",
        "书法家",
        "作曲家",
        "艺术家",
        "科学家",
        "专家",
        "演员",
        "导演",
        "歌手",
        "女星",
        "明星",
        "参议员",
        "众议员",
        "候选人",
        "发言人",
        "代表",
        "特使",
        "天皇",
        "国务卿",
        "总干事",
        "秘书",
        "助理",
        "处长",
        "科长",
        "所长",
        "站长",
        "台长",
        "馆长",
        "庭长",
        "检察长",
        "审判长",
        "理事长",
        "董事",
        "警官",
        "民警",
        "战士",
        "烈士",
        "英雄",
        "运动员",
        "教练员",
        "队员",
        "球员",
        "门将",
        "前锋",
        "棋手",
        "冠军",
        "得主",
        "工程师",
        "研究员",
        "编辑",
        "作者",
        "大师",
        "护士",
        "司机",
        "农民",
        "工人",
        "村民",
        "老太太",
        "奶奶",
        "爷爷",
        "大哥",
        "大姐",
        "姐姐",
        "妹妹",
        "哥哥",
        "弟弟",
        "母亲",
        "父亲",
        "老伴",
        "男友",
        "女友",
        "亲王",
        "王储",
        "皇帝",
        "皇后",
        "阁下",
        "上将",
        "中将",
        "少将",
        "元帅",
        "上校",
        "少校",
        "组长",
        "班长",
        "连长",
        "营长",
        "旅长",
        "老板",
        "店主",
        "君主",
        "官员",
        "负责人",
    ]
)
PERSONS = TITLES | ROLES
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
# Single characters (conjunctions, prepositions) that jieba's HMM glues onto a following surname
# (可唐|四清 for 可|唐四清, 当许|传音 for 当|许传音)
GLUE_START = frozenset("可当和与同跟向对将让给叫由被把使令")
GLUE_FIRST = GLUE_START | FUNCTION_START
ADMIN_SUFFIX = frozenset("镇县村市省州乡区")  # almost never the last character of a name
# Grammatical characters (particles, adverbs, prepositions) that HMM fragments such as 已高达,
# 更多地, 时竟, 任其 carry after their first character; given names rarely use them.
FUNCTION_INNER = frozenset("了地得着过被把已竟太很都也就还又使让从对时的么吗呢吧啊哪些个这那要会能")
# One-character country abbreviations that pair up as 韩中, 美中, 中日 (bilateral, not a name)
COUNTRY_ABBR = frozenset("中美日韩俄英法德意朝越印巴澳加泰菲欧非亚")
# Words that follow an organisation, place or product name, not a person (X公司, X指数, X内阁)
ORG_WORDS = frozenset(
    [
        "公司",
        "集团",
        "大学",
        "学院",
        "中心",
        "指数",
        "内阁",
        "基金会",
        "药业",
        "报",
        "杂志",
        "医院",
        "银行",
        "工厂",
        "政府",
        "组织",
        "协会",
        "研究所",
        "研究院",
        "委员会",
        "俱乐部",
        "商店",
        "饭店",
        "宾馆",
        "酒店",
        "银行",
        "电台",
        "电视台",
        "出版社",
        "品牌",
        "牌",
        "型",
        "师生",
        "小镇",
        "地区",
        "流域",
        "平原",
        "盆地",
        "半岛",
        "海峡",
        "运河",
        "大桥",
        "机场",
        "车站",
        "港口",
        "广场",
        "公园",
        "大街",
    ]
)
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


def _is_person_word(word: str) -> bool:
    """A title or role, alone or at the end of a longer word (银行行长, 财政部长, 本报记者)."""
    if word in PERSONS:
        return True
    return (
        3 <= len(word) <= 6
        and (word[-2:] in PERSONS or word[-3:] in PERSONS)
        and _CJK.match(word) is not None
    )


def _next_kind(word: str | None) -> str:
    if word is None:
        return "end"
    if _is_person_word(word):
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
    if _is_person_word(word):
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
    names += ["is_role", "admin_suffix", "next_place_or_org", "function_inner", "country_pair"]
    names += ["oov_part_freq", "head2_word", "tail2_word", "len1_next_given", "len1_unsupported"]
    names += ["title_ctx_x_prior", "title_ctx_x_name_tag", "first_char_prior", "last_char_prior"]
    names += ["len4_native", "surname_char_x_title", "glued_surname", "len1_next_freq"]
    return names


FEATURES = feature_names()


def is_candidate(tokens: Sequence[Token], i: int) -> bool:
    """Tokens worth scoring: CJK words that jieba tags as a name or does not know, that start
    with a surname or a transliteration character (whatever jieba's tag: it tags 许立群 ``m``,
    常 ``d``, 辛业江 ``nz``), or that stand next to a title, a speech verb, a middle dot, or
    老/小 (for a one-character surname). The model sees many easy negatives this way, which
    also teaches it what the context features are worth."""
    tok = tokens[i]
    if not _CJK.match(tok.word) or tok.word == "·" or len(tok.word) > 8:
        return False
    if tok.tag.startswith("nr") or tok.tag == "oov":
        return True
    if tok.word[0] in SURNAMES or tok.word[0] in TRANSLIT:
        return True
    nxt = tokens[i + 1].word if i + 1 < len(tokens) else None
    prv = tokens[i - 1].word if i > 0 else None
    nk, pk = _next_kind(nxt), _prev_kind(prv)
    if tok.tag in ("r", "m", "q", "p", "c", "u", "uj", "ul", "d", "f", "t"):
        return False
    return nk in ("title", "speech", "dot", "after_surname") or pk in ("dot", "title")


def features(tokens: Sequence[Token], i: int) -> dict[str, float]:
    """The features of token ``i``: the dense ones of :data:`FEATURES` (zeros left out) plus
    lexical ones (``w=`` the word, ``f=``/``l=`` its first/last character) that let the model
    learn the dictionary words jieba mis-tags as names (多云, 卫星, 弘扬 …). The features of
    the word alone are cached (:func:`_word_features`); only the context ones are computed for
    every occurrence."""
    tok = tokens[i]
    word = tok.word
    n = len(word)
    x = dict(_word_features(word, tok.tag, tok.freq))
    group = _tag_group(tok.tag)
    surname = word[0] in SURNAMES
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    prv = tokens[i - 1] if i > 0 else None
    nk = _next_kind(nxt.word if nxt else None)
    pk = _prev_kind(prv.word if prv else None)
    nxt_cjk = nxt is not None and _CJK.match(nxt.word) is not None
    x[f"next={nk}"] = 1.0
    x[f"prev={pk}"] = 1.0
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
        (nxt is not None and nxt.word in WEATHER) or (prv is not None and prv.word in WEATHER)
    )
    x["in_book_title"] = float(_inside_title(tokens, i))
    x["repeated"] = float(sum(t.word == word for t in tokens) > 1)
    x["next_de"] = float(nxt is not None and nxt.word in ("的", "之"))
    x["next_place_or_org"] = float(nxt is not None and _place_or_org_word(nxt))
    x["surname_char_x_title"] = float(n == 1 and surname and nk == "title")
    short_next = nxt is not None and nxt_cjk and 1 <= len(nxt.word) <= 2 and nk == "other"
    if (
        short_next
        and n == 2
        and group == "oov"
        and word[0] in GLUE_FIRST
        and word[1] in SURNAMES
        and nxt is not None
    ):
        x["glued_surname"] = _char_prior(nxt.word) + 1.0
    given = short_next and n == 1 and surname
    if given and nxt is not None:
        x["len1_next_given"] = _char_prior(nxt.word) + 1.0
        x["len1_next_freq"] = math.log10(nxt.freq + 1) / 5.0
    x["len1_unsupported"] = float(
        n == 1
        and not given
        and pk not in ("old_young", "dot", "title")
        and nk not in ("title", "after_surname", "dot", "speech")
    )
    if pk == "title" or nk == "title":
        x["title_ctx_x_prior"] = _char_prior(word) + 1.0
        x["title_ctx_x_name_tag"] = float(group.startswith("nr") or group == "oov")
    return {k: v for k, v in x.items() if v}


@functools.lru_cache(maxsize=20_000)  # bounded: ~1 kB an entry, a few tens of MB at most
def _word_features(word: str, tag: str, freq_of_word: int) -> dict[str, float]:
    """The features that depend on the word (and its tag and frequency) only. The frequencies
    of its parts come from the process's tokenizer (extra lexicon words only raise a few)."""
    x: dict[str, float] = {"bias": 1.0}
    group = _tag_group(tag)
    x[f"tag={group}"] = 1.0
    n = len(word)
    x[f"len={n if n < 5 else '5+'}"] = 1.0
    log_freq = math.log10(freq_of_word + 1) / 5.0
    x["log_freq"] = log_freq
    surname = word[0] in SURNAMES
    x["surname"] = float(surname)
    x["compound_surname"] = float(word[:2] in COMPOUND_SURNAMES)
    translit = sum(ch in TRANSLIT for ch in word) / n
    x["translit_ratio"] = translit
    x["all_translit"] = float(translit == 1.0 and n >= 2)
    x["oov_x_surname"] = float(group == "oov" and surname)
    x["tag_nr_x_log_freq"] = log_freq if group.startswith("nr") else 0.0
    x["llr_nr_vs_n"] = _llr(word, "nr", "n")
    x["llr_nrt_vs_ns"] = _llr(word, "nrt", "ns")
    x["function_start"] = float(word[0] in FUNCTION_START)
    x["place_suffix"] = float(n >= 2 and word[-1] in PLACE_SUFFIX)
    x["org_suffix"] = float(n >= 2 and word[-1] in ORG_SUFFIX)
    x["ns_x_translit"] = translit if tag == "ns" else 0.0
    x["compound_of_words"] = float(_compound(word))
    x["char_name_prior"] = _char_prior(word)
    x["known_place"] = float(word in PLACES or word[:-1] in PLACES or word[:-2] in PLACES)
    x["is_role"] = float(word in PERSONS)
    x["admin_suffix"] = float(n >= 2 and word[-1] in ADMIN_SUFFIX)
    x["len4_native"] = float(n == 4 and word[:2] not in COMPOUND_SURNAMES and translit < 0.75)
    x["function_inner"] = float(any(ch in FUNCTION_INNER for ch in word[1:]))
    x["country_pair"] = float(2 <= n <= 3 and all(ch in COUNTRY_ABBR for ch in word))
    freq = _dictionary_freq()
    if group == "oov" and n >= 2:
        x["oov_part_freq"] = (
            max(
                min(math.log10(freq.get(word[:k], 0) + 1), math.log10(freq.get(word[k:], 0) + 1))
                for k in range(1, n)
            )
            / 5.0
        )
    if n == 3:
        x["head2_word"] = _plain_word_freq(word[:2], freq)
        x["tail2_word"] = _plain_word_freq(word[1:], freq)
    first, last = _position_prior()
    x["first_char_prior"] = first.get(word[0], -3.0) / 5.0
    x["last_char_prior"] = last.get(word[-1], -3.0) / 5.0 if n >= 2 else 0.0
    x["w=" + word] = 1.0
    x["f=" + word[0]] = 1.0
    x["l=" + word[-1]] = 1.0
    return {k: v for k, v in x.items() if v}


def _place_or_org_word(tok: Token) -> bool:
    """Whether ``tok`` is a word that follows a place or organisation name (县, 公司, 服装厂,
    太空中心, 指数): a candidate right before it is part of that name, not a person."""
    word = tok.word
    if len(word) == 1:
        return word in ADMIN_SUFFIX
    if word in PERSONS or tok.tag.startswith("v") or not _CJK.match(word):
        return False
    return (
        word[-1] in ORG_SUFFIX
        or word[-1] in ADMIN_SUFFIX
        or any(word.endswith(w) for w in ORG_WORDS)
    )


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


@functools.lru_cache(maxsize=1)
def _position_prior() -> tuple[dict[str, float], dict[str, float]]:
    """Like :func:`_char_name_table` but by position: log-odds that a dictionary word starting
    (ending) with ``c`` is tagged as a name. Word-final characters such as 章, 车, 赛, 书, 性
    (纪念章, 吉普车, 白皮书) are rare at the end of names; surnames dominate the first position."""
    import jieba.posseg

    counts: list[dict[str, list[int]]] = [{}, {}]
    for word, tag in jieba.posseg.dt.word_tag_tab.items():
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


def _plain_word_freq(part: str, freq: dict[str, int]) -> float:
    """Scaled log frequency of ``part`` as a dictionary word not tagged as a name (0 if none)."""
    import jieba.posseg

    tag = jieba.posseg.dt.word_tag_tab.get(part)
    if tag is None or tag.startswith("nr"):
        return 0.0
    return math.log10(freq.get(part, 0) + 1) / 5.0


@functools.lru_cache(maxsize=100_000)
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


@functools.lru_cache(maxsize=100_000)
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
    model's threshold, with their spans. A token that overlaps a well-known name is not scored
    (马克思主义 after 马克思 was found): the gazetteer decides there."""
    text = "".join(t.word for t in tokens)
    hits = [NameHit(m.group(), m.start(), m.end(), 1.0) for m in FAMOUS.finditer(text)]
    known = [(h.start, h.end) for h in hits]
    for i, tok in enumerate(tokens):
        end = tok.start + len(tok.word)
        if any(a < end and tok.start < b for a, b in known):
            continue
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
