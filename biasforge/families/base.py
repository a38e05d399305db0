"""What a family is: one description, as data with hooks, that every stage looks up by name.

In the spirit of Argilla's ``Settings`` (the whole annotation task as data) and spaCy's
registered components, a :class:`Family` holds everything the stages need to know about one
kind of test item: its record schema (types and value rules), its review design (fields,
questions, guidelines, how answers and corrections change an item, which source texts a
correction re-translates), its dataset-card prose and statistics table, and how its records
split into release configs. Stages hold no family names; they ask the family.
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import html
import importlib
import inspect
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from importlib import resources
from typing import Any

import pyarrow as pa

from biasforge.contract.adaptation import (
    ADAPTATION,
    ADAPTATION_NOTE,
    MODIFIED,
    REMOVED,
    TRANSFERRED,
)
from biasforge.contract.markdown import crosstab_md
from biasforge.contract.schema import FamilySchema
from biasforge.errors import BiasforgeError

YES_NO = {"yes": "Yes", "no": "No"}
Row = dict[str, Any]


def data_text(name: str, package: str = "biasforge.families") -> str:
    """A text file shipped in ``package``'s ``data`` folder (a family's declaration, its
    guidelines, citations); a family from another package keeps its own."""
    return resources.files(package).joinpath("data", name).read_text("utf-8")


def as_list(value: Any) -> list:
    """Arrow list cells arrive as numpy arrays or lists; give a plain list (a lone string or
    mapping is a list of one, never its characters or keys)."""
    if value is None:
        return []
    if isinstance(value, str | bytes | dict):
        return [value]
    try:
        return list(value)
    except TypeError:
        return [value]


def flags_markdown(row: Row) -> str:
    """The rule verdicts a reviewer must look at: only failed or flagged checks, each once.

    Passing checks are counted, not listed: a long list of "ok" lines hid the one that
    mattered (issue 11). A review reason is the failed check's ``rule: detail`` again, so it is
    listed only when no failed check says it (each flag appeared twice, issue 23).
    """
    checks = as_list(row.get("checks"))
    failed = [c for c in checks if not c.get("passed")]
    said = {f"{c.get('rule')}: {c.get('detail')}" for c in failed} | {
        str(c.get("rule")) for c in failed
    }
    extra = [str(r) for r in as_list(row.get("review_reasons")) if str(r) not in said]
    lines = ["**Flagged for review:**"] if row.get("needs_review") else []
    for check in failed:
        detail = escape(check.get("detail") or "")
        lines.append(f"- **FLAG** `{check.get('rule')}`: {detail}".rstrip())
    lines += [f"- **FLAG** {escape(reason)}" for reason in extra]
    if row.get("needs_review") and len(lines) == 1:
        lines[0] += " yes"
    passed = len(checks) - len(failed)
    if not lines:
        lines.append("No rule flagged this item.")
    if passed:
        lines.append(f"\n{passed} other check{'s' if passed != 1 else ''} passed.")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- display helpers

# Colours that stay readable on CJK characters (bold strokes were too faint there) and in
# both light and dark themes; the role goes into ``data-role`` so tests and styles find it.
MARK_COLOURS = {
    "target": "#ffd54f",
    "slot": "#a5d6a7",
    "person": "#90caf9",
    "profession": "#ffcc80",
    "keyword": "#f48fb1",
}
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]#|~"})


def escape(text: object) -> str:
    """Text shown verbatim in a markdown field: HTML escaped and markdown specials neutralised."""
    return html.escape(str(text), quote=False).translate(_MD_SPECIAL)


def mark(text: str, role: str) -> str:
    """``text`` highlighted as ``role`` (one of :data:`MARK_COLOURS`) in a markdown field."""
    colour = MARK_COLOURS.get(role, "#ffd54f")
    return (
        f'<mark data-role="{role}" style="background:{colour};color:#000;'
        f'padding:0 2px;border-radius:2px">{escape(text)}</mark>'
    )


def marked(text: str, spans: list[tuple[int, int, str]]) -> str:
    """``text`` with the character spans ``(start, end, role)`` highlighted, the rest escaped.

    Offsets pick the very occurrence the item is about (the n-th 他, not every 他).
    """
    out, at = [], 0
    for start, end, role in sorted(s for s in spans if 0 <= s[0] < s[1] <= len(text)):
        if start < at:  # overlapping spans: keep the first
            continue
        out += [escape(text[at:start]), mark(text[start:end], role)]
        at = end
    return "".join([*out, escape(text[at:])])


def occurrence(text: str, start: int, word: str) -> tuple[int, int] | None:
    """(n, total) when ``word`` occurs several times in ``text`` and the n-th starts at
    ``start``; None when it occurs once (nothing to disambiguate)."""
    starts = [i for i in range(len(text)) if text.startswith(word, i)]
    if len(starts) < 2 or start not in starts:
        return None
    return starts.index(start) + 1, len(starts)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _word_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen ``start:end`` to whole words and trim surrounding spaces and punctuation."""
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return start, end


