"""BBQ's two intersectional categories (race × gender, race × SES) from their templates.

A step-by-step mirror of the authors' ``generate_from_template_intersectional_cats.py``: for
each targeted race word (or proper name of a targeted race) and each of five other race words
(or names), three contrasts — same race with the other gender/SES (``intersectional_a``), same
gender/SES with another race (``_b``), both different (``_c``) — each asked both ways round,
four instances each. Draws come from the seeded generators of
:mod:`~biasforge.curation.bbq.generate`, in the authors' order.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import pandas as pd

from biasforge.curation.bbq.generate import Draws, Sources, as_published, read_templates
from biasforge.curation.bbq.instances import instances
from biasforge.curation.bbq.slots import Slots, fill_row, word_lists

CATEGORIES = ("Race_x_gender", "Race_x_SES")
_OTHER = {"M": "F", "F": "M", "lowSES": "highSES", "highSES": "lowSES"}
_SUBCATS = ("intersectional_a", "intersectional_b", "intersectional_c")


@dataclass
class _Plan:
    """What the authors compute once per template; ``t_gs``/``non_t_gs`` are lists until a
    word is drawn from them, and stay drawn for the template's later pairs, as theirs do."""

    category: str
    row: dict
    possible: list
    bias_targets: list
    word_list: list
    proper: bool
    target_var2: str
    t_gs: Any = None
    non_t_gs: Any = None
    first_names: pd.DataFrame | None = None
    first_names_full: pd.DataFrame | None = None


def _ses_words(src: Sources, target: str) -> tuple[list, list]:
    ses = src.vocab[src.vocab.Category == "SES"]
    return (
        ses[ses.Info == target].Name.unique().tolist(),
        ses[ses.Info != target].Name.unique().tolist(),
    )


def _plan(category: str, row: dict, src: Sources, draws: Draws) -> _Plan:
    words = src.vocab[src.vocab.Category == "Race_ethnicity"]
    possible = words.Name.unique().tolist()
    targets: list = []
    targeted = possible
    if len(row["Known_stereotyped_race"]) > 0:
        targets = ast.literal_eval(row["Known_stereotyped_race"])
        targeted = [x for x in possible if x in targets]
    word_list = draws.rng.sample(targeted, 5) if len(targeted) > 4 else targeted
    plan = _Plan(
        category,
        row,
        possible,
        targets,
        word_list,
        row["Proper_nouns_only"] == "TRUE",
        row["Known_stereotyped_var2"],
    )
    names = row["Names"]
    critical = ast.literal_eval(names) if len(names) > 1 else names
    infos = row["Var2_info"]
    infos = ast.literal_eval(infos) if len(infos) > 1 else infos
    if (category == "Race_x_gender" and not plan.proper) or names != "":
        t_loc = infos.index(plan.target_var2)
        plan.t_gs, plan.non_t_gs = critical[t_loc], critical[1 - t_loc]
    else:
        plan.t_gs, plan.non_t_gs = _ses_words(src, plan.target_var2)
    if plan.proper:
        full = src.names[src.names.First_last == "first"]
        first = full[full.ethnicity.isin(targets)]
        if category == "Race_x_gender":
            first = first[first.gender == plan.target_var2]
        if category == "Race_x_SES" and row["Stated_gender_info"] != "":
            first = first[first.gender == row["Stated_gender_info"]]
        plan.word_list = draws.rng.sample(first.Name.tolist(), 5)
        plan.first_names, plan.first_names_full = first, full
    return plan


def _five(frame: pd.DataFrame, draws: Draws) -> pd.DataFrame:
    return frame.reset_index().sample(n=5, replace=False, random_state=draws.np_rng).reset_index()


def _with_last_name(
    frame: pd.DataFrame, n: int, lasts: pd.DataFrame, draws: Draws, infos: dict
) -> str:
    eth = frame.ethnicity[n]
    name = (
        frame.Name[n] + " " + draws.rng.choice(lasts[lasts.ethnicity == eth].Name.unique().tolist())
    )
    infos[name] = frame.gender[n] + "-" + eth
    return name


def _other_names(plan: _Plan, first: str, gender: str, eth: str, src: Sources, draws: Draws):
    """The five [same race, other race] (race × SES) or [a, b, c] (race × gender) name lists."""
    full = plan.first_names_full
    if plan.category == "Race_x_SES":
        frames = [
            _five(full[(~full.ethnicity.isin(plan.bias_targets)) & (full.gender == gender)], draws),
            _five(
                full[(full.ethnicity == eth) & (full.gender == gender) & (full.Name != first)],
                draws,
            ),
        ]
        frames.reverse()  # drawn different-race first, listed same-race first
    else:
        same_eth, same_gender = full.ethnicity == eth, full.gender == gender
        frames = [
            _five(full[same_eth & ~same_gender], draws),
            _five(full[~same_eth & same_gender], draws),
            _five(full[~same_eth & ~same_gender], draws),
        ]
    lasts = src.names[src.names.First_last == "last"].reset_index()
    infos: dict = {}
    lists = [
        [_with_last_name(frame, n, lasts, draws, infos) for frame in frames]
        for n in range(len(frames[0]))
    ]
    return lists, infos


