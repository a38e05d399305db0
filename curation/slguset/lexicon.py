"""The SlguSet gender lexicon: 16 pairs of gender terms with counterparts, plus the word lists
the filters use (non-gender words, other gender terms, biological-sex terms).

All of it is data in ``curation/data/slguset/`` (or a folder given with ``--lexicon``), so a
curator edits the lists without touching code. Malformed rows are errors naming file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from biasforge.errors import InputError

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "data" / "slguset"
FILES = (
    "gender_pairs.tsv",
    "non_gender_words.txt",
    "other_gender_terms.txt",
    "biological_terms.txt",
)


@dataclass(frozen=True)
class Form:
    """One surface form of a gender term: its pair, gender and the opposite form."""

    text: str
    pair: str
    gender: str  # "male" | "female"
    counterpart: str


@dataclass(frozen=True)
class Lexicon:
    directory: Path
    forms: dict[str, Form]
    pairs: tuple[str, ...]
    non_gender_words: frozenset[str]
    other_gender_terms: frozenset[str]
    biological_terms: frozenset[str]
    _pattern: re.Pattern[str] = field(repr=False, compare=False)

    @property
    def pattern(self) -> re.Pattern[str]:
        """Alternation of every form, longest first (女儿 before 女)."""
        return self._pattern

    def files(self) -> list[Path]:
        return [self.directory / name for name in FILES]

    def jieba_words(self) -> tuple[str, ...]:
        """Words jieba must keep whole for the non-gender filter to see them."""
        return tuple(sorted(self.non_gender_words))


def _word_list(path: Path) -> frozenset[str]:
    if not path.is_file():
        raise InputError(path, "word list is missing")
    words: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0]
        words.update(line.split())
    return frozenset(words)


def load_lexicon(directory: str | Path | None = None) -> Lexicon:
    """Read the lexicon folder (default: the bundled one)."""
    directory = Path(directory) if directory else DEFAULT_DIR
    path = directory / "gender_pairs.tsv"
    if not path.is_file():
        raise InputError(path, "gender lexicon is missing")
    forms: dict[str, Form] = {}
    pairs: list[str] = []
    header_seen = False
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = raw.split("\t")
        if not header_seen:
            if cells[:3] != ["pair", "male", "female"]:
                raise InputError(path, "header must start with pair, male, female", line=lineno)
            header_seen = True
            continue
        if len(cells) < 3 or not all(c.strip() for c in cells[:3]):
            raise InputError(path, "need pair, male and female (tab-separated)", line=lineno)
        pair, male, female = (c.strip() for c in cells[:3])
        for text, gender, other in ((male, "male", female), (female, "female", male)):
            if text in forms and forms[text].pair != pair:
                raise InputError(
                    path, f"{text!r} is already a form of pair {forms[text].pair}", line=lineno
                )
            forms[text] = Form(text, pair, gender, other)
        if pair not in pairs:
            pairs.append(pair)
    if not forms:
        raise InputError(path, "no gender pairs")
    ordered = sorted(forms, key=lambda f: (-len(f), f))
    return Lexicon(
        directory=directory,
        forms=forms,
        pairs=tuple(pairs),
        non_gender_words=_word_list(directory / "non_gender_words.txt"),
        other_gender_terms=_word_list(directory / "other_gender_terms.txt"),
        biological_terms=_word_list(directory / "biological_terms.txt"),
        _pattern=re.compile("|".join(map(re.escape, ordered))),
    )
