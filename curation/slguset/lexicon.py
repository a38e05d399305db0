"""The SlguSet gender lexicon: the pairs of gender terms with counterparts, the collective
forms among them (他们/她们 …: excluded by default or flagged, with the reason), plus the word
lists the filters use (non-gender words, other gender terms, biological-sex terms).

All of it is data in ``curation/data/slguset/`` (or a folder given with ``--lexicon``), so a
curator edits the lists without touching code. Malformed rows and undecodable bytes are errors
naming file and line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from biasforge.errors import InputError
from biasforge.resources import package_path
from biasforge.textfiles import check_quotes, lines

DEFAULT_DIR = package_path("biasforge.curation", "data", "slguset")
FILES = (
    "gender_pairs.tsv",
    "non_gender_words.txt",
    "other_gender_terms.txt",
    "biological_terms.txt",
)
COLLECTIVE_FILE = "collective_forms.tsv"  # optional: a lexicon folder without it has none
DECISIONS = ("exclude", "flag")


@dataclass(frozen=True)
class Collective:
    """A form that names a group rather than one gendered person (他们, 兄弟们): ``exclude``
    (a sentence whose only keywords are such forms is dropped unless the run includes them)
    or ``flag`` (kept, flagged for review); ``reason`` is what the reviewer or the rejected row
    reads."""

    form: str
    decision: str  # "exclude" | "flag"
    reason: str


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
    collective: dict[str, Collective]
    _pattern: re.Pattern[str] = field(repr=False, compare=False)

    @property
    def pattern(self) -> re.Pattern[str]:
        """Alternation of every form, longest first (女儿 before 女)."""
        return self._pattern

    def files(self) -> list[Path]:
        names = FILES + ((COLLECTIVE_FILE,) if (self.directory / COLLECTIVE_FILE).is_file() else ())
        return [self.directory / name for name in names]

    def jieba_words(self) -> tuple[str, ...]:
        """Words jieba must keep whole: the non-gender words, for the non-gender filter to see
        them, and the multi-character collective forms (兄弟们), to be matched as one word."""
        collective = {form for form in self.collective if len(form) > 1}
        return tuple(sorted(self.non_gender_words | collective))

    def excluded(self, include_collective: bool = False) -> frozenset[str]:
        """The forms that cannot be a candidate's keyword in this run."""
        if include_collective:
            return frozenset()
        return frozenset(c.form for c in self.collective.values() if c.decision == "exclude")


def _not_chinese(word: str) -> str | None:
    """The first character of ``word`` that is not a CJK ideograph, or None.

    Every entry of the lexicon is a Chinese word matched character for character against
    Chinese sentences: a quote, a Latin letter or punctuation (``"男``) makes an entry that
    never matches, or matches where it should not, without any error.
    """
    for char in word:
        if not unicodedata.name(char, "").startswith(("CJK UNIFIED", "CJK COMPATIBILITY")):
            return char
    return None


def _check_word(path: Path, lineno: int, word: str, what: str) -> str:
    bad = _not_chinese(word)
    if bad is not None:
        raise InputError(
            path,
            f"{what} {word!r} holds {bad!r} (U+{ord(bad):04X}); entries are Chinese characters "
            "only",
            line=lineno,
        )
    return word


def _word_list(path: Path, encoding: str) -> frozenset[str]:
    if not path.is_file():
        raise InputError(path, "word list is missing")
    words: set[str] = set()
    for lineno, line in lines(path, encoding, "--lexicon-encoding"):
        line = line.split("#", 1)[0]
        words.update(_check_word(path, lineno, word, "entry") for word in line.split())
    return frozenset(words)


def _table(path: Path, header: list[str], encoding: str) -> Iterator[tuple[int, list[str]]]:
    """Rows of a tab-separated file after its header (blank and ``#`` lines skipped; a row
    with a stray double quote is refused after its own checks)."""
    header_seen = False
    for lineno, raw in lines(path, encoding, "--lexicon-encoding"):
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = raw.split("\t")
        if not header_seen:
            if cells[: len(header)] != header:
                raise InputError(path, f"header must start with {', '.join(header)}", line=lineno)
            header_seen = True
            continue
        yield lineno, cells
        check_quotes(path, [(lineno, raw)])  # once the row's own checks passed: theirs say more


def _collective(path: Path, forms: dict[str, Form], encoding: str) -> dict[str, Collective]:
    if not path.is_file():
        return {}
    out: dict[str, Collective] = {}
    for lineno, cells in _table(path, ["form", "decision", "reason"], encoding):
        if len(cells) < 3 or not all(c.strip() for c in cells[:3]):
            raise InputError(path, "need form, decision and reason (tab-separated)", line=lineno)
        form, decision, reason = (c.strip() for c in cells[:3])
        if form not in forms:
            raise InputError(path, f"{form!r} is not a form of gender_pairs.tsv", line=lineno)
        if decision not in DECISIONS:
            raise InputError(
                path, f"decision {decision!r}: choose {' or '.join(DECISIONS)}", line=lineno
            )
        out[form] = Collective(form, decision, reason)
    return out


def load_lexicon(directory: str | Path | None = None, encoding: str = "utf-8") -> Lexicon:
    """Read the lexicon folder (default: the bundled one, always UTF-8; ``encoding`` is that
    of a user's folder, ``--lexicon-encoding``)."""
    encoding = encoding if directory else "utf-8"
    directory = Path(directory) if directory else DEFAULT_DIR
    path = directory / "gender_pairs.tsv"
    if not path.is_file():
        raise InputError(path, "gender lexicon is missing")
    forms: dict[str, Form] = {}
    pairs: list[str] = []
    for lineno, cells in _table(path, ["pair", "male", "female"], encoding):
        if len(cells) < 3 or not all(c.strip() for c in cells[:3]):
            raise InputError(path, "need pair, male and female (tab-separated)", line=lineno)
        pair, male, female = (c.strip() for c in cells[:3])
        for text, gender, other in ((male, "male", female), (female, "female", male)):
            _check_word(path, lineno, text, f"{gender} form")
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
        non_gender_words=_word_list(directory / "non_gender_words.txt", encoding),
        other_gender_terms=_word_list(directory / "other_gender_terms.txt", encoding),
        biological_terms=_word_list(directory / "biological_terms.txt", encoding),
        collective=_collective(directory / COLLECTIVE_FILE, forms, encoding),
        _pattern=re.compile("|".join(map(re.escape, ordered))),
    )
