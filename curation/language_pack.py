"""Language packs: what the translated families (StereoSet, CrowS-Pairs) know of a language,
as a folder of data.

A pack is a folder (bundled ones in ``curation/data/languages/<code>/``) holding
``language.toml`` and, optionally, two word lists:

* ``language.toml`` — the language's code and name, the tokenizer the structure checks split
  its sentences with (spaCy's blank pipeline for the language, with its settings: Chinese
  segments with jieba, Japanese with SudachiPy), the words next to a slot that agree with
  what fills it (articles, demonstratives, possessives by gender and case; measure words),
  the articles stripped before comparing a word alone and inside a sentence, elision and
  contraction, and DeepL's code for the language with whether DeepL offers formality and
  glossaries for it;
* ``no_exact_translation.tsv`` — source words with no gender-neutral rendering in this
  language (``word``, ``renderings``, ``suggestion``; StereoSet's ``no_exact_translation``);
* ``group_words.tsv`` — words naming the groups of each bias type (``bias_type``, ``words``;
  CrowS-Pairs' audit of pairs written in this language).

Nothing in the pipelines names a language: they ask the pack. A pack is read once and checked
whole (:func:`load_pack`): a missing file, an unknown key or a value of the wrong type is one
line naming the file, the line and the key. The schema is a pydantic model, as BEC-Pro's
``language.toml`` (:mod:`biasforge.curation.becpro.language`) is, and it reuses its
contraction entry.
"""

# ruff: noqa: RUF012  (pydantic copies a field's default for each model; ruff cannot see
# that StrictModel, imported, is a pydantic model: astral-sh/ruff#13630)
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from biasforge.curation.becpro.language import Contraction
from biasforge.curation.toml_model import StrictModel, load_toml_model
from biasforge.errors import BiasforgeError, InputError
from biasforge.resources import package_path
from biasforge.textfiles import kind_of

PACKS = package_path("biasforge.curation", "data", "languages")
PACK_FILE = "language.toml"
NO_EXACT_FILE = "no_exact_translation.tsv"
GROUP_WORDS_FILE = "group_words.tsv"
#: a BCP-47 tag as items carry it in ``language`` ("fr", "pt-br")
_CODE = r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$"


class Tokenizer(StrictModel):
    """spaCy's blank pipeline for a language: ``spacy.blank(spacy, config=settings)``."""

    #: spaCy's language code (``zh``, ``ja``, ``fr``)
    spacy: str = Field(min_length=1)
    #: the tokenizer's settings (Chinese: ``segmenter = "jieba"``); empty: spaCy's defaults
    settings: dict[str, str | bool | int] = {}
    #: the Python package the tokenizer needs beyond spaCy (``sudachipy``), named in the
    #: error when it is missing
    needs: str | None = None


class DeepL(StrictModel):
    """What DeepL offers for the language as a target."""

    code: str = Field(min_length=2)
    formality: bool
    glossary: bool


