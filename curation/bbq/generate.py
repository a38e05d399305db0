"""The instances of BBQ's nine single-dimension categories, generated from the templates.

A step-by-step mirror of the authors' ``generate_from_template_all_categories.py``
(nyu-mll/BBQ): for every template, the group words to pair (from the vocabulary, the
template's own ``Names``, or proper names), every ordered pair of them (both orders where the
authors flip), the lexical-diversity words, and the four instances of each pair
(:mod:`~biasforge.curation.bbq.instances`). Every draw the authors make from Python's global
``random`` is made, in the same order, from a ``random.Random(seed)``, and pandas' row
sampling from a ``numpy`` generator of the same seed: one seed, one output.

Where the authors draw nothing but the "unknown" wording and the answer order, the output
equals the published instances up to those two draws (``tests/bbq/test_generate.py``).
"""

from __future__ import annotations

import ast
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from biasforge.curation.bbq.instances import instances
from biasforge.curation.bbq.rendering import ENGLISH, Rendering
from biasforge.curation.bbq.slots import Slots, fill_row, word_lists
from biasforge.resources import package_path

#: the categories of the authors' single-dimension script, in its order
CATEGORIES = (
    "Disability_status",
    "Age",
    "Physical_appearance",
    "SES",
    "Gender_identity",
    "Race_ethnicity",
    "Religion",
    "Nationality",
    "Sexual_orientation",
)

#: categories whose templates name the targeted groups, and whose pairs are asked both ways
NEED_STEREOTYPING_SUBSET = ("Race_ethnicity", "Religion", "Nationality", "Sexual_orientation")


def default_data_dir() -> Path:
    """The bundled templates and vocabularies (nyu-mll/BBQ, CC BY 4.0)."""
    return package_path("biasforge.curation", "data", "bbq")


@dataclass
class Sources:
    """The vocabularies, read as the authors read them (empty cells are NaN)."""

    vocab: pd.DataFrame
    names: pd.DataFrame

    @classmethod
    def read(cls, data_dir: Path | None = None) -> Sources:
        root = data_dir or default_data_dir()
        vocab = pd.read_csv(root / "vocabulary.csv")
        vocab = vocab[vocab.Pilot_include != "No"]
        return cls(vocab, pd.read_csv(root / "vocabulary_proper_names.csv"))


def read_templates(category: str, data_dir: Path | None = None) -> pd.DataFrame:
    """A category's templates as the authors read them: no NaN, empty rows dropped, and the
    authors' ``reset_index`` (its ``index`` column is a column of the row, never a text)."""
    root = data_dir or default_data_dir()
    frames = pd.read_csv(root / "templates" / f"{category}.csv", na_filter=False)
    return frames[frames.Ambiguous_Context != ""].reset_index()


@dataclass
class Draws:
    """The seeded stand-ins of the authors' unseeded ``random`` and ``DataFrame.sample``."""

    rng: random.Random
    np_rng: np.random.Generator

    @classmethod
    def of(cls, seed: int) -> Draws:
        return cls(random.Random(seed), np.random.default_rng(seed))


@dataclass
class _Row:
    """What the authors compute once per template before pairing its words."""

    category: str
    row: dict
    words: pd.DataFrame
    possible: list
    bias_targets: Any
    word_list: list
    proper: bool
    subcat: str
    critical_words: str
    fixed_second: list | str = ""
    first_names: pd.DataFrame | None = None
    first_names_full: pd.DataFrame | None = None


@dataclass
class _Leaks:
    """Names lists the authors' loop keeps from one template to the next (Python variables
    outlive their loop iteration); kept so that a template relying on them behaves the same."""

    first_names: pd.DataFrame | None = None
    first_names_full: pd.DataFrame | None = None


def _targets(category: str, row: dict, possible: list) -> tuple[Any, list]:
    raw = row["Known_stereotyped_groups"]
    if len(raw) > 1 and category in NEED_STEREOTYPING_SUBSET:
        targets = ast.literal_eval(raw)
        return targets, [x for x in possible if x in targets]
    return ast.literal_eval(raw), possible


def _proper_names(plan: _Row, src: Sources, draws: Draws, leaks: _Leaks) -> None:
    names = src.names
    if plan.category == "Race_ethnicity":
        if len(plan.bias_targets) >= 1:
            leaks.first_names_full = names[names.First_last == "first"]
            first = leaks.first_names_full[leaks.first_names_full.ethnicity.isin(plan.bias_targets)]
        else:
            first = names[names.First_last == "first"]
        plan.word_list = draws.rng.sample(first.Name.tolist(), 5)
    elif plan.category == "Gender_identity":
        first = names[names.First_last == "first_only"]
        plan.word_list = draws.rng.sample(first[first.gender == "F"].Name.tolist(), 5)
    else:
        first = names[names.First_last == "first_only"]
        plan.word_list = draws.rng.sample(first.Name.tolist(), 6)
    leaks.first_names = first


