"""The original BEC-Pro TSV layout (Bartl et al. 2020).

Columns ``Sentence, Sent_TM, Sent_AM, Sent_TAM, Template, Person, Gender, Profession,
Prof_Gender`` after an unnamed row-number column, ``[MASK]`` as the mask; non-English corpora
add ``Profession_EN`` as the published German corpus does.

Two maskings:

- ``original`` (default) reproduces the published corpus, whose masking replaced every
  occurrence of the person word and of each profession word that *starts* a word, so a few
  rows mask more than the words themselves: "This man is a lodging manager." gives
  "This [MASK] is a lodging [MASK]ager.", and "applied for the position of director of
  religious activities" masks the template's "of" too (23 rows of the English corpus; in the
  German corpus, "Er" inside "Ernährungsberater", 5 rows). Use it to compare with published
  results.
- ``spans`` masks exactly the stored spans: one mask for the person word, one per profession
  word, nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import pandas as pd

from biasforge.errors import InputError
from biasforge.files import write_text_atomic
from biasforge.spans import mask_spans

MASK = "[MASK]"
COLUMNS = [
    "Sentence",
    "Sent_TM",
    "Sent_AM",
    "Sent_TAM",
    "Template",
    "Person",
    "Gender",
    "Profession",
    "Prof_Gender",
]
Masking = Literal["original", "spans"]
_REQUIRED = (
    "sentence",
    "person",
    "person_phrase",
    "person_span",
    "profession",
    "profession_span",
    "profession_word_spans",
    "gender",
    "profession_group",
    "language",
)


def _replace_word_starts(text: str, words: list[str]) -> str:
    """Replace each word wherever an occurrence begins at a word start (the published rule)."""
    for word in words:
        text = re.sub(rf"(?<!\w){re.escape(word)}", MASK, text)
    return text


def masked_variants(row: pd.Series, masking: Masking) -> tuple[str, str, str]:
    """Person-masked, profession-masked and both-masked sentences for one item."""
    sentence = row["sentence"]
    if masking == "original":
        tm = _replace_word_starts(sentence, [row["person"]])
        words = row["profession"].split()
        return tm, _replace_word_starts(sentence, words), _replace_word_starts(tm, words)
    person = [row["person_span"]]
    words = list(row["profession_word_spans"])
    return (
        mask_spans(sentence, person, MASK),
        mask_spans(sentence, words, MASK),
        mask_spans(sentence, person + words, MASK),
    )


def template_of(row: pd.Series) -> str:
    """The sentence with the person phrase and profession replaced by the original placeholders."""
    sentence, prof = row["sentence"], row["profession_span"]
    phrase_end = len(row["person_phrase"])
    return (
        "<person subject>"
        + sentence[phrase_end : prof["start"]]
        + "<profession>"
        + sentence[prof["end"] :]
    )


def to_becpro_frame(items: pd.DataFrame, masking: Masking = "original") -> pd.DataFrame:
    missing = [c for c in _REQUIRED if c not in items.columns]
    if missing:
        raise InputError("items", f"not BEC-Pro items: missing column(s) {', '.join(missing)}")
    rows = []
    for _, row in items.iterrows():
        tm, am, tam = masked_variants(row, masking)
        rows.append(
            [
                row["sentence"],
                tm,
                am,
                tam,
                template_of(row),
                row["person"],
                row["gender"],
                row["profession"],
                row["profession_group"],
            ]
        )
    frame = pd.DataFrame(rows, columns=COLUMNS)
    if (items["language"] != "en").any():
        frame["Profession_EN"] = items["profession_en"].to_numpy()
    return frame


def write_becpro_tsv(
    items: pd.DataFrame, out: str | Path, masking: Masking = "original"
) -> dict[str, int]:
    """Write the TSV atomically; return row count and how many rows the two maskings disagree on."""
    frame = to_becpro_frame(items, masking)
    write_text_atomic(out, frame.to_csv(sep="\t", lineterminator="\n"))
    other: Masking = "spans" if masking == "original" else "original"
    written = frame[["Sent_TM", "Sent_AM", "Sent_TAM"]].itertuples(index=False, name=None)
    differ = sum(
        tuple(written_row) != masked_variants(row, other)
        for written_row, (_, row) in zip(written, items.iterrows(), strict=True)
    )
    return {"rows": len(frame), "rows_where_maskings_differ": differ}


def write(items: pd.DataFrame, out: str | Path, *, masking: Masking = "original") -> str:
    """``export convert --format becpro-tsv``: the TSV and a summary line."""
    info = write_becpro_tsv(items, out, masking)
    other = "spans" if masking == "original" else "original"
    return (
        f"wrote {info['rows']} rows to {out} ({masking} masking; "
        f"{info['rows_where_maskings_differ']} rows would differ with --masking {other})"
    )
