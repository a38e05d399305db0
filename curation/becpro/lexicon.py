"""The BEC-Pro inputs: professions, person phrases and templates, validated on load.

The package ships its own copy (``curation/data/becpro``); users point ``--lexicon DIR`` at a
folder with the same three files to build the corpus from their own words.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

from biasforge.curation.tables import read_tsv
from biasforge.errors import InputError
from biasforge.resources import package_path

LANGUAGES = ("en", "es", "eu")
VARIANTS = {"en": ("default",), "es": ("with_articles", "without_articles"), "eu": ("default",)}
GROUPS = ("male", "female", "balanced")  # the published corpus's order of profession groups
GENDERS = ("male", "female")
LEXICON_FILES = ("professions.tsv", "persons.tsv", "templates.tsv")
#: the slots a template fills, one per lexicon table that supplies the words (persons.tsv,
#: professions.tsv); build.render fills exactly these, so anything else would stay literal
SLOTS = ("person", "profession")
#: a person phrase is words (letters, with inner apostrophes or hyphens) separated by spaces:
#: a quote or a bracket would be copied into every sentence the phrase opens
_PHRASE = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*(?: [^\W\d_]+(?:[-'’][^\W\d_]+)*)*")


@dataclass(frozen=True)
class Profession:
    group: str
    order: int  # position in the original BEC-Pro list of its group
    en: str
    pct_women: float
    forms: dict[str, str]  # language -> form as printed (with "/a" notation for Spanish)
    notes: dict[str, str]  # language -> doubt about the printed form, for reviewers
    line: int


@dataclass(frozen=True)
class Person:
    lang: str
    gender: str
    phrase: str  # as used in the sentence, before capitalisation ("my aunt")
    word: str  # the person word that gets masked ("aunt")
    en_equivalent: str  # English phrase it stands for, aligning items across languages
    note: str
    line: int


@dataclass(frozen=True)
class Template:
    lang: str
    variant: str
    index: int  # 0..n-1 within its language and variant
    text: str
    note: str
    line: int


@dataclass(frozen=True)
class Lexicon:
    directory: Path
    professions: list[Profession]
    persons: list[Person]
    templates: list[Template]

    def files(self) -> list[Path]:
        return [self.directory / name for name in LEXICON_FILES]

    def persons_for(self, lang: str) -> list[Person]:
        return [p for p in self.persons if p.lang == lang]

    def templates_for(self, lang: str, variant: str) -> list[Template]:
        return [t for t in self.templates if t.lang == lang and t.variant == variant]


def default_lexicon_dir() -> Path:
    return package_path("biasforge.curation", "data", "becpro")


def slot(name: str) -> str:
    """How slot ``name`` (one of :data:`SLOTS`) is written in a template: ``{person}``."""
    return "{" + name + "}"


def _template_problem(row: dict[str, str]) -> str | None:
    text = row["template"]
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as exc:  # a lone { or }
        return f"template has a brace that opens or closes no slot ({exc}): {text!r}"
    unknown = [name for name in fields if name not in SLOTS]
    if unknown:
        return (
            f"unknown slot {slot(unknown[0])} in template {text!r}; "
            f"the slots are {', '.join(map(slot, SLOTS))}"
        )
    for name in SLOTS:
        if text.count(slot(name)) != 1:
            return f"template must contain {slot(name)} exactly once: {text!r}"
    if not text.startswith(slot(SLOTS[0])):
        return (
            f"template must start with {slot(SLOTS[0])} (the person phrase is capitalised): "
            f"{text!r}"
        )
    return None


def _person_problem(row: dict[str, str]) -> str | None:
    if not _PHRASE.fullmatch(row["phrase"]):
        return (
            f"person phrase {row['phrase']!r} must be words separated by single spaces "
            "(no quotes, digits or punctuation)"
        )
    if row["word"] not in row["phrase"].split():
        return f"person word {row['word']!r} is not a word of the phrase {row['phrase']!r}"
    return None


def load_lexicon(directory: str | Path | None = None, encoding: str = "utf-8") -> Lexicon:
    """Load and validate the three lexicon files; errors name the file and line.

    ``encoding`` is that of a user's folder; the bundled lexicon is always read as UTF-8.
    """
    encoding = "utf-8" if directory is None else encoding
    directory = Path(directory) if directory is not None else default_lexicon_dir()
    for name in LEXICON_FILES:
        if not (directory / name).is_file():
            raise InputError(directory / name, "lexicon file not found")

    def pct_problem(row: dict[str, str]) -> str | None:
        try:
            value = float(row["pct_women"])
        except ValueError:
            return f"pct_women must be a number, got {row['pct_women']!r}"
        if not 0 <= value <= 100:
            return f"pct_women must lie in 0..100, got {value}"
        quoted = next((lang for lang in LANGUAGES if '"' in row[lang]), None)
        if quoted:
            return f"{quoted} form {row[quoted]!r} holds a stray quote"
        if not row["becpro_order"].isdigit():
            return f"becpro_order must be a non-negative integer, got {row['becpro_order']!r}"
        return None

    professions = [
        Profession(
            group=row["group"],
            order=int(row["becpro_order"]),
            en=row["en"],
            pct_women=float(row["pct_women"]),
            forms={lang: row[lang] for lang in LANGUAGES},
            notes={lang: row.get(f"{lang}_note", "") for lang in LANGUAGES},
            line=line,
        )
        for line, row in read_tsv(
            directory / "professions.tsv",
            ["group", "becpro_order", "en", "pct_women", *LANGUAGES],
            allowed={"group": GROUPS},
            non_empty=["en", *LANGUAGES],
            validate=pct_problem,
            encoding=encoding,
        )
    ]

    persons = [
        Person(
            lang=row["lang"],
            gender=row["gender"],
            phrase=row["phrase"],
            word=row["word"],
            en_equivalent=row["en_equivalent"],
            note=row.get("note", ""),
            line=line,
        )
        for line, row in read_tsv(
            directory / "persons.tsv",
            ["lang", "gender", "phrase", "word", "en_equivalent"],
            allowed={"lang": LANGUAGES, "gender": GENDERS},
            non_empty=["phrase", "word", "en_equivalent"],
            validate=_person_problem,
            encoding=encoding,
        )
    ]
    templates: list[Template] = []
    counters: dict[tuple[str, str], int] = {}
    for line, row in read_tsv(
        directory / "templates.tsv",
        ["lang", "variant", "template"],
        allowed={"lang": LANGUAGES},
        non_empty=["variant", "template"],
        validate=_template_problem,
        encoding=encoding,
    ):
        key = (row["lang"], row["variant"])
        templates.append(
            Template(
                row["lang"],
                row["variant"],
                counters.get(key, 0),
                row["template"],
                row.get("note", ""),
                line,
            )
        )
        counters[key] = counters.get(key, 0) + 1
    _check_alignment(directory, professions, persons)
    return Lexicon(directory, professions, persons, templates)


def _check_alignment(directory: Path, professions: list[Profession], persons: list[Person]) -> None:
    """Catch lexicon edits that would silently misalign the languages."""
    seen: dict[str, int] = {}
    for prof in professions:
        if prof.en in seen:
            raise InputError(
                directory / "professions.tsv",
                f"profession {prof.en!r} is listed twice (first on line {seen[prof.en]})",
                line=prof.line,
            )
        seen[prof.en] = prof.line
    keys: dict[tuple[str, str, str], int] = {}
    for person in persons:
        key = (person.lang, person.gender, person.en_equivalent)
        if key in keys:
            raise InputError(
                directory / "persons.tsv",
                f"{person.lang} {person.gender} person for {person.en_equivalent!r} is listed twice "
                f"(first on line {keys[key]})",
                line=person.line,
            )
        keys[key] = person.line
