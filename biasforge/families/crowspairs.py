"""CrowS-Pairs (Nangia et al. 2020; French after Névéol et al. 2022), described once.

An item is a minimal pair: a more-stereotypical sentence (``sent_more``) and a less
stereotypical one (``sent_less``) that should differ only in the words naming the social group
(``stereo``: the more-stereotypical sentence names the disadvantaged group; ``antistereo``: the
advantaged one). Each sentence stores the character spans where it differs from the other, so
review highlights them and scoring knows which tokens are shared. Blodgett et al. (2021) found
many pairs that differ in more than the group words or are not about the stated bias type;
curation flags those, and reviewers answer "is it a minimal pair" and "does it express the
stated stereotype in this language", or fix the pair in one correction box (two lines).
"""

from __future__ import annotations

import difflib
from typing import Any

import pyarrow as pa
import regex

from biasforge.contract.schema import SPAN, Column, FamilySchema, span_problem
from biasforge.families.base import (
    Adaptation,
    Row,
    as_list,
    escape,
    html_table,
    marked,
    per_config_crosstab,
)
from biasforge.families.declaration import declared, declared_review
from biasforge.families.stereoset import TRANSLATION
from biasforge.unspaced import UNSPACED

#: the nine bias types of the published dataset, in its order of frequency
BIAS_TYPES = (
    "race-color",
    "gender",
    "socioeconomic",
    "nationality",
    "religion",
    "age",
    "sexual-orientation",
    "physical-appearance",
    "disability",
)
DIRECTIONS = ("stereo", "antistereo")
#: scripts written without spaces between words (Chinese, Japanese) are compared character by
#: character, so a pair's spans hold the characters that differ (男/女 in 那个男人/那个女人)
_TOKEN = regex.compile(rf"[{UNSPACED}]|[^\W{UNSPACED}]+(?:['’][^\W{UNSPACED}]+)*|[^\w\s]")