class SlotWords(StrictModel):
    """Words that, just before a slot, agree with what fills it: one kind (articles), one
    case where the language has cases, the words by gender (or noun class)."""

    kind: str = Field(min_length=1)
    case: str | None = None
    #: gender or noun class -> the words that show it (``masculine = ["le", "un"]``)
    forms: dict[str, list[str]] = Field(min_length=1)
    #: how a flag names such a word ("gendered word", "measure word")
    described_as: str = "gendered word"

    @field_validator("forms")
    @classmethod
    def _words(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        if any(not w.strip() for words in value.values() for w in words):
            raise ValueError("a word is empty")
        return value


class PackSpec(StrictModel):
    """The whole of a pack's ``language.toml``."""

    code: str = Field(pattern=_CODE)
    name: str = Field(min_length=1)
    tokenizer: Tokenizer
    deepl: DeepL
    #: words that agree with the slot's filler when they stand just before it
    before_slot: list[SlotWords] = []
    #: articles (and partitives) that may open a noun phrase, longest first where one starts
    #: another; stripped before a word alone and the same word in a sentence are compared
    articles: list[str] = []
    #: an elided form -> the words it stands for (French ``l'`` for ``le``/``la``): a slot after
    #: it shows no gender
    elision: dict[str, list[str]] = {}
    contraction: list[Contraction] = []


@dataclass(frozen=True)
class Token:
    """A token of a text and the offset of its first character."""

    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@cache
def _spacy_tokenizer(
    path: Path, lang: str, settings: str, needs: str | None
) -> Callable[[str], Any]:
    """spaCy's blank pipeline's tokenizer for a pack (built once per process: jieba and
    SudachiPy load their dictionaries). A tokenizer that cannot be built (a package missing,
    a setting spaCy refuses) is one error naming the pack file."""
    import logging

    import spacy

    tokenizer = json.loads(settings)
    config = {"nlp": {"tokenizer": tokenizer}} if tokenizer else {}
    try:
        spacy.util.get_lang_class(lang)
    except ImportError:
        raise InputError(path, f"tokenizer: spaCy has no language {lang!r}") from None
    quiet = logging.root.manager.disable  # segmenters log their dictionary loading (jieba)
    logging.disable(logging.INFO)
    try:
        built = spacy.blank(lang, config=config).tokenizer
    except ImportError as exc:
        needs = needs or getattr(exc, "name", None) or "a package"
        raise InputError(
            path,
            f"tokenizer: spaCy's {lang!r} tokenizer needs {needs}, which is not "
            f"installed (pip install {needs})",
        ) from None
    except Exception as exc:  # spaCy's config errors: an unknown language or setting
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(path, f"tokenizer: spaCy refuses {lang!r}: {first}") from None
    finally:
        logging.disable(quiet)
    return built


@dataclass(frozen=True)
class LanguagePack:
    """A pack read from its folder: the spec and the folder's word lists."""

    folder: Path
    spec: PackSpec

    @property
    def code(self) -> str:
        return self.spec.code

    @property
    def no_exact_lexicon(self) -> Path | None:
        """The folder's no-exact-translation lexicon, if it has one."""
        path = self.folder / NO_EXACT_FILE
        return path if path.is_file() else None

    @property
    def group_words(self) -> Path | None:
        """The folder's CrowS-Pairs group words, if it has them."""
        path = self.folder / GROUP_WORDS_FILE
        return path if path.is_file() else None

    @cached_property
    def slot_words(self) -> dict[str, SlotWords]:
        """Lower-cased word -> the first entry of ``before_slot`` listing it."""
        found: dict[str, SlotWords] = {}
        for entry in self.spec.before_slot:
            for words in entry.forms.values():
                for word in words:
                    found.setdefault(word.lower(), entry)
        return found

    def check_tokenizer(self) -> None:
        """Build the tokenizer now, so a missing segmenter stops a run before it pays for
        anything (it is built once per process)."""
        self.tokens("")

    def tokens(self, text: str) -> list[Token]:
        """``text`` split by the pack's tokenizer, each token with where it starts (spaces
        are not tokens)."""
        spec = self.spec.tokenizer
        tokenizer = _spacy_tokenizer(
            self.folder / PACK_FILE, spec.spacy, json.dumps(spec.settings), spec.needs
        )
        return [Token(t.text, t.idx) for t in tokenizer(text) if not t.is_space]


def bundled() -> list[str]:
    """The codes of the bundled packs."""
    return sorted(p.name for p in PACKS.iterdir() if (p / PACK_FILE).is_file())


def pack_folder(lang: str) -> Path:
    """The folder of the pack ``lang`` names: a bundled code, or a folder path."""
    path = Path(lang)
    if path.is_dir():  # a folder the user gave: it must be a pack
        if not (path / PACK_FILE).is_file():
            raise InputError(path / PACK_FILE, "language pack file not found (a pack has one)")
        return path
    folder = PACKS / lang.lower()
    if (folder / PACK_FILE).is_file():
        return folder
    raise BiasforgeError(
        f"--lang {lang}: no language pack for {lang!r} (bundled: {', '.join(bundled())}); "
        "write one (docs/your-language.md) and give its folder"
    )


def load_pack(lang: str | Path) -> LanguagePack:
    """The pack of ``lang`` (a bundled code or a folder), checked whole: its TOML and its word
    lists' columns; one clear error naming the file, line and key otherwise."""
    folder = pack_folder(str(lang))
    spec = load_toml_model(folder / PACK_FILE, PackSpec)
    pack = LanguagePack(folder, spec)
    for path in (folder / NO_EXACT_FILE, folder / GROUP_WORDS_FILE):
        kind = kind_of(path)
        if kind not in ("missing", "a file"):
            raise InputError(path, f"{kind}, not a file")
    return pack


def target_pack(lang: str, folder: Path | None) -> LanguagePack:
    """The pack of a run's target language: the folder given (``--language-pack``), which
    must be a pack for ``lang``, or the bundled pack of ``lang``."""
    if folder is None:
        return load_pack(lang)
    pack = load_pack(folder)
    if pack.code != lang.lower():
        raise InputError(
            pack.folder / PACK_FILE, f"code: the pack is for {pack.code!r}, not --lang {lang}"
        )
    return pack


def json_schema() -> str:
    """The schema of a pack's ``language.toml`` as JSON Schema (for editors and reviewers)."""
    return json.dumps(PackSpec.model_json_schema(), indent=2, ensure_ascii=False)
