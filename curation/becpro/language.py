"""``language.toml``: the grammar a BEC-Pro language folder declares, validated on load.

A language is a folder of data (see ``docs/becpro-languages.md``): persons, professions and
templates in TSV files, and this file for everything the templates need from the grammar —
the words that agree with the person (articles by gender, one entry per case where the
language has cases), elision and contraction, capitalisation at the start of the sentence,
how a masculine profession becomes feminine. The schema is a pydantic model, so an unknown
key, a missing one or a value of the wrong type is refused with the key's path, and
:func:`json_schema` gives it as JSON Schema for an editor.
"""

# ruff: noqa: RUF012  (pydantic copies a field's default for each model; ruff cannot see
# that StrictModel, imported, is a pydantic model: astral-sh/ruff#13630)
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from biasforge.curation.toml_model import StrictModel, load_toml_model
from biasforge.errors import BiasforgeError, InputError

GRAMMAR_FILE = "language.toml"
#: a BCP-47 tag as items carry it in ``language`` ("fr", "pt-BR")
_CODE = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"


class GenderedWord(StrictModel):
    """A word that agrees with the person: a template writes it as ``{name}``."""

    male: str = Field(min_length=1)
    female: str = Field(min_length=1)
    #: a marker the published templates print instead of ``{name}`` (the TFG's ``un/una``);
    #: the template may write it bare and it is replaced as a whole word
    written: str | None = Field(default=None, min_length=1)
    #: the grammatical case, for the reader (German: one entry per case, ``der``/``dem``)
    case: str | None = None

    def for_gender(self, gender: str) -> str:
        return self.male if gender == "male" else self.female


class Agreement(StrictModel):
    """Words that show a gender wherever a template or a person phrase puts them: the
    agreement check reads them back from each sentence (``este``/``esta``, ``mon``/``ma``)."""

    male: list[str] = []
    female: list[str] = []


class Elision(StrictModel):
    """A word that changes before a word starting with a vowel (French ``le`` → ``l'``,
    ``de`` → ``d'``). A form ending in an apostrophe is joined to the next word."""

    #: word → its form before a trigger
    words: dict[str, str] = Field(min_length=1)
    #: a following word that starts with one of these letters triggers the change
    before_letters: str = Field(min_length=1)
    #: and these words too (French: a mute h, ``hygiéniste``); compared in lower case
    before_words: list[str] = []
    #: false: the published corpus does not apply it; items where it would apply are flagged
    #: for review (rule ``<code>_<rule>``) with the texts below, and the sentence is kept
    apply: bool = True
    rule: str | None = None
    flagged: str | None = None
    fine: str | None = None
    description: str | None = None

    @model_validator(mode="after")
    def _review_texts(self) -> Elision:
        missing = [k for k in ("rule", "flagged", "fine", "description") if not getattr(self, k)]
        if not self.apply and missing:
            raise ValueError(f"a rule with apply = false needs {', '.join(missing)}")
        return self

    def triggers(self, word: str) -> bool:
        """Whether ``word`` (the next one) makes this rule apply."""
        lower = word.lower()
        if any(lower.startswith(w.lower()) for w in self.before_words):
            return True
        return lower[:1] != "" and lower[:1] in self.before_letters


class Contraction(StrictModel):
    """Two words that fuse (Spanish ``de el`` → ``del``, French ``à le`` → ``au``)."""

    words: tuple[str, str]
    into: str = Field(min_length=1)


PATTERN_SECONDS = 1.0  # a suffix rule takes microseconds on a word: past this it never ends