def follow_span(old: str, new: str, span: tuple[int, int], *, widen: bool) -> tuple[int, int]:
    """Where the text at ``span`` of ``old`` is in ``new``, following the edit.

    The edit is aligned character by character with :class:`difflib.SequenceMatcher`; a span
    whose letters were retyped ("repcionista" → "recepcionista") maps to the retyped text,
    widened to whole words when ``widen`` (not for Chinese, which has no spaces). An empty
    result means the edit deleted it.
    """
    start, end = span
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()

    def where(i: int, first: bool) -> int:
        for tag, i1, i2, j1, j2 in opcodes:
            if i1 <= i < i2:
                if tag == "equal":
                    return j1 + (i - i1) + (0 if first else 1)
                return j1 if first else j2
        return len(new)

    first, last = where(start, True), where(end - 1, False)
    if first >= last:  # the edit deleted it
        return first, first
    return _word_bounds(new, first, last) if widen else (first, last)


def html_table(header: list[str], rows: list[list[str]]) -> str:
    """A bordered HTML table (Argilla's markdown tables have no cell padding or borders, so
    columns ran together); cells are already HTML/escaped."""
    cell = 'style="border:1px solid #bbb;padding:4px 8px;text-align:left;vertical-align:top"'
    head = "".join(f"<th {cell}>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td {cell}>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f'<table style="border-collapse:collapse;margin:4px 0"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def failed_rules(row: Row) -> list[str]:
    return sorted(
        {str(c.get("rule")) for c in as_list(row.get("checks")) if not c.get("passed")}
    ) or ["none"]


FLAGS_FIELD = ("flags", "Rule flags", True)  # every family shows its rule verdicts last
FIRST_METADATA = {"language": "Language"}
LAST_METADATA = {"needs_review": "Flagged by rules", "failed_rules": "Failed rules"}


def review_metadata(row: Row, **extra: Any) -> dict[str, Any]:
    """Metadata every family's records carry around the family's own terms."""
    return {
        "language": str(row.get("language")),
        **extra,
        "needs_review": "yes" if row.get("needs_review") else "no",
        "failed_rules": failed_rules(row),
    }


def _keep(row: Row, decided: dict[str, str]) -> Row:
    return row


def _no_sources(before: Row, after: Row) -> list[tuple[str, str]]:
    return []


def _first(rows: list[Row]) -> Row:
    return rows[0]


def _seen_as_is(row: Row, text: str) -> str:
    return text


def _unchanged(before: Row, after: Row) -> Row:
    return after


def sentence_sources(before: Row, after: Row) -> list[tuple[str, str]]:
    """A corrected ``sentence`` re-translates its whole ``source_text``."""
    if after.get("sentence") != before.get("sentence") and before.get("source_text"):
        return [(str(before["source_text"]), str(after["sentence"]))]
    return []


def normalise(text: object) -> str:
    """The form in which two corrections are compared: Unicode NFC, each line stripped and its
    inner whitespace collapsed, blank lines dropped. Two annotators who typed the same fix with
    a different trailing space agree; an untouched pre-filled text equals the original."""
    lines = (
        " ".join(line.split()) for line in unicodedata.normalize("NFC", str(text)).splitlines()
    )
    return "\n".join(line for line in lines if line)


# Why an annotator discarded (or anything the maintainers should know): discards are votes
# "cannot judge", and their reason is reported next to the decision.
NOTE_QUESTION = ("note", "Note — why you discard, or anything the maintainers should know")

# Columns ``annotate pull`` adds to reviewed records (and a release keeps): a correction never
# hides what it replaced or who made it.
REVIEW_COLUMNS = (
    ("original_text", pa.string()),  # the editable text before the correction (None: unchanged)
    ("corrected_by", pa.list_(pa.string())),  # who proposed the applied correction
    ("adjudicated_by", pa.string()),  # who settled the record in adjudication (None: votes)
)
# For a family whose source carries labels (``Review.source_labels``): whether the labels
# decided blind differ from the source's (None: not accepted, so no labels were decided).
LABELS_CHANGED = ("labels_changed", pa.bool_())

# Issue 44: the question SHADES (NAACL 2025) asked speakers of each language, asked of every
# item of a family that translates (``Review.adaptation``). Its answer decides what was done
# about the item's culture (biasforge.contract.adaptation); the text box holds the group or
# attribute the stereotype targets here (modified) or why it is not recognised (removed).
RECOGNISED = "recognised"
ADAPTATION_TEXT = "adaptation_text"
RECOGNISED_LABELS = {
    "yes": "Yes, as it is",
    "other": "Yes, but here it targets another group or attribute (type it below)",
    "no": "No, it is not recognised here (say why below)",
}
CATEGORY_OF = {"yes": TRANSFERRED, "other": MODIFIED, "no": REMOVED}
RECOGNISED_TITLE = "Is this stereotype recognised where you live?"
RECOGNISED_HELP = (
    "Answer for the culture you live in, not for the source's. If people there attach it to "
    "another group or attribute, choose the second answer and type that group or attribute "
    "below; if it is not recognised, say why below."
)
ADAPTATION_TEXT_TITLE = "Replacement group or attribute (if another), or why it is not recognised"


@dataclass(frozen=True)
class Adaptation:
    """That a family's items are translated, so review asks SHADES' question of each
    (:data:`RECOGNISED`) and the release records what was done about its culture.

    ``domain``: the column the card's table of adaptation categories is per (bias type)."""

    domain: str = "bias_type"


#: a control item made from a run's rows: (the item as shown, the known answers)
Control = tuple[Row, dict[str, str]]


@dataclass(frozen=True)
class DatasetKey:
    """What a review that shows an item in a secret arrangement (``Review.needs_key``, e.g.
    StereoSet's option order) derives it from, for one dataset.

    ``secret``: the dataset's private key, created by its first push and kept 0600 by the
    maintainer who pushed it (:mod:`biasforge.annotation.review.private_state`), never sent to
    Argilla: what annotators see (the record id included) and biasforge's open source do
    not tell the arrangement without it. ``legacy``: by record id, the metadata that records
    pushed before keyed arrangements carry instead (``Review.legacy_metadata``; their
    arrangement was readable there, and is read from there).
    """

    secret: bytes | None
    legacy: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def digest(self, *parts: str) -> bytes:
        """HMAC-SHA256 of ``parts`` under the secret: unpredictable without it."""
        if self.secret is None:
            raise BiasforgeError("this dataset's private key is missing (see annotate pull)")
        message = "\x1f".join(parts).encode("utf-8")
        return hmac.new(self.secret, message, hashlib.sha256).digest()


JOINT_SEPARATOR = "+"  # joins joint criteria: names and values (labels have none)

#: the hooks that map between an item and what annotators see (answers, corrections
#: included); a review with ``needs_key`` takes the dataset's key in each as ``key=``
KEYED_HOOKS = ("to_record", "apply_correction", "apply_answers", "blind", "known_answers")


@dataclass(frozen=True)
class Review:
    """The annotation task of a family, as data (what Argilla shows and asks).

    Corrections: ``correction`` names the TextQuestion whose box is pre-filled with
    :meth:`original_text`; an agreed change of it is applied with ``apply_correction``, which
    re-derives the spans and raises ``ValueError`` with the reason when it cannot. When an
    agreed correction exists, ``accepts_corrected`` (default: ``accepts``) decides, and the
    criteria in ``settled_by_correction`` (questions that judged the *original* text, e.g.
    "is it grammatical?") need no agreement: the correction answers them.
    """

    guidelines: str
    fields: list[tuple[str, str, bool]]  # (name, title, markdown); the rule flags come last
    criteria: dict[str, tuple[str, dict[str, str], str]]  # name -> (title, labels, description)
    metadata: dict[str, str]  # the family's own terms (name -> title); language, flags added
    to_record: Callable[
        [Row], dict[str, Any]
    ]  # row -> the family's {fields, metadata, suggestions}
    accepts: Callable[[dict[str, str]], bool]  # decided criteria values -> keep the item?
    correction: tuple[str, str] | None = None  # (name, title) of the TextQuestion, if any
    apply_correction: Callable[[Row, str], Row] | None = None  # raises ValueError if it can't
    apply_answers: Callable[[Row, dict[str, str]], Row] = _keep  # e.g. agreed labels
    corrected_sources: Callable[[Row, Row], list[tuple[str, str]]] = _no_sources
    extra_questions: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    accepts_corrected: Callable[[dict[str, str]], bool] | None = None
    settled_by_correction: tuple[str, ...] = ()
    correction_help: str = "Pre-filled with the current text: edit it in place if it needs fixing."
    # Issue 23: nothing an annotator judges may be shown to them as an answer.
    hidden_metadata: tuple[str, ...] = ()  # record metadata kept from annotators
    # ``needs_key``: what annotators see is arranged by the dataset's private key (StereoSet:
    # the option order), which the :data:`KEYED_HOOKS` take as ``key=``; bind it once per
    # dataset with :meth:`with_key`. ``legacy_metadata``: the metadata in which records pushed
    # before keyed arrangements kept theirs (read back through ``DatasetKey.legacy``).
    needs_key: bool = False
    legacy_metadata: tuple[str, ...] = ()
    legacy_note: str = ""  # what such records were not kept from, for report and card
    blind: Callable[[Row, str], str] = _seen_as_is  # rewrites the rule flags annotators see
    seen_note: str = ""  # what annotators were not shown, for the dataset card
    # A corrected item runs its family's checks again: (before, after) -> after with spans,
    # flags, ``needs_review``/``review_reasons`` recomputed.
    recheck: Callable[[Row, Row], Row] = _unchanged
    # Answers that say "the text needs no change" (a correction typed with them is a slip the
    # decision's reason points out).
    as_is: dict[str, str] = field(default_factory=dict)
    # Knowing the annotators (issue 38). ``known_answers``: the answers to judged questions
    # that an item's own content implies when it is known to be right (StereoSet: each shown
    # option's label), so validated items can serve as control items. ``make_controls``:
    # control items drawn from a run's rows, ``(rows, n, rng) -> [(item, known answers)]``
    # (BEC-Pro: a sentence with a planted misprint is not grammatical).
    known_answers: Callable[[Row], dict[str, str]] | None = None
    make_controls: Callable[[list[Row], int, Any], list[Control]] | None = None
    # ``source_labels``: the labels an item carries from its source, which review decides
    # again blind (StereoSet: each sentence's label by sentence id); compared before and after
    # review, they measure what the adaptation preserved, per ``label_domain`` column.
    source_labels: Callable[[Row], dict[str, str]] | None = None
    label_domain: str | None = None
    # Issue 47, item 11: criteria whose answers form one structure (StereoSet: a permutation
    # of the labels over options A, B, C) are decided as one answer, never question by
    # question, which can assemble a combination nobody gave. ``impossible`` names what is
    # wrong with a decided combination (None when it is possible): such a record goes to
    # adjudication with that reason, never to rejection.
    joint: tuple[str, ...] = ()
    impossible: Callable[[dict[str, str]], str | None] | None = None
    # Issue 47, item 3: ``slots`` gives the words an item marks as its slots (BEC-Pro: the
    # person word and the profession; StereoSet: the target and each option's attribute),
    # name -> word. A winning correction that changes one goes to adjudication with the
    # reason (an adjudicator who confirms it has it applied as any correction).
    slots: Callable[[Row], dict[str, str]] | None = None
    # Issue 44: a family that translates asks whether each stereotype is recognised where the
    # annotator lives (None: it does not translate, or its dataset was pushed before the
    # question existed, see :meth:`asked`).
    adaptation: Adaptation | None = None

    def asked(self, names: set[str]) -> Review:
        """This review as a dataset with the questions ``names`` asked it: a dataset pushed
        before the adaptation question existed decides as before (its items stay undecided,
        so they count as transferred)."""
        if self.adaptation is not None and RECOGNISED not in names:
            return replace(self, adaptation=None)
        return self

    # Issue 45: what annotators judge may be a unit several items share (a template, its
    # instances the fillings of its slots). ``unit_of``: an item -> its unit's id; ``example``:
    # the items of one unit, in run order -> the row its record is made from (its ``id``
    # becomes the unit's; keys beyond the schema's are the hooks' own). ``annotate push``
    # sends one record per unit (:meth:`units`), ``annotate pull`` decides per unit and gives
    # every item its unit's decision (:meth:`spread`), so a release keeps the accepted units'.
    unit_of: Callable[[Row], str] | None = None
    example: Callable[[list[Row]], Row] = _first

    @property
    def joint_name(self) -> str | None:
        """The name under which the joint criteria are estimated as one question."""
        return JOINT_SEPARATOR.join(self.joint) if self.joint else None

    def joint_value(self, values: Mapping[str, Any]) -> str | None:
        """One answer's joint criteria as one value (None unless all were answered)."""
        parts = [values.get(q) for q in self.joint]
        if not self.joint or any(p is None for p in parts):
            return None
        return JOINT_SEPARATOR.join(str(p) for p in parts)

    def joint_parts(self, value: str) -> dict[str, str]:
        """The per-question answers of a joint value (inverse of :meth:`joint_value`)."""
        return dict(zip(self.joint, value.split(JOINT_SEPARATOR), strict=True))

    def changed_slots(self, row: Row, corrected: str) -> list[str]:
        """The slots (see ``slots``) whose word the corrected text changes; none when the
        correction cannot be applied (that is reported where it is applied)."""
        if self.slots is None or self.apply_correction is None:
            return []
        try:
            after = self.slots(self.apply_correction(row, corrected))
        except ValueError:
            return []
        return [f"{name} {word!r} -> {after.get(name)!r}"
                for name, word in self.slots(row).items() if after.get(name) != word]  # fmt: skip

    def problem(self, decided: dict[str, str]) -> str | None:
        """Why the decided answers are an impossible combination (None: they are not)."""
        return self.impossible(decided) if self.impossible else None

    def with_key(self, key: DatasetKey) -> Review:
        """This review for one dataset: the keyed hooks bound to its key (itself when the
        family arranges nothing by key)."""
        if not self.needs_key:
            return self
        hooks = {n: getattr(self, n) for n in KEYED_HOOKS if getattr(self, n) is not None}
        return replace(self, **{n: partial(hook, key=key) for n, hook in hooks.items()})

    def units(self, rows: list[Row]) -> list[Row]:
        """The rows annotators review: ``rows`` themselves, or one per unit (``unit_of``)."""
        if self.unit_of is None:
            return rows
        members: dict[str, list[Row]] = {}
        for row in rows:
            members.setdefault(self.unit_of(row), []).append(row)
        return [{**self.example(items), "id": unit} for unit, items in members.items()]

    def spread(self, reviewed: list[Row], rows: list[Row]) -> list[Row]:
        """The reviewed rows of the run's items: ``reviewed`` itself, or (``unit_of``) each of
        ``rows`` with its unit's decision and review columns."""
        if self.unit_of is None:
            return reviewed
        names = [*(name for name, _ in self.review_columns), "decision"]
        by_unit = {str(unit["id"]): unit for unit in reviewed}
        return [self._spread_one(row, by_unit[self.unit_of(row)], names) for row in rows]

    def _spread_one(self, row: Row, unit: Row, names: list[str]) -> Row:
        """``row`` with its unit's decision; a unit's applied correction (its text is what the
        corrected unit's box would now start with) applied to ``row`` too. An item it cannot
        be applied to stays pending: the unit's correction does not fit it."""
        decided = {n: unit.get(n) for n in names}
        if not (unit.get("corrected_by") and unit.get("decision") == "accept"):
            return {**row, **decided}
        assert self.apply_correction is not None  # a unit was corrected through it
        try:
            return {**self.apply_correction(dict(row), self.original_text(unit) or ""), **decided}
        except ValueError:
            return {**row, **decided, "decision": "pending"}

    @property
    def label_questions(self) -> list[str]:
        return list(self.criteria)

    @property
    def review_columns(self) -> tuple[tuple[str, pa.DataType], ...]:
        """The columns ``annotate pull`` adds to this family's reviewed records."""
        adapted = ((ADAPTATION, pa.string()), (ADAPTATION_NOTE, pa.string()))
        return (
            *REVIEW_COLUMNS,
            *((LABELS_CHANGED,) if self.source_labels else ()),
            *(adapted if self.adaptation else ()),
        )

    @property
    def all_fields(self) -> list[tuple[str, str, bool]]:
        return [*self.fields, FLAGS_FIELD]

    @property
    def all_metadata(self) -> dict[str, str]:
        return {**FIRST_METADATA, **self.metadata, **LAST_METADATA}

    @property
    def question_names(self) -> set[str]:
        """Every question of the review dataset (criteria, correction, note)."""
        return {
            *self.criteria,
            NOTE_QUESTION[0],
            *([self.correction[0]] if self.correction else []),
            *((RECOGNISED, ADAPTATION_TEXT) if self.adaptation else ()),
        }

    def keeps(self, decided: dict[str, str], corrected: bool) -> bool:
        """Whether the decided answers keep the item (with its agreed correction, if any)."""
        rule = self.accepts_corrected if corrected and self.accepts_corrected else self.accepts
        return bool(rule(decided))

    def original_text(self, row: Row) -> str | None:
        """The text the correction box starts with (None for a family without corrections)."""
        if not self.correction:
            return None
        value = self.to_record(row).get("suggestions", {}).get(self.correction[0])
        return None if value is None else str(value)

    def record(self, row: Row, *, suggest: bool = False) -> dict[str, Any]:
        """What Argilla shows for ``row``: the family's fields and terms plus the shared ones.

        Suggestions for the questions being judged are dropped unless ``suggest``: a
        pre-selected answer is submitted with one keystroke and inflates agreement. The
        correction box keeps its pre-filled text (it is the text to edit, not a judgement).
        """
        own = self.to_record(row)
        keep = set(self.criteria) if suggest else set()
        if self.correction:
            keep.add(self.correction[0])
        suggestions = {k: v for k, v in own.get("suggestions", {}).items() if k in keep}
        metadata = review_metadata(row, **own.get("metadata", {}))
        metadata["failed_rules"] = [self.blind(row, r) for r in metadata["failed_rules"]]
        return {
            "fields": {**own["fields"], FLAGS_FIELD[0]: self.blind(row, flags_markdown(row))},
            "metadata": metadata,
            "suggestions": suggestions,
        }

    def questions(self, *, extra: tuple = ()) -> list[Any]:
        """The Argilla questions: the criteria (required), ``extra`` ones (adjudication's
        choice of text), the correction box, the note."""
        import argilla as rg

        questions: list[Any] = [
            rg.LabelQuestion(
                name=name, title=title, labels=labels, description=description or None,
                required=True,
            )
            for name, (title, labels, description) in self.criteria.items()
        ]  # fmt: skip
        if self.adaptation:
            questions += [
                rg.LabelQuestion(name=RECOGNISED, title=RECOGNISED_TITLE,
                                 labels=RECOGNISED_LABELS, description=RECOGNISED_HELP,
                                 required=False),  # one may not know: see adapting.py
                rg.TextQuestion(name=ADAPTATION_TEXT, title=ADAPTATION_TEXT_TITLE,
                                required=False),
            ]  # fmt: skip
        questions += list(extra)
        if self.correction:
            name, title = self.correction
            help_text = (
                "Only read when you choose 'my own correction' above: edit the text here."
                if extra
                else self.correction_help
            )
            questions.append(
                rg.TextQuestion(name=name, title=title, required=False, description=help_text)
            )
        questions.append(
            rg.TextQuestion(name=NOTE_QUESTION[0], title=NOTE_QUESTION[1], required=False)
        )
        return questions

    def settings(
        self,
        min_submitted: int = 3,
        extra_fields: tuple = (),
        guidelines: str | None = None,
        extra_questions: tuple = (),
        extra_metadata: tuple = (),
    ) -> Any:
        """The Argilla ``Settings`` (argilla is imported here, in the caller's process)."""
        import argilla as rg

        fields = [*self.all_fields, *extra_fields]
        return rg.Settings(
            guidelines=guidelines or self.guidelines,
            fields=[rg.TextField(name=n, title=t, use_markdown=md) for n, t, md in fields],
            questions=self.questions(extra=tuple(extra_questions)),
            metadata=[
                rg.TermsMetadataProperty(name=n, title=t) for n, t in self.all_metadata.items()
            ]
            + [
                rg.TermsMetadataProperty(name=n, visible_for_annotators=False)
                for n in self.hidden_metadata
            ]
            + list(extra_metadata),
            distribution=rg.TaskDistribution(min_submitted=min_submitted),
            allow_extra_metadata=False,
        )


@dataclass(frozen=True)
class Card:
    """What a release's dataset card says about the family."""

    pretty_name: str
    license: str
    license_note: str
    task_categories: tuple[str, ...]
    description: str
    limitations: tuple[str, ...]
    citations: tuple[str, ...]
    statistics: Callable[[dict[str, pa.Table]], str]  # configs -> markdown tables
    task_ids: tuple[str, ...] = ()


def per_config_crosstab(
    configs: dict[str, pa.Table],
    index: str,
    columns: str,
    caption: Callable[[str, int], str],
    index_order: tuple[str, ...] = (),
) -> str:
    """A card's statistics: for each config, a caption and the ``index`` × ``columns`` counts."""
    parts = []
    for config, table in configs.items():
        frame = table.select([index, columns]).to_pandas()
        table_md = crosstab_md(frame, index, columns, index_order)
        parts.append(f"{caption(config, len(frame))}\n\n{table_md}")
    return "\n\n".join(parts)


def single_config(table: pa.Table) -> list[str]:
    return ["default"] * table.num_rows


def configs_by(*columns: str) -> Callable[[pa.Table], list[str]]:
    """A ``config_of``: each row's config is its values of ``columns`` joined with ``_`` (a
    column the table lacks, or an empty value, reads ``default``)."""

    def config_of(table: pa.Table) -> list[str]:
        absent = [None] * table.num_rows
        values = [
            table.column(c).to_pylist() if c in table.column_names else absent for c in columns
        ]
        return ["_".join(str(v or "default") for v in row) for row in zip(*values, strict=True)]

    return config_of


@dataclass(frozen=True)
class Family:
    """One family, described once; see the module docstring."""

    schema: FamilySchema
    review: Review
    card: Card
    name: str = ""  # what stages look it up by: its records' ``family`` (the schema's) unless given
    config_of: Callable[[pa.Table], list[str]] = single_config  # one config name per row
    config_order: tuple[str, ...] = ()  # configs listed first, in this order
    text_column: str = "sentence"  # what a report quotes for an item
    # the columns that name an item's source item: what a parallel release (``export release
    # --parallel``) lines languages up by, and ``score compare --languages`` pairs items by
    source_key: tuple[str, ...] = ("source_id",)
    # scoring: "module:attr" of each ScoringTask (biasforge.scoring.tasks), imported only by
    # the score command, so the core never imports scoring or torch
    scoring_tasks: tuple[str, ...] = ()
    # ``curate NAME``: "module:function", a typer command (its options, then the family's
    # curate function); imported only when the curate CLI is built, so no stage is loaded here.
    curation: str | None = None
    formats: tuple[ExportFormat, ...] = ()  # what ``export convert --format`` offers for it
    # lm-evaluation-harness: the export (added to ``formats`` as ``lm-eval``) and the import
    lm_eval: LmEval | None = None

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.schema.family)
        if self.lm_eval is not None and all(f.name != LM_EVAL for f in self.formats):
            object.__setattr__(self, "formats", (*self.formats, self.lm_eval.format))

    def with_key(self, key: DatasetKey) -> Family:
        """The family as one dataset shows it (see :meth:`Review.with_key`)."""
        return replace(self, review=self.review.with_key(key))

    def asked(self, names: set[str]) -> Family:
        """The family as a dataset with the questions ``names`` asks it (see
        :meth:`Review.asked`)."""
        review = self.review.asked(names)
        return self if review is self.review else replace(self, review=review)

    def format(self, name: str) -> ExportFormat:
        """The export format ``name`` of this family; one clear error naming those it has."""
        for known in self.formats:
            if known.name == name:
                return known
        offered = ", ".join(f.name for f in self.formats) or "none"
        raise BiasforgeError(
            f"--format {name}: {self.name} items do not convert to {name} (formats for "
            f"{self.name}: {offered})"
        )


