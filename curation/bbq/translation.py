"""BBQ's templates and vocabulary through the translator (memory, glossary, retries), and the
checks a translated template must pass before any instance is written from it.

A template's six text fields are sent with their slots (``{{NAME1}}``, ``{{WORD2}}``…) as tags
the engine leaves alone (``<x>…</x>``, DeepL's ``ignore_tags``), so the slots come back as
slots; the fillers (group words, lexical-diversity words) and the ten "unknown" wordings are
sent as words. Gender-only first names are not translated: each of the authors' 40 is given one
of the target language's own (``names_LANG.csv``), of the same gender. A template whose slots do
not come back as sent is rejected with the field named; the templates whose names stand for
ethnic groups (Race_ethnicity's proper-name templates) are rejected too: their adaptation is
writing names of the target culture, a native template.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, unescape

import pandas as pd

from biasforge.curation.bbq.generate import Sources, default_data_dir, read_templates
from biasforge.curation.bbq.instances import UNKNOWN_OPTIONS
from biasforge.curation.bbq.rendering import Rendering
from biasforge.curation.bbq.slots import word_lists
from biasforge.curation.translation.runner import Outcome, RunStats, Unit
from biasforge.curation.translation.settings import TranslationSettings
from biasforge.errors import BiasforgeError
from biasforge.families.bbq import SLOT, slots_of

FIELDS = (
    "Ambiguous_Context",
    "Disambiguating_Context",
    "Question_negative_stereotype",
    "Question_non_negative",
    "Answer_negative",
    "Answer_non_negative",
)
_TAG = re.compile(r"</?x>")
#: templates whose proper names stand for ethnic groups: not translatable by a name list
ETHNIC_NAMES = "Race_ethnicity"


def tagged(text: str) -> str:
    """``text`` with each slot in an ``<x>`` tag the engine does not translate."""
    return SLOT.sub(lambda m: f"<x>{m.group(0)}</x>", escape(text))


def untagged(text: str) -> str:
    return unescape(_TAG.sub("", text))


@dataclass
class Translated:
    """Per category, its rendering and its rejected templates (``Q_id`` -> reason)."""

    renderings: dict[str, Rendering] = field(default_factory=dict)
    rejected: dict[str, dict[str, str]] = field(default_factory=dict)
    stats: RunStats | None = None


def _fillers(category: str, frames: pd.DataFrame, src: Sources) -> set[str]:
    """The words a category's instances can be filled with (names aside)."""
    words = set(src.vocab[src.vocab.Category == category].Name.dropna())
    for column in ("Names", "Lexical_diversity"):
        for cell in frames.get(column, pd.Series(dtype=str)):
            if len(cell) > 1:
                first, second = word_lists(cell)
                words |= set(first) | (set(second) if isinstance(second, list) else set())
    return {w for w in words if w}


def first_names(lang: str, src: Sources, data_dir: Path | None = None) -> dict[str, str]:
    """Each gender-only first name of the authors' list -> one of ``lang``'s, same gender."""
    path = (data_dir or default_data_dir()) / f"names_{lang}.csv"
    if not path.is_file():
        raise BiasforgeError(
            f"--lang {lang}: BBQ's proper-name templates need a list of first names in that "
            f"language ({path.name}, columns Name,gender) and there is none"
        )
    theirs = pd.read_csv(path)
    ours = src.names[src.names.First_last == "first_only"]
    mapping = {}
    for gender, group in ours.groupby("gender"):
        given = sorted(theirs[theirs.gender == gender].Name)
        if len(given) < len(group):
            raise BiasforgeError(f"{path}: {len(given)} {gender} names, {len(group)} needed")
        mapping |= dict(zip(sorted(group.Name), given, strict=False))
    return mapping


def _slot_problem(source: str, translated: str) -> str | None:
    sent, back = slots_of(source), slots_of(translated)
    if sent == back:
        return None
    return f"slots {sorted(sent.elements())} came back as {sorted(back.elements())}"


def _template(row: dict, outcomes: dict[Unit, Outcome]) -> tuple[dict[str, str], str | None]:
    """One template row's translated fields, or why it is rejected."""
    texts = {}
    for name in FIELDS:
        got = outcomes[Unit(tagged(row[name]), xml=True)]
        if got.text is None:
            return {}, f"{name}: not translated ({got.error})"
        texts[name] = untagged(got.text)
        problem = _slot_problem(row[name], texts[name])
        if problem:
            return {}, f"{name}: {problem}"
    return texts, None


def _units(frames: Iterable[pd.DataFrame], words: set[str]) -> list[Unit]:
    units = [
        Unit(tagged(row[n]), xml=True) for f in frames for _, row in f.iterrows() for n in FIELDS
    ]
    return list(dict.fromkeys(units + [Unit(w) for w in sorted(words)]))


def translate_categories(
    categories: Iterable[str], settings: TranslationSettings, data_dir: Path | None = None,
    progress: bool = True,
) -> Translated:  # fmt: skip
    """The renderings of ``categories`` in ``settings.lang`` (see the module docstring)."""
    src = Sources.read(data_dir)
    frames = {c: read_templates(c, data_dir) for c in categories}
    names = first_names(settings.lang, src, data_dir)
    words = set(UNKNOWN_OPTIONS).union(*(_fillers(c, f, src) for c, f in frames.items()))
    with settings.engine() as (translator, memory):
        outcomes, stats = settings.translate(
            _units(frames.values(), words), translator, memory, progress=progress
        )
    said = {w: outcomes[Unit(w)].text or w for w in words}
    unknowns = {u: said[u] for u in UNKNOWN_OPTIONS}
    out = Translated(stats=stats)
    for category, table in frames.items():
        texts, rejected = {}, {}
        for _, row in table.iterrows():
            fields, reason = _template(row.to_dict(), outcomes)
            if category == ETHNIC_NAMES and row.get("Proper_nouns_only") == "TRUE":
                reason = "its names stand for ethnic groups: write the target culture's own"
            if reason:
                rejected[str(row["Q_id"])] = reason
            texts[int(row["index"])] = fields
        out.renderings[category] = Rendering(texts, {**said, **names}, unknowns)
        out.rejected[category] = rejected
    return out
