"""What a family is: one description, as data with hooks, that every stage looks up by name.

In the spirit of Argilla's ``Settings`` (the whole annotation task as data) and spaCy's
registered components, a :class:`Family` holds everything the stages need to know about one
kind of test item: its record schema (types and value rules), its review design (fields,
questions, guidelines, how answers and corrections change an item, which source texts a
correction re-translates), its dataset-card prose and statistics table, and how its records
split into release configs. Stages hold no family names; they ask the family.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pyarrow as pa

from biasforge.contract.schema import FamilySchema

YES_NO = {"yes": "Yes", "no": "No"}
Row = dict[str, Any]


def data_text(name: str) -> str:
    """A text file shipped in ``biasforge/families/data`` (guidelines, citations)."""
    return resources.files("biasforge.families").joinpath("data", name).read_text("utf-8")


def citation(key: str) -> str:
    """A BibTeX entry shipped as ``data/citations/KEY.bib``."""
    return data_text(f"citations/{key}.bib").rstrip()


def as_list(value: Any) -> list:
    """Arrow list cells arrive as numpy arrays or lists; give a plain list."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    try:
        return list(value)
    except TypeError:
        return [value]


def flags_markdown(row: Row) -> str:
    """The rule verdicts of a candidate as a short markdown list a reviewer can scan."""
    reasons = [str(r) for r in as_list(row.get("review_reasons"))]
    if row.get("needs_review"):
        lines = ["**Flagged for review:** " + ("; ".join(reasons) or "yes")]
    else:
        lines = ["No rule flagged this item."]
    for check in as_list(row.get("checks")):
        mark = "ok" if check.get("passed") else "**FLAG**"
        lines.append(f"- {mark} `{check.get('rule')}`: {check.get('detail') or ''}".rstrip())
    return "\n".join(lines)


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


def sentence_sources(before: Row, after: Row) -> list[tuple[str, str]]:
    """A corrected ``sentence`` re-translates its whole ``source_text``."""
    if after.get("sentence") != before.get("sentence") and before.get("source_text"):
        return [(str(before["source_text"]), str(after["sentence"]))]
    return []


@dataclass(frozen=True)
class Review:
    """The annotation task of a family, as data (what Argilla shows and asks)."""

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

    @property
    def label_questions(self) -> list[str]:
        return list(self.criteria)

    @property
    def all_fields(self) -> list[tuple[str, str, bool]]:
        return [*self.fields, FLAGS_FIELD]

    @property
    def all_metadata(self) -> dict[str, str]:
        return {**FIRST_METADATA, **self.metadata, **LAST_METADATA}

    def record(self, row: Row) -> dict[str, Any]:
        """What Argilla shows for ``row``: the family's fields and terms plus the shared ones."""
        own = self.to_record(row)
        return {
            "fields": {**own["fields"], FLAGS_FIELD[0]: flags_markdown(row)},
            "metadata": review_metadata(row, **own.get("metadata", {})),
            "suggestions": own.get("suggestions", {}),
        }

    def settings(
        self, min_submitted: int = 3, extra_fields: tuple = (), guidelines: str | None = None
    ) -> Any:
        """The Argilla ``Settings`` (argilla is imported here, in the caller's process)."""
        import argilla as rg

        questions: list[Any] = [
            rg.LabelQuestion(
                name=name,
                title=title,
                labels=labels,
                description=description or None,
                required=True,
            )
            for name, (title, labels, description) in self.criteria.items()
        ]
        if self.correction:
            name, title = self.correction
            questions.append(
                rg.TextQuestion(
                    name=name,
                    title=title,
                    required=False,
                    description="Pre-filled with the current text: edit it in place if it needs fixing.",
                )
            )
        fields = [*self.all_fields, *extra_fields]
        return rg.Settings(
            guidelines=guidelines or self.guidelines,
            fields=[rg.TextField(name=n, title=t, use_markdown=md) for n, t, md in fields],
            questions=questions,
            metadata=[
                rg.TermsMetadataProperty(name=n, title=t) for n, t in self.all_metadata.items()
            ],
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


def single_config(table: pa.Table) -> list[str]:
    return ["default"] * table.num_rows


@dataclass(frozen=True)
class Family:
    """One family, described once; see the module docstring."""

    name: str
    schema: FamilySchema
    review: Review
    card: Card
    config_of: Callable[[pa.Table], list[str]] = single_config  # one config name per row
    config_order: tuple[str, ...] = ()  # configs listed first, in this order
    text_column: str = "sentence"  # what a report quotes for an item