@dataclass
class _Word:
    """One targeted word (or full name) and its second words, with what is recorded."""

    word: str
    second: list
    info1: Any = None
    static: Any = None
    infos: dict | None = None


def _word(plan: _Plan, first: str, src: Sources, draws: Draws) -> _Word:
    others = [n for n in plan.possible if n not in plan.word_list]
    word = _Word(first, draws.rng.sample(others, 5))  # drawn even where names replace it
    if plan.proper:
        names = plan.first_names
        gender = names.loc[names["Name"] == first, "gender"].iloc[0]
        eth = names.loc[names["Name"] == first, "ethnicity"].iloc[0]
        word.info1 = gender + "-" + eth
        lasts = src.names[(src.names.First_last == "last") & (src.names.ethnicity == eth)]
        word.word = first + " " + draws.rng.choice(lasts.Name.unique().tolist())
        word.second, word.infos = _other_names(plan, first, gender, eth, src, draws)
    word.static = word.info1
    return word


def _infos(plan: _Plan, word: _Word, second: Any) -> tuple[Any, ...]:
    """``Name1_info`` and ``Name2_info_a/b/c`` (the authors' if-chains; their two race × SES
    branches are the same code)."""
    target = plan.target_var2
    other = _OTHER.get(target)
    if plan.category == "Race_x_gender":
        if word.info1 is not None and plan.proper:
            return (word.info1, *(word.infos[name] for name in second))
        if plan.row["Var2_info"] == "":
            raise ValueError(f"template {plan.row['Q_id']}: no Var2_info")
    elif word.info1 is not None and plan.proper:
        race = [word.infos[second[0]], word.infos[second[1]], word.infos[second[1]]]
        return (
            target + "-" + word.static,
            other + "-" + race[0],
            target + "-" + race[1],
            other + "-" + race[2],
        )
    return (
        target + "-" + word.word,
        other + "-" + word.word,
        target + "-" + second,
        other + "-" + second,
    )


def _contrasts(plan: _Plan, word: _Word, second: Any) -> list[tuple]:
    """(word 2, its gender/SES word) of contrasts a, b, c; gender/SES None for proper names
    of race × gender."""
    t_gs, non_t_gs = plan.t_gs, plan.non_t_gs
    if plan.proper and plan.category == "Race_x_gender":
        return [(second[0], None), (second[1], None), (second[2], None)]
    if plan.proper:
        return [(second[0], non_t_gs), (second[1], t_gs), (second[1], non_t_gs)]
    return [(word.word, non_t_gs), (second, t_gs), (second, non_t_gs)]


def _pair_instances(
    plan: _Plan, word: _Word, second: Any, rands: tuple, draws: Draws, first_id: int
) -> list[dict]:
    info1, *infos2 = _infos(plan, word, second)
    word.info1 = info1
    lex_div = plan.row["Lexical_diversity"]
    gs1 = None if plan.proper and plan.category == "Race_x_gender" else plan.t_gs
    out: list[dict] = []
    contrasts = list(zip(_contrasts(plan, word, second), infos2, _SUBCATS, strict=True))
    for reverse in (False, True):
        for (word2, gs2), info2, subcat in contrasts:
            one, two = (word.word, gs1, info1), (word2, gs2, info2)
            if reverse:
                one, two = two, one
            filled = fill_row(plan.row, Slots(one[0], two[0], lex_div, *rands, one[1], two[1]))
            names = tuple(([w, gs] if gs1 is not None else w, info) for w, gs, info in (one, two))
            out += instances(
                filled,
                plan.category,
                subcat,
                plan.bias_targets,
                names,
                first_id + len(out),
                draws.rng,
            )
    return out


def _template_instances(plan: _Plan, src: Sources, draws: Draws, first_id: int) -> list[dict]:
    out: list[dict] = []
    lex_div = plan.row["Lexical_diversity"]
    for first in plan.word_list:
        word = _word(plan, first, src, draws)
        rand1 = rand2 = ""
        for second in word.second:
            if plan.row["Names"] == "" and plan.category == "Race_x_SES":
                plan.t_gs, plan.non_t_gs = _ses_words(src, plan.target_var2)
            if isinstance(plan.t_gs, list) and len(plan.t_gs) > 0:
                plan.t_gs = draws.rng.choice(plan.t_gs)
                plan.non_t_gs = draws.rng.choice(plan.non_t_gs)
            if len(lex_div) > 1:
                words1, words2 = word_lists(lex_div)
                rand1 = draws.rng.choice(words1)
                if len(words2) > 1:
                    rand2 = draws.rng.choice(words2)
            out += _pair_instances(plan, word, second, (rand1, rand2), draws, first_id + len(out))
    return out


def generate(category: str, seed: int = 0, data_dir=None) -> list[dict]:
    """All instances of one intersectional category, as the authors' script writes them."""
    if category not in CATEGORIES:
        raise ValueError(f"not an intersectional BBQ category: {category}")
    src, draws = Sources.read(data_dir), Draws.of(seed)
    out: list[dict] = []
    for row in read_templates(category, data_dir).to_dict("records"):
        row["Q_id"] = str(row["Q_id"])
        out += _template_instances(_plan(category, row, src, draws), src, draws, len(out))
    return [as_published(item) for item in out]