class SuffixRule(StrictModel):
    """A regular expression on a masculine word and what the feminine puts there
    (``{pattern = "ier$", replace = "ière"}``: infirmier → infirmière)."""

    pattern: str
    replace: str

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression ({exc})") from None
        return value

    def apply(self, word: str) -> str | None:
        """The feminine this rule makes of ``word``; None where the pattern does not match.

        A user's pattern can backtrack without end on some word (``^(a+)+$``); Python's
        ``re`` cannot be stopped, so the rule runs on the ``regex`` engine (same syntax) with a
        time limit, and one past it is an error naming the pattern and the word."""
        import regex

        try:
            if regex.search(self.pattern, word, timeout=PATTERN_SECONDS) is None:
                return None
            return regex.sub(self.pattern, self.replace, word, count=1, timeout=PATTERN_SECONDS)
        except TimeoutError:
            raise BiasforgeError(
                f"language.toml: the feminine rule pattern {self.pattern!r} takes over "
                f"{PATTERN_SECONDS:g} s on {word!r} (it backtracks without end, as nested "
                "repetition like (a+)+ does): write it without nested repetition"
            ) from None


class Notation(StrictModel):
    """Professions written once with a marker on each gendered word (the TFG's
    ``profesor/a``): the masculine drops the marker, the feminine applies the first
    ``feminine`` rule that matches. A profession without a marked word is used as printed
    for both genders and flagged: as a masculine whose feminine is missing when its first
    word has a masculine ending (and no epicene one), as invariant otherwise."""

    marker: str = Field(min_length=1)
    masculine_endings: list[str] = []
    epicene_endings: list[str] = []


class Grammar(StrictModel):
    """The whole of ``language.toml``."""

    code: str = Field(pattern=_CODE)
    name: str = Field(min_length=1)
    #: what the dataset card says this corpus is and where its words come from
    source: str = Field(min_length=1)
    #: template variants (``templates.tsv`` column ``variant``); the first is the default
    variants: list[str] = Field(default=["default"], min_length=1)
    #: ``one``: a ``form`` column serves both genders (no grammatical gender on nouns);
    #: ``gendered``: ``male`` and ``female`` columns; ``notation``: a ``form`` column in the
    #: notation of [inflection]
    profession_forms: Literal["one", "gendered", "notation"]
    #: upper-case the first letter of each sentence (the person phrase opens it)
    capitalise: bool = True
    words: dict[str, GenderedWord] = {}
    agreement: Agreement = Agreement()
    elision: list[Elision] = []
    contraction: list[Contraction] = []
    #: how a masculine word becomes feminine: [inflection] derives feminines with the first
    #: rule that matches; ``gendered`` professions whose feminine no rule explains are flagged
    feminine: list[SuffixRule] = []
    inflection: Notation | None = None
    #: a registered language module (``biasforge.curation.becpro.modules``) for what data
    #: cannot say; None for every bundled language
    module: str | None = None

    @field_validator("variants")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("variants must be distinct")
        return value

    @field_validator("words")
    @classmethod
    def _slot_names(cls, value: dict[str, GenderedWord]) -> dict[str, GenderedWord]:
        for name in value:
            if not re.fullmatch(r"[A-Za-z_]\w*", name) or name in ("person", "profession"):
                raise ValueError(f"{name!r} cannot name a word slot (letters, digits, _)")
        return value

    @model_validator(mode="after")
    def _notation_declared(self) -> Grammar:
        if (self.profession_forms == "notation") != (self.inflection is not None):
            raise ValueError("[inflection] is given exactly when profession_forms = 'notation'")
        if self.inflection is not None and not self.feminine:
            raise ValueError("profession_forms = 'notation' needs [[feminine]] rules")
        return self

    def gender_words(self, gender: str) -> set[str]:
        """Lower-cased words that show ``gender``: the agreement lists and the word slots."""
        listed = self.agreement.male if gender == "male" else self.agreement.female
        slots = {w.for_gender(gender) for w in self.words.values()}
        return {w.lower() for w in [*listed, *slots]}


def load_grammar(folder: Path, encoding: str = "utf-8") -> Grammar:
    """``folder/language.toml`` validated; errors name the file, the line and the key."""
    path = folder / GRAMMAR_FILE
    if not path.is_file():
        raise InputError(path, "language file not found (every language folder has one)")
    return load_toml_model(path, Grammar, encoding)


def json_schema() -> str:
    """The schema of ``language.toml`` as JSON Schema (for editors and reviewers)."""
    return json.dumps(Grammar.model_json_schema(), indent=2, ensure_ascii=False)