def _plan(category: str, row: dict, src: Sources, draws: Draws, leaks: _Leaks) -> _Row:
    """The words of one template (the first half of the authors' loop body)."""
    words = src.vocab[src.vocab.Category == category]
    possible = words.Name.unique().tolist()
    bias_targets, targeted = _targets(category, row, possible)
    if len(targeted) > 4:
        word_list = draws.rng.sample(targeted, 5)
    elif len(possible) < 2:
        word_list = []
    else:
        word_list = targeted
    proper = row.get("Proper_nouns_only") == "TRUE"
    subcat = "None"
    if "Subcategory" in row and len(row["Subcategory"]) > 1:
        subcat = row["Subcategory"]
        words = words[words.SubCat == subcat]
        word_list = words.Name.unique().tolist()
        if len(word_list) > 5:
            word_list = draws.rng.sample(word_list, 5)
    plan = _Row(category, row, words, possible, bias_targets, word_list, proper, subcat, "")
    if "Names" in row:
        plan.critical_words = row["Names"]
        if len(plan.critical_words) > 1:
            plan.word_list, plan.fixed_second = word_lists(plan.critical_words)
    if proper:
        _proper_names(plan, src, draws, leaks)
    plan.first_names, plan.first_names_full = leaks.first_names, leaks.first_names_full
    return plan


@dataclass
class _Pairing:
    """The second words of one first word, and what the authors record about them."""

    word: str
    second: list | str
    info1: Any = None
    info2_of: dict = field(default_factory=dict)


def _race_names(plan: _Row, word: str, src: Sources, draws: Draws) -> _Pairing:
    first, full, names = plan.first_names, plan.first_names_full, src.names
    gender = first.loc[first["Name"] == word, "gender"].iloc[0]
    ethnicity = first.loc[first["Name"] == word, "ethnicity"].iloc[0]
    last = names[(names.First_last == "last") & (names.ethnicity == ethnicity)]
    full_word = word + " " + draws.rng.choice(last.Name.unique().tolist())
    others = full[(~full.ethnicity.isin(plan.bias_targets)) & (full.gender == gender)]
    others = others.reset_index().sample(n=5, replace=False, random_state=draws.np_rng)
    others = others.reset_index()
    other_last = names[
        (names.First_last == "last") & (~names.ethnicity.isin(plan.bias_targets))
    ].reset_index()
    pairing = _Pairing(full_word, [], gender + "-" + ethnicity)
    for n in range(len(others)):
        eth = others.ethnicity[n]
        lasts = other_last[other_last.ethnicity == eth].Name.unique().tolist()
        second = others.Name[n] + " " + draws.rng.choice(lasts)
        pairing.second.append(second)
        pairing.info2_of[second] = others.gender[n] + "-" + eth
    return pairing


def _pairing(plan: _Row, word: str, src: Sources, draws: Draws) -> _Pairing:
    """The second words of ``word`` (the first half of the authors' loop over words)."""
    pairing = _Pairing(word, plan.fixed_second)
    if len(plan.critical_words) >= 2:
        return pairing
    if len(plan.bias_targets) > 0 and plan.category in NEED_STEREOTYPING_SUBSET:
        second = [n for n in plan.possible if n not in plan.bias_targets]
        pairing.second = draws.rng.sample(second, 5) if len(second) > 4 else second
    else:
        pairing.second = [n for n in plan.word_list if n != word]
    if plan.category == "SES" and not plan.proper:
        words = plan.words
        pairing.info1 = words.loc[words["Name"] == word, "Info"].iloc[0]
        pairing.second = words[words.Info != pairing.info1].Name.unique().tolist()
    if plan.category == "Gender_identity" and plan.proper:
        first = plan.first_names
        pairing.info1 = first.loc[first["Name"] == word, "gender"].iloc[0]
        others = first[first.gender != pairing.info1].Name.unique().tolist()
        pairing.second = draws.rng.sample(others, 5)
    if plan.category == "Race_ethnicity" and plan.proper:
        return _race_names(plan, word, src, draws)
    return pairing