def differing_spans(a: str, b: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans where ``a`` and ``b`` differ, word by word (one span per changed run of
    words on each side; an insertion on one side is an empty span on the other, dropped); in
    a script without spaces (:data:`UNSPACED`) each character is a word."""
    ta, tb = list(_TOKEN.finditer(a)), list(_TOKEN.finditer(b))
    matcher = difflib.SequenceMatcher(
        a=[t.group().lower() for t in ta], b=[t.group().lower() for t in tb], autojunk=False
    )
    spans_a, spans_b = [], []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if i2 > i1:
            spans_a.append((ta[i1].start(), ta[i2 - 1].end()))
        if j2 > j1:
            spans_b.append((tb[j1].start(), tb[j2 - 1].end()))
    return spans_a, spans_b


def as_spans(spans: list[tuple[int, int]]) -> list[dict[str, int]]:
    return [{"start": s, "end": e} for s, e in spans]


def _pairs(value: Any) -> list[tuple[int, int]]:
    return [(int(s["start"]), int(s["end"])) for s in as_list(value)]


def pair_rule(row: Row) -> list[str]:
    """Both sentences non-empty and different, each span inside its sentence, and the spans
    exactly where the two differ (so scoring's shared tokens are the unmodified ones)."""
    more, less = str(row.get("sent_more") or ""), str(row.get("sent_less") or "")
    if not more.strip() or not less.strip():
        return ["both sentences must be non-empty"]
    problems = [
        span_problem(text, span, None, f"{name} differing")
        for name, text in (("sent_more", more), ("sent_less", less))
        for span in as_list(row.get(f"{name.split('_')[1]}_spans"))
    ]
    problems = [p for p in problems if p]
    if problems:
        return problems
    more_spans, less_spans = differing_spans(more, less)
    if not more_spans and not less_spans:
        return ["the two sentences are the same: nothing to compare"]
    if (more_spans, less_spans) != (_pairs(row.get("more_spans")), _pairs(row.get("less_spans"))):
        return ["the differing spans are not where the two sentences differ"]
    return []


SCHEMA = FamilySchema(
    family="crowspairs",
    columns=(
        Column("sent_more", pa.string(), nonempty=True),
        Column("sent_less", pa.string(), nonempty=True),
        Column("stereo_antistereo", pa.string(), allowed=DIRECTIONS),
        Column("bias_type", pa.string(), allowed=BIAS_TYPES),
        Column("more_spans", pa.list_(SPAN)),
        Column("less_spans", pa.list_(SPAN)),
        Column("source_sent_more", pa.string(), required=False),
        Column("source_sent_less", pa.string(), required=False),
    ),
    trailing=(Column("translation", TRANSLATION, required=False),),
    row_rules=(pair_rule,),
)


# ----------------------------------------------------------------------------- review


def pair_markdown(row: Row) -> str:
    """Both sentences side by side, each with its differing span(s) highlighted."""
    cells = [
        marked(str(row.get(name) or ""), [(s, e, "group") for s, e in _pairs(row.get(spans))])
        for name, spans in (("sent_more", "more_spans"), ("sent_less", "less_spans"))
    ]
    return html_table(["more stereotypical", "less stereotypical"], [cells])


def to_record(row: Row) -> dict[str, Any]:
    direction = str(row.get("stereo_antistereo"))
    lines = [
        f"**Bias type:** {escape(row.get('bias_type'))}",
        "**Direction:** "
        + (
            "the more-stereotypical sentence names the disadvantaged group (stereotype)"
            if direction == "stereo"
            else "the more-stereotypical sentence names the advantaged group (anti-stereotype)"
        ),
    ]
    if row.get("source_sent_more"):
        lines.append(
            f"**English source:** {escape(row.get('source_sent_more'))} / "
            f"{escape(row.get('source_sent_less'))}"
        )
    return {
        "fields": {"pair": pair_markdown(row), "source": "\n\n".join(lines)},
        "metadata": {"domain": str(row.get("bias_type")), "direction": direction},
        "suggestions": {"correction": f"{row.get('sent_more')}\n{row.get('sent_less')}"},
    }


def apply_correction(row: Row, text: str) -> Row:
    """Two lines: the more-stereotypical sentence, then the less; spans re-derived."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) != 2:
        raise ValueError(
            f"the correction must hold two lines (more, then less stereotypical), has {len(lines)}"
        )
    more, less = lines
    more_spans, less_spans = differing_spans(more, less)
    if not more_spans and not less_spans:
        raise ValueError("the corrected sentences are the same")
    return dict(
        row,
        sent_more=more,
        sent_less=less,
        more_spans=as_spans(more_spans),
        less_spans=as_spans(less_spans),
    )


def corrected_sources(before: Row, after: Row) -> list[tuple[str, str]]:
    """A corrected sentence of a translated pair becomes the preferred translation of its
    English source."""
    pairs = []
    for name in ("sent_more", "sent_less"):
        source = before.get(f"source_{name}")
        if source and after.get(name) != before.get(name):
            pairs.append((str(source), str(after[name])))
    return pairs


REVIEW = declared_review(
    "crowspairs",
    to_record=to_record,
    apply_correction=apply_correction,
    corrected_sources=corrected_sources,
    # an agreed correction makes it a minimal pair; the stereotype must still hold
    accepts_corrected=lambda d: d.get("stereotype") == "yes",
    settled_by_correction=("minimal_pair",),
    adaptation=Adaptation(domain="bias_type"),  # translated: SHADES' question (issue 44)
)


# ----------------------------------------------------------------------------- release


def statistics(configs: dict[str, pa.Table]) -> str:
    """Bias type × direction per language (every bias type a row; the directions are columns)."""
    return per_config_crosstab(
        configs, "bias_type", "stereo_antistereo",
        lambda config, n: f"**{config}** ({n} pairs): bias type × direction",
    )  # fmt: skip


FAMILY = declared(
    "crowspairs",
    schema=SCHEMA,
    review=REVIEW,
    statistics=statistics,
)