def load_object(spec: str, what: str = "object declared by a family") -> Any:
    """The object an import string ``"package.module:name"`` names.

    Families name their stage code (curation command, export writers, scoring tasks) by import
    string, so the core package never imports a stage and a family from an entry point brings
    its own. ``what`` names the object in the one-line error.
    """
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise BiasforgeError(f"{what} {spec!r}: expected 'module:attr'")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise BiasforgeError(f"{what} {spec!r} cannot be loaded: {exc}") from None


@dataclass(frozen=True)
class FormatOption:
    """An option of one export format, declared once with it: ``export convert`` offers it as
    ``--NAME`` (choices checked, help shown), passes it to that format's writer only, and
    refuses it with any other format."""

    name: str  # the writer's keyword argument; ``--name`` with dashes on the command line
    choices: tuple[str, ...]
    default: str
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class ExportFormat:
    """A layout of another tool that a family's items convert to (``export convert``).

    ``writer`` is an import string of ``write(items, out, *, ...) -> str``: it writes the file
    (or, with ``folder``, the folder) at ``out`` and returns the one-line summary the command
    prints. It takes, by keyword, its own ``options`` and whichever of what ``export convert``
    knows of the conversion it needs (``label`` names the release, ``source`` is the path
    converted, ``overwrite`` whether an earlier output of the same format and family may be
    replaced).
    """

    name: str
    writer: str
    help: str = ""
    folder: bool = False  # writes a folder (with its manifest), not one file
    options: tuple[FormatOption, ...] = ()

    def write(
        self, items: Any, out: Any, options: dict[str, str] | None = None, **context: Any
    ) -> str:
        """Run the writer with this format's options (defaults for those not given) and the
        context it names."""
        writer = load_object(self.writer)
        wanted = inspect.signature(writer).parameters
        given = {o.name: (options or {}).get(o.name) or o.default for o in self.options}
        named = {k: v for k, v in context.items() if k in wanted}
        return str(writer(items, out, **named, **given))


LM_EVAL = "lm-eval"


@dataclass(frozen=True)
class LmEval:
    """How a family's releases run in lm-evaluation-harness and come back, by import string
    (no stage is imported here): ``tasks``, the module copied as ``family.py`` into the task
    folder ``export convert --format lm-eval`` writes (plain Python that imports nothing of
    biasforge: ``to_doc``, ``process_results``, ``METRICS``, optionally ``COUNTS_TOKENS`` and
    ``target_delimiter``; see ``biasforge.exports.lm_eval``); ``help``, what ``--format
    lm-eval`` says for this family; ``score``, the ``ScoringTask`` that ``score import-lm-eval``
    runs on the logged log-likelihoods (the family's first scoring task unless named)."""

    tasks: str
    help: str = "an lm-evaluation-harness task folder"
    score: str | None = None  # default: the family's first scoring task

    @property
    def format(self) -> ExportFormat:
        return ExportFormat(
            LM_EVAL, "biasforge.exports.lm_eval:write_tasks", self.help, folder=True
        )
