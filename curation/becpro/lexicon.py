"""BEC-Pro lexicons: the profession list and one folder of data per language.

A *lexicon* is a folder holding ``professions.tsv`` — the 60 BEC-Pro professions of Bartl et
al. (2020) with their U.S. labour-statistics group and share of women — and one *language
folder* per language (``en/``, ``de/``…), each with ``language.toml`` (its grammar, see
:mod:`~biasforge.curation.becpro.language`), ``persons.tsv``, ``professions.tsv`` (its forms of
the professions) and ``templates.tsv``. The package ships one (``curation/data/becpro``);
``--lexicon DIR`` points at another with the same layout, and ``--lang PATH`` at a single
language folder anywhere. Every file is validated on load and every error names its line.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

from biasforge.curation.becpro.grammar import slot_pattern, template_slots
from biasforge.curation.becpro.language import GRAMMAR_FILE, Grammar, load_grammar
from biasforge.curation.tables import read_tsv
from biasforge.errors import BiasforgeError, InputError
from biasforge.resources import package_path
from biasforge.textfiles import kind_of

GROUPS = ("male", "female", "balanced")  # the published corpus's order of profession groups
GENDERS = ("male", "female")
PROFESSION_LIST = "professions.tsv"
LANGUAGE_FILES = (GRAMMAR_FILE, "persons.tsv", "professions.tsv", "templates.tsv")
#: the slots every template fills from the lexicon; a grammar adds its word slots
SLOTS = ("person", "profession")
#: a person phrase is words (letters, with inner apostrophes or hyphens) separated by spaces:
#: a quote or a bracket would be copied into every sentence the phrase opens
_PHRASE = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*(?: [^\W\d_]+(?:[-'’][^\W\d_]+)*)*")
_FORM_COLUMNS = {"one": ("form",), "notation": ("form",), "gendered": ("male", "female")}


@dataclass(frozen=True)
class Listed:
    """One profession of the BEC-Pro list (the lexicon's ``professions.tsv``)."""

    group: str
    order: int  # position in the original BEC-Pro list of its group
    en: str
    pct_women: float


@dataclass(frozen=True)
class Profession:
    group: str
    order: int
    en: str
    pct_women: float
    written: dict[str, str]  # gender -> the form as the lexicon writes it (in its notation)
    note: str  # a doubt about the form, for reviewers
    line: int


@dataclass(frozen=True)
class Person:
    gender: str
    phrase: str  # as used in the sentence, before capitalisation ("my aunt")
    word: str  # the person word that gets masked ("aunt")
    en_equivalent: str  # English phrase it stands for, aligning items across languages
    note: str
    line: int


@dataclass(frozen=True)
class Template:
    variant: str
    index: int  # 0..n-1 within its variant
    text: str
    note: str
    line: int


@dataclass(frozen=True)
class Language:
    folder: Path
    grammar: Grammar
    professions: list[Profession]
    persons: list[Person]
    templates: list[Template]
    profession_list: Path

    @property
    def code(self) -> str:
        return self.grammar.code

    def files(self) -> list[Path]:
        """The inputs of a run, as its manifest lists them."""
        return [self.profession_list, *(self.folder / name for name in LANGUAGE_FILES)]

    def templates_for(self, variant: str) -> list[Template]:
        return [t for t in self.templates if t.variant == variant]


def default_lexicon_dir() -> Path:
    return package_path("biasforge.curation", "data", "becpro")


def language_codes(lexicon: Path | None = None) -> list[str]:
    """The languages of a lexicon: its sub-folders that hold a ``language.toml``."""
    root = lexicon or default_lexicon_dir()
    return sorted(p.name for p in root.iterdir() if (p / GRAMMAR_FILE).is_file())


def is_folder_argument(lang: str) -> bool:
    """``--lang`` names a folder when it is written as a path (``./it``, ``langs/it``)."""
    return any(sep in lang for sep in ("/", "\\")) or lang.startswith(".")


def language_folder(lang: str, lexicon: Path | None = None) -> Path:
    """The folder ``--lang`` means: a path as given, or a language of the lexicon."""
    if is_folder_argument(lang):
        folder = Path(lang)
        if not (folder / GRAMMAR_FILE).is_file():
            kind = kind_of(folder)
            what = "has no " + GRAMMAR_FILE if kind == "a folder" else f"is {kind}, not a folder"
            raise InputError(
                folder, f"--lang: {what}; a language folder holds {', '.join(LANGUAGE_FILES)}"
            )
        return folder
    root = _lexicon_root(lexicon)
    codes = language_codes(root)
    if lang not in codes:
        hint = (
            f" (to build from the folder {lang}, write --lang ./{lang})"
            if Path(lang).is_dir()
            else ""
        )
        raise BiasforgeError(
            f"unknown language {lang!r}; choose one of {', '.join(codes)} or give a language "
            f"folder's path{hint}"
        )
    return root / lang


def _lexicon_root(lexicon: Path | None) -> Path:
    root = Path(lexicon) if lexicon is not None else default_lexicon_dir()
    if not root.is_dir():
        raise InputError(root, "--lexicon: not a folder")
    if (root / GRAMMAR_FILE).is_file():
        raise InputError(root, f"--lexicon: this is a language folder; give it as --lang {root}")
    return root


def load_language(lang: str, lexicon: Path | None = None, encoding: str = "utf-8") -> Language:
    """Load and validate one language (``--lang`` as given) and the profession list it uses.

    ``encoding`` is that of a user's files; the bundled lexicon is always read as UTF-8.
    """
    folder = language_folder(lang, lexicon)
    list_path = _lexicon_root(lexicon) / PROFESSION_LIST
    _refuse_links_out(list_path.parent, [list_path])
    home = folder.parent if (folder.parent / PROFESSION_LIST).is_file() else folder  # a lexicon
    _refuse_links_out(home, [folder / name for name in LANGUAGE_FILES])
    listed = load_profession_list(list_path, _encoding(list_path, encoding))
    encoding = _encoding(folder, encoding)
    grammar = load_grammar(folder, encoding)
    return Language(
        folder=folder,
        grammar=grammar,
        professions=_professions(folder / "professions.tsv", grammar, listed, encoding),
        persons=_persons(folder / "persons.tsv", encoding),
        templates=_templates(folder / "templates.tsv", grammar, encoding),
        profession_list=list_path,
    )


def _refuse_links_out(folder: Path, files: list[Path]) -> None:
    """Refuse a file of ``folder`` (a lexicon, or a language folder of its own) that is a link
    to a file elsewhere: an error about it would quote a line of a file the user never meant to
    give (``/etc/passwd`` as templates.tsv). Links inside the lexicon may share a file."""
    inside = folder.resolve()
    for path in files:
        if path.is_symlink() and not path.resolve().is_relative_to(inside):
            raise InputError(
                path,
                f"is a link to {path.resolve()}, outside {folder}; a lexicon's files are read "
                "from the lexicon itself: copy the file in",
            )


def _encoding(path: Path, encoding: str) -> str:
    """``encoding`` for a user's files, UTF-8 for what biasforge ships."""
    bundled = default_lexicon_dir().resolve()
    return "utf-8" if path.resolve().is_relative_to(bundled) else encoding


def load_profession_list(path: Path, encoding: str = "utf-8") -> dict[str, Listed]:
    """The BEC-Pro professions by English name."""

    def problem(row: dict[str, str]) -> str | None:
        try:
            value = float(row["pct_women"])
        except ValueError:
            return f"pct_women must be a number, got {row['pct_women']!r}"
        if not 0 <= value <= 100:
            return f"pct_women must lie in 0..100, got {value}"
        if not row["becpro_order"].isdigit():
            return f"becpro_order must be a non-negative integer, got {row['becpro_order']!r}"
        return None

    listed: dict[str, Listed] = {}
    rows = read_tsv(
        path,
        ["group", "becpro_order", "en", "pct_women"],
        allowed={"group": GROUPS},
        non_empty=["en"],
        validate=problem,
        encoding=encoding,
    )
    for line, row in rows:
        if row["en"] in listed:
            raise InputError(path, f"profession {row['en']!r} is listed twice", line=line)
        listed[row["en"]] = Listed(
            row["group"], int(row["becpro_order"]), row["en"], float(row["pct_women"])
        )
    return listed


def _professions(
    path: Path, grammar: Grammar, listed: dict[str, Listed], encoding: str
) -> list[Profession]:
    columns = _FORM_COLUMNS[grammar.profession_forms]

    def problem(row: dict[str, str]) -> str | None:
        quoted = next((c for c in columns if '"' in row[c]), None)
        if quoted:
            return f"column '{quoted}': {row[quoted]!r} holds a stray quote"
        if row["en"] not in listed and not (row.get("group") and row.get("pct_women")):
            return (
                f"profession {row['en']!r} is not in the BEC-Pro list ({PROFESSION_LIST} of the "
                "lexicon); give its group and pct_women in this file"
            )
        if row.get("group") and row["group"] not in GROUPS:
            return f"column 'group' must be one of {', '.join(GROUPS)}, got {row['group']!r}"
        return _share_problem(row.get("pct_women") or "0")

    professions, seen = [], {}
    rows = read_tsv(
        path, ["en", *columns], non_empty=["en", *columns], validate=problem, encoding=encoding
    )
    for position, (line, row) in enumerate(rows):
        if row["en"] in seen:
            raise InputError(
                path,
                f"profession {row['en']!r} is listed twice (first on line {seen[row['en']]})",
                line=line,
            )
        seen[row["en"]] = line
        known = listed.get(row["en"])
        written = (
            {"male": row["male"], "female": row["female"]}
            if grammar.profession_forms == "gendered"
            else {"male": row["form"], "female": row["form"]}
        )
        professions.append(
            Profession(
                group=row.get("group") or known.group,  # type: ignore[union-attr]
                order=known.order if known else 1000 + position,
                en=row["en"],
                pct_women=float(row.get("pct_women") or known.pct_women),  # type: ignore[union-attr]
                written=written,
                note=row.get("note", ""),
                line=line,
            )
        )
    return professions


def _share_problem(value: str) -> str | None:
    try:
        share = float(value)
    except ValueError:
        return f"pct_women must be a number, got {value!r}"
    return None if 0 <= share <= 100 else f"pct_women must lie in 0..100, got {share}"


def _person_problem(row: dict[str, str]) -> str | None:
    if not _PHRASE.fullmatch(row["phrase"]):
        return (
            f"person phrase {row['phrase']!r} must be words separated by single spaces "
            "(no quotes, digits or punctuation)"
        )
    if row["word"] not in row["phrase"].split():
        return f"person word {row['word']!r} is not a word of the phrase {row['phrase']!r}"
    return None


def _persons(path: Path, encoding: str) -> list[Person]:
    persons, seen = [], {}
    rows = read_tsv(
        path,
        ["gender", "phrase", "word", "en_equivalent"],
        allowed={"gender": GENDERS},
        non_empty=["phrase", "word", "en_equivalent"],
        validate=_person_problem,
        encoding=encoding,
    )
    for line, row in rows:
        key = (row["gender"], row["en_equivalent"])
        if key in seen:
            raise InputError(
                path,
                f"{row['gender']} person for {row['en_equivalent']!r} is listed twice "
                f"(first on line {seen[key]})",
                line=line,
            )
        seen[key] = line
        persons.append(
            Person(
                row["gender"],
                row["phrase"],
                row["word"],
                row["en_equivalent"],
                row.get("note", ""),
                line,
            )
        )
    return persons


def _templates(path: Path, grammar: Grammar, encoding: str) -> list[Template]:
    """Templates by variant. Each is numbered as the English template it translates: the
    optional ``source_template`` column (0-4 for BEC-Pro), else its position in its variant."""

    def problem(row: dict[str, str]) -> str | None:
        if row["variant"] not in grammar.variants:
            return (
                f"variant {row['variant']!r} is not one of language.toml's variants "
                f"({', '.join(grammar.variants)})"
            )
        number = row.get("source_template", "")
        if number and not number.isdigit():
            return f"source_template must be a template number (0, 1, ...), got {number!r}"
        return template_problem(row["template"], grammar)

    templates: list[Template] = []
    seen: dict[tuple[str, int], int] = {}
    rows = read_tsv(
        path,
        ["variant", "template"],
        non_empty=["variant", "template"],
        validate=problem,
        encoding=encoding,
    )
    for line, row in rows:
        position = sum(t.variant == row["variant"] for t in templates)
        index = int(row.get("source_template") or position)
        if (row["variant"], index) in seen:
            raise InputError(
                path,
                f"two templates of variant {row['variant']!r} are number {index} "
                f"(first on line {seen[row['variant'], index]})",
                line=line,
            )
        seen[row["variant"], index] = line
        templates.append(
            Template(row["variant"], index, row["template"], row.get("note", ""), line)
        )
    return templates


def slot(name: str) -> str:
    """How slot ``name`` is written in a template: ``{person}``."""
    return "{" + name + "}"


def template_problem(text: str, grammar: Grammar) -> str | None:
    """Why a template cannot be rendered with ``grammar`` (None if it can)."""
    try:
        list(string.Formatter().parse(slot_pattern(grammar).sub("", text)))
    except ValueError as exc:  # a lone { or }
        return f"template has a brace that opens or closes no slot ({exc}): {text!r}"
    known = [*SLOTS, *grammar.words]
    names = template_slots(text, grammar)
    unknown = [name for name in names if name not in known]
    if unknown:
        return (
            f"unknown slot {slot(unknown[0])} in template {text!r}; language.toml defines "
            f"{', '.join(map(slot, known))}"
        )
    for name in SLOTS:
        if names.count(name) != 1:
            return f"template must contain {slot(name)} exactly once: {text!r}"
    if not text.startswith(slot(SLOTS[0])):
        return (
            f"template must start with {slot(SLOTS[0])} (the person phrase opens the sentence): "
            f"{text!r}"
        )
    return None
