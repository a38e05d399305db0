"""BEC-Pro (Bartl et al. 2020; Spanish and Basque after Azpillaga Rivera 2021), described once.

Items are templated sentences pairing a person word with a profession; they store character
spans of the person word, the profession and each profession word, so each consumer renders
the mask it needs. Review asks the TFG's questions: is the sentence grammatical, do articles
and the profession agree with the person's gender; a reviewer fixes a No by editing the
sentence, and the spans are located again in the corrected text.
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa

from biasforge.contract.schema import GENDERS, SPAN, Column, FamilySchema, span_problem
from biasforge.families.base import (
    Row,
    as_list,
    escape,
    follow_span,
    mark,
    marked,
    per_config_crosstab,
    sentence_sources,
)
from biasforge.families.declaration import declared, declared_review
from biasforge.rules import review_state

GROUPS = ("male", "female", "balanced")  # the published corpus's order of profession groups


def spans_rule(row: Row) -> list[str]:
    """Spans lie inside the sentence and cover the words they name."""
    text = row.get("sentence") or ""
    problems = [
        span_problem(text, row.get("person_span"), row.get("person"), "person"),
        span_problem(text, row.get("profession_span"), row.get("profession"), "profession"),
    ]
    outer = row.get("profession_span") or {}
    for span in row.get("profession_word_spans") or []:
        problem = span_problem(text, span, None, "profession word")
        inside = outer.get("start", 0) <= span["start"] and span["end"] <= outer.get(
            "end", len(text)
        )
        if problem is None and not inside:
            problem = (
                f"profession word span {span['start']}:{span['end']} lies outside the profession"
            )
        problems.append(problem)
    return [p for p in problems if p]


SCHEMA = FamilySchema(
    family="becpro",
    columns=(
        Column("variant", pa.string(), required=False),
        Column("sentence", pa.string(), nonempty=True),
        Column("person", pa.string(), nonempty=True),
        Column("person_phrase", pa.string(), required=False),
        Column("person_span", SPAN),
        Column("gender", pa.string(), allowed=GENDERS),
        Column("profession", pa.string(), nonempty=True),
        Column("profession_source", pa.string(), required=False),
        Column("profession_en", pa.string(), required=False),
        Column("profession_span", SPAN),
        Column("profession_word_spans", pa.list_(SPAN)),
        Column("profession_group", pa.string(), allowed=GROUPS),
        Column("pct_women", pa.float64(), required=False),
        Column("template", pa.string(), required=False),
        Column("template_index", pa.int32(), required=False),
        Column("lexicon_notes", pa.list_(pa.string()), required=False),
    ),
    row_rules=(spans_rule,),
)


# ----------------------------------------------------------------------------- review


GROUP_NAMES = {
    "male": "male-dominated profession",
    "female": "female-dominated profession",
    "balanced": "gender-balanced profession",
}


def _span(row: Row, name: str) -> tuple[int, int] | None:
    span = row.get(name) or {}
    if span.get("start") is None or span.get("end") is None:
        return None
    return int(span["start"]), int(span["end"])


def sentence_markdown(row: Row) -> str:
    """The sentence with the person word and the profession highlighted (their own spans)."""
    spans = [
        (*span, role)
        for span, role in (
            (_span(row, "person_span"), "person"),
            (_span(row, "profession_span"), "profession"),
        )
        if span is not None
    ]
    return marked(str(row["sentence"]), spans)


def to_record(row: Row) -> dict[str, Any]:
    group = str(row.get("profession_group"))
    share = row.get("pct_women")
    share_text = (
        f"; {share:.1f}% women in the U.S. labour statistics" if isinstance(share, float) else ""
    )
    english = f" (English: {escape(row.get('profession_en'))})" if row.get("profession_en") else ""
    lines = [
        f"{mark(str(row.get('person')), 'person')} **person word** — {escape(row.get('gender'))}",
        f"{mark(str(row.get('profession')), 'profession')} **profession**{english}",
        f"**Profession group:** {GROUP_NAMES.get(group, group)}{share_text} — the group of the "
        "profession, not the person's gender",
        f"**English source:** {escape(row.get('source_text'))}",
        f"**Template:** {escape(row.get('template'))}",
    ]
    return {
        "fields": {
            "sentence": sentence_markdown(row),
            "source": "\n\n".join(lines),
        },
        "metadata": {
            "domain": str(row.get("profession_group")),
            "variant": str(row.get("variant") or "default"),
            "gender": str(row.get("gender")),
        },
        "suggestions": {"correction": str(row["sentence"])},
    }


def _find_span(text: str, phrase: str) -> tuple[int, int] | None:
    index = text.lower().find(str(phrase).lower()) if phrase else -1
    return None if index < 0 else (index, index + len(phrase))


def _across_hyphens(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """A profession span widened over words its edit joined with a hyphen ("pompière" →
    "sapeuse-pompière", "Mechaniker" → "Kfz-Mechaniker"): one profession, one span."""
    start, end = span
    while start > 1 and text[start - 1] == "-" and text[start - 2].isalnum():
        start -= 1
        while start > 0 and text[start - 1].isalnum():
            start -= 1
    while end + 1 < len(text) and text[end] == "-" and text[end + 1].isalnum():
        end += 1
        while end < len(text) and text[end].isalnum():
            end += 1
    return start, end


def apply_correction(row: Row, text: str) -> Row:
    """Use the corrected sentence; the person and profession spans follow the edit.

    A corrected profession (a misprint such as "repcionista") becomes the item's
    ``profession``; the person word must stay (it is what the item measures).
    """
    text, old = text.strip(), str(row.get("sentence") or "")
    person_old = _span(row, "person_span") or _find_span(old, row.get("person"))
    profession_old = _span(row, "profession_span") or _find_span(old, row.get("profession"))
    if person_old is None:
        raise ValueError("the person word is not in the original sentence")
    person = follow_span(old, text, person_old, widen=True)
    if text[person[0] : person[1]].lower() != str(row.get("person")).lower():
        found = text[person[0] : person[1]] or "nothing"
        raise ValueError(
            f"the correction changes the person word {row.get('person')!r} into {found!r}"
        )
    profession = (
        _across_hyphens(text, follow_span(old, text, profession_old, widen=True))
        if profession_old is not None
        else _find_span(text, row.get("profession"))
    )
    if profession is None or profession[0] >= profession[1]:
        raise ValueError("the correction no longer contains the profession")
    if profession[0] < person[1] and person[0] < profession[1]:
        raise ValueError("the person word and the profession overlap in the correction")
    name = text[profession[0] : profession[1]]
    spans, offset = [], profession[0]
    for part in name.split():
        start = text.index(part, offset)
        spans.append({"start": start, "end": start + len(part)})
        offset = start + len(part)
    return dict(
        row,
        sentence=text,
        profession=name,
        person_span={"start": person[0], "end": person[1]},
        profession_span={"start": profession[0], "end": profession[1]},
        profession_word_spans=spans,
    )


_QUOTED = re.compile(r"'([^']+)'")


def printed_as(row: Row) -> dict[str, str]:
    """How the item writes each word of the lexicon's printed form: ``profession_source``
    word by word to ``profession`` ("mecánico/a" → "mecánica" in a female item)."""
    printed = str(row.get("profession_source") or "").split()
    written = str(row.get("profession") or "").split()
    return dict(zip(printed, written, strict=True)) if len(printed) == len(written) else {}


def notes_after(
    notes: list[str], old: str, new: str, rendering: dict[str, str] | None = None
) -> list[str]:
    """The lexicon's doubts that still apply to a corrected sentence. A note is settled when
    the correction removes a form it quotes ("printed 'repcionista' …") or writes one it
    quotes that the sentence did not have (its suggestion, "probably 'mecánico/a de
    autobuses'"). Quoted forms in the lexicon's notation are also read as the item writes
    them (``rendering``, from :func:`printed_as`)."""
    rendering = rendering or {}

    def forms(quoted: str) -> set[str]:
        return {quoted, " ".join(rendering.get(w, w) for w in quoted.split())}

    def settled(note: str) -> bool:
        quoted = {form for q in _QUOTED.findall(note) for form in forms(q)}
        return any((q in old) != (q in new) for q in quoted)

    return [note for note in notes if not settled(str(note))]


def _indefinite_article(row: Row) -> str | None:
    """English "a" before a vowel-initial profession (curation's ``en_indefinite_article``)."""
    span = _span(row, "profession_span")
    sentence = str(row.get("sentence") or "")
    if (
        span
        and sentence[: span[0]].endswith(" a ")
        and sentence[span[0] : span[0] + 1] in "aeiouAEIOU"
    ):
        return "'a' before a vowel-initial profession, as in the published BEC-Pro"
    return None


def recheck(before: Row, after: Row) -> Row:
    """A corrected item checked again: the checks about its own text run on the corrected
    sentence (spans, lexicon doubts, English article), others keep their verdict, and
    ``needs_review``/``review_reasons`` are recomputed. The curation's
    ``curation/becpro/checks.py`` has the batch versions; these are their one-row forms,
    here because annotation may not import curation."""
    old, new = str(before.get("sentence") or ""), str(after.get("sentence") or "")
    rendering = printed_as(before)
    notes = notes_after([str(n) for n in as_list(after.get("lexicon_notes"))], old, new, rendering)
    spans = spans_rule(after)
    article = _indefinite_article(after)
    verdicts = {
        "spans_point_at_words": (spans, "spans match the person word and each profession word"),
        "lexicon_notes": (notes, "no doubt recorded in the lexicon"),
        "en_indefinite_article": ([article] if article else [], "indefinite article fits"),
    }
    checks = []
    for check in as_list(before.get("checks")):
        check = dict(check)
        if check.get("rule") in verdicts:
            problems, fine = verdicts[check["rule"]]
            check.update(passed=not problems, detail="; ".join(problems) or fine)
        elif not check.get("passed") and not notes_after(
            [check.get("detail")], old, new, rendering
        ):
            # a doubt about a word the reviewers replaced (es_inflection on 'repcionista')
            check.update(passed=True, detail=f"settled by the correction: {check.get('detail')}")
        checks.append(check)
    row = dict(after, lexicon_notes=notes) if "lexicon_notes" in after else dict(after)
    return {**row, **review_state(checks)}


def _misprint(word: str) -> str | None:
    """``word`` with two different neighbouring inner letters swapped, the last letter kept
    ("mecánico" → "mecáncio"), None when it has no such pair (a short word)."""
    for i in range(len(word) - 3, 0, -1):
        a, b = word[i], word[i + 1]
        if a.isalpha() and b.isalpha() and a != b:
            return word[:i] + b + a + word[i + 2 :]
    return None


def make_controls(rows: list[Row], n: int, rng: Any) -> list[tuple[Row, dict[str, str]]]:
    """Up to ``n`` control items: sentences drawn at random whose profession gets a planted
    misprint (two letters swapped, same length, so every span still fits). A sentence with a
    misprint is not grammatical: the known answer is ``grammatical: no`` (as for the TFG's own
    "repcionista"). Every column that held the profession or the sentence as is (the
    profession shown beside it, and for an untranslated item its English source) carries the
    same misprint, so the item does not contradict itself where an ordinary one would not."""
    controls = []
    for row in rng.sample(rows, len(rows)):
        if len(controls) >= n:
            break
        span = _span(row, "profession_span")
        if span is None:
            continue
        sentence, (start, end) = str(row["sentence"]), span
        if sentence[start:end] != row.get("profession"):  # spans and column must stay equal
            continue
        words = sentence[start:end].split(" ")
        longest = max(range(len(words)), key=lambda i: len(words[i]))
        typo = _misprint(words[longest])
        if typo is None:
            continue
        words[longest] = typo
        misprinted = {row["profession"]: " ".join(words)}
        misprinted[sentence] = sentence[:start] + misprinted[row["profession"]] + sentence[end:]
        control = {k: misprinted.get(v, v) if isinstance(v, str) else v for k, v in row.items()}
        controls.append((control, {"grammatical": "no"}))
    return controls


REVIEW = declared_review(
    "becpro",
    to_record=to_record,
    apply_correction=apply_correction,
    corrected_sources=sentence_sources,
    # The guidelines: "if either answer is No, edit the sentence so it becomes correct" — an
    # agreed correction answers both questions, which judged the original sentence.
    accepts_corrected=lambda decided: True,
    settled_by_correction=("grammatical", "agreement"),
    recheck=recheck,
    as_is={"grammatical": "yes", "agreement": "yes"},
    slots=lambda row: {"person": str(row.get("person")), "profession": str(row.get("profession"))},
    make_controls=make_controls,
)


# ----------------------------------------------------------------------------- release


def statistics(configs: dict[str, pa.Table]) -> str:
    return per_config_crosstab(
        configs, "profession_group", "gender",
        lambda config, n: f"**{config}** ({n} items): profession group × person gender", GROUPS,
    )  # fmt: skip


FAMILY = declared(
    "becpro",
    schema=SCHEMA,
    review=REVIEW,
    statistics=statistics,
)