def _infos(plan: _Row, pairing: _Pairing, second: str, k: int, src: Sources) -> tuple:
    """What ``answer_info`` records about the two words (the authors' if-chain)."""
    row, category, info1, info2 = plan.row, plan.category, pairing.info1, None
    if info1 is not None and category == "Race_ethnicity" and plan.proper:
        info2 = pairing.info2_of[second]
    elif category == "Gender_identity" and plan.proper:
        first = plan.first_names
        matches = first.loc[first["Name"] == second, "gender"]
        info2 = matches.iloc[0] if len(matches) else second
        if row["NAME1_info"] != "":
            if k == 0:
                pairing.info1 = info1 = row["NAME1_info"] + "_" + info1
            info2 = row["NAME2_info"] + "_" + info2
    elif category == "Nationality" or (category == "SES" and plan.subcat == "Occupation"):
        vocab = src.vocab
        info1 = vocab.loc[vocab["Name"] == pairing.word, "Info"].iloc[0]
        info2 = vocab.loc[vocab["Name"] == second, "Info"].iloc[0]
    elif "NAME1_info" in row:
        if row["NAME1_info"] != "":
            info1, info2 = row["NAME1_info"], row["NAME2_info"]
        else:
            info1, info2 = pairing.word, second
    else:
        info1, info2 = pairing.word, second
    pairing.info1 = info1
    return info1, info2


def _lexical_words(lex_div: str, rand2: str, draws: Draws) -> tuple[str, str]:
    if len(lex_div) <= 1:
        return "", rand2
    first, second = word_lists(lex_div)
    rand1 = draws.rng.choice(first)
    if len(second) > 1:
        rand2 = draws.rng.choice(second)
    return rand1, rand2


def _made_from(row: dict, slots: Slots) -> dict:
    """What an instance was made from: its template's ambiguous context (slots in place) and
    the words filling its slots (a corrected template is filled with them again)."""
    words = len(slots.lex_div) > 1
    fillers = {
        "NAME1": slots.word1,
        "NAME2": slots.word2,
        "WORD1": slots.rand1 if words else "",
        "WORD2": slots.rand2 if words else "",
    }
    return {"template_context": row["Ambiguous_Context"], "fillers": fillers}  # fmt: skip


def _template_instances(
    plan: _Row,
    src: Sources,
    draws: Draws,
    first_id: int,
    rendering: Rendering | None,
    record: list[dict] | None = None,
) -> list[dict]:
    """Every instance of one template, numbered from ``first_id`` (in the language of
    ``rendering``, else the authors' English); what each was made from is added to
    ``record`` when one is given."""
    out: list[dict] = []
    render = rendering or ENGLISH
    row = render.row(plan.row)
    flip = (
        plan.category in NEED_STEREOTYPING_SUBSET
        or plan.proper
        or (plan.category == "SES" and plan.subcat == "Occupation")
    )
    lex_div = plan.row["Lexical_diversity"]
    for word in plan.word_list:
        pairing = _pairing(plan, word, src, draws)
        rand2 = ""
        for k, second in enumerate(pairing.second):
            rand1, rand2 = _lexical_words(lex_div, rand2, draws)
            info1, info2 = _infos(plan, pairing, second, k, src)
            for a, b in (
                ((pairing.word, info1), (second, info2)),
                ((second, info2), (pairing.word, info1)),
            ):
                slots = render.slots(Slots(a[0], b[0], lex_div, rand1, rand2))
                filled = fill_row(row, slots, english=rendering is None)
                made = instances(
                    filled,
                    plan.category,
                    plan.subcat,
                    plan.bias_targets,
                    render.named((a, b)),
                    first_id + len(out),
                    draws.rng,
                    render.unknown,
                )
                out += made
                if record is not None:
                    record += [_made_from(row, slots)] * len(made)
                if not flip:
                    break
    return out


def as_published(item: dict) -> dict:
    # the authors write json.dumps(item, default=str): numpy integers (the template id) become
    # strings; the round trip gives the published values and types
    return json.loads(json.dumps(item, default=str))


def generate(
    category: str,
    seed: int = 0,
    data_dir: Path | None = None,
    rendering: Rendering | None = None,
    record: list[dict] | None = None,
) -> list[dict]:
    """All instances of one single-dimension category, as the authors' script writes them; with
    a ``rendering``, the same instances (same draws, same answer order and metadata) in its
    language, from its translated templates and words. ``record`` receives, per instance, its
    template's ambiguous context and its slots' words (kept apart from the published fields)."""
    if category not in CATEGORIES:
        raise ValueError(f"not a single-dimension BBQ category: {category}")
    src = Sources.read(data_dir)
    draws, leaks = Draws.of(seed), _Leaks()
    frames = read_templates(category, data_dir)
    records = frames.to_dict("records")
    out: list[dict] = []
    for row in records:
        # the authors' numpy template id reaches json.dumps(default=str) as a string
        row["Q_id"] = str(row["Q_id"])
        plan = _plan(category, row, src, draws, leaks)
        out += _template_instances(plan, src, draws, len(out), rendering, record)
    return [as_published(item) for item in out]
