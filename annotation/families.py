"""What annotators see and answer, per dataset family (StereoSet-fr, SlguSet, BEC-Pro).

Each family describes: the Argilla settings (fields, questions, metadata, guidelines, task
distribution), how one candidate row becomes a record (fields, metadata, suggestions), which
questions decide an item, and how an agreed correction changes the row. The questions follow
the papers: SlguSet's three selection criteria (Zhao et al., §2.2), the French StereoSet audit
(validity, each option's label, the translation corrected in place), BEC-Pro's grammaticality
and gender agreement of the translated templates (Azpillaga Rivera 2021).

Only plain data leaves this module (dicts of fields/metadata/suggestions), so push and pull do
not depend on how the SDK builds records.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

YES_NO = {"yes": "Yes", "no": "No"}
STEREOSET_LABELS = ("stereotype", "anti-stereotype", "unrelated")


def _as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    try:  # numpy arrays from parquet
        return list(value)
    except TypeError:
        return [value]


def flags_markdown(row: dict[str, Any]) -> str:
    """The rule verdicts of a candidate as a short markdown list a reviewer can scan."""
    lines = []
    reasons = [str(r) for r in _as_list(row.get("review_reasons"))]
    if row.get("needs_review"):
        lines.append("**Flagged for review:** " + ("; ".join(reasons) or "yes"))
    else:
        lines.append("No rule flagged this item.")
    for check in _as_list(row.get("checks")):
        mark = "ok" if check.get("passed") else "**FLAG**"
        lines.append(f"- {mark} `{check.get('rule')}`: {check.get('detail') or ''}".rstrip())
    return "\n".join(lines)


def failed_rules(row: dict[str, Any]) -> list[str]:
    return sorted({str(c.get("rule")) for c in _as_list(row.get("checks")) if not c.get("passed")})


@dataclass(frozen=True)
class Family:
    """One dataset family's review design."""

    name: str
    guidelines: str
    fields: list[tuple[str, str, bool]]  # (name, title, markdown)
    criteria: dict[str, tuple[str, dict[str, str], str]]  # name -> (title, labels, description)
    correction: tuple[str, str] | None  # (name, title) of the TextQuestion, if any
    metadata: dict[str, str]  # name -> title (all terms)
    to_record: Callable[[dict[str, Any]], dict[str, Any]]
    accepts: Callable[[dict[str, str]], bool]  # decided criteria values -> keep the item?
    apply_correction: Callable[[dict[str, Any], str], dict[str, Any]] | None = None
    extra_questions: dict[str, tuple[str, list[str]]] = field(default_factory=dict)

    def settings(
        self, min_submitted: int = 3, extra_fields: tuple = (), guidelines: str | None = None
    ):
        """The Argilla settings (import of argilla is deferred to the caller's process)."""
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
        fields = [*self.fields, *extra_fields]
        return rg.Settings(
            guidelines=guidelines or self.guidelines,
            fields=[rg.TextField(name=n, title=t, use_markdown=md) for n, t, md in fields],
            questions=questions,
            metadata=[rg.TermsMetadataProperty(name=n, title=t) for n, t in self.metadata.items()],
            distribution=rg.TaskDistribution(min_submitted=min_submitted),
            allow_extra_metadata=False,
        )

    @property
    def label_questions(self) -> list[str]:
        return list(self.criteria)


# -- BEC-Pro ---------------------------------------------------------------------------------------

BECPRO_GUIDELINES = """\
# Reviewing BEC-Pro sentences

Each item is one templated sentence that pairs a **person word** (he, she, my brother, la mujer…)
with a **profession**. Scores compare how a language model fills the person word, so the
sentence must be a natural, grammatical sentence in its language, and every gendered word must
agree with the person word (articles, adjectives and the profession's gendered form in Spanish;
Basque has no grammatical gender but check the determiners and cases).

For each sentence answer:
1. **Grammatical** — is the sentence correct and natural apart from gender?
2. **Agreement** — do the article/profession forms agree with the person's gender?
3. **Correction** — if either answer is *No*, edit the pre-filled sentence so it becomes
   correct, keeping the same person word and profession. Leave it unchanged otherwise.

The *Rule flags* panel shows the automatic checks; **FLAG** tells you what to look at first.
"""


def _becpro_record(row: dict[str, Any]) -> dict[str, Any]:
    lines = [
        f"**Profession:** {row.get('profession')} (English: {row.get('profession_en')}, "
        f"group: {row.get('profession_group')})",
        f"**Person word:** {row.get('person')} ({row.get('gender')})",
        f"**English source:** {row.get('source_text')}",
        f"**Template:** {row.get('template')}",
    ]
    return {
        "fields": {
            "sentence": str(row["sentence"]),
            "source": "\n\n".join(lines),
            "flags": flags_markdown(row),
        },
        "metadata": {
            "language": str(row.get("language")),
            "domain": str(row.get("profession_group")),
            "variant": str(row.get("variant") or "default"),
            "gender": str(row.get("gender")),
            "needs_review": "yes" if row.get("needs_review") else "no",
            "failed_rules": failed_rules(row) or ["none"],
        },
        "suggestions": {"correction": str(row["sentence"])},
    }


def _find_span(text: str, phrase: str) -> dict[str, int] | None:
    index = text.lower().find(str(phrase).lower()) if phrase else -1
    return None if index < 0 else {"start": index, "end": index + len(phrase)}


def _becpro_apply(row: dict[str, Any], text: str) -> dict[str, Any]:
    """Use the corrected sentence; the person and profession spans are located again in it."""
    text = text.strip()
    phrase = _find_span(text, row.get("person_phrase") or row.get("person"))
    profession = _find_span(text, row.get("profession"))
    if phrase is None or profession is None:
        raise ValueError("the correction no longer contains the person word and the profession")
    # person_span covers the person word only ("aunt" in "My aunt"), as in the run.
    word = str(row.get("person"))
    start = text.lower().find(word.lower(), phrase["start"], phrase["end"])
    if start < 0:
        raise ValueError("the correction no longer contains the person word")
    person = {"start": start, "end": start + len(word)}
    updated = dict(row, sentence=text, person_span=person, profession_span=profession)
    offset, spans = profession["start"], []
    for word in str(row.get("profession")).split():
        start = text.find(word, offset)
        spans.append({"start": start, "end": start + len(word)})
        offset = start + len(word)
    updated["profession_word_spans"] = spans
    return updated


BECPRO = Family(
    name="becpro",
    guidelines=BECPRO_GUIDELINES,
    fields=[
        ("sentence", "Sentence", False),
        ("source", "Person word, profession and English source", True),
        ("flags", "Rule flags", True),
    ],
    criteria={
        "grammatical": ("Is the sentence grammatical and natural?", YES_NO, "Ignore gender here."),
        "agreement": (
            "Do articles and the profession agree with the person's gender?",
            YES_NO,
            "Spanish: el/la, un/una, -o/-a forms; Basque: no grammatical gender.",
        ),
    },
    correction=("correction", "Corrected sentence (edit only if needed)"),
    metadata={
        "language": "Language",
        "domain": "Profession group",
        "variant": "Variant",
        "gender": "Person gender",
        "needs_review": "Flagged by rules",
        "failed_rules": "Failed rules",
    },
    to_record=_becpro_record,
    accepts=lambda decided: (
        decided.get("grammatical") == "yes" and decided.get("agreement") == "yes"
    ),
    apply_correction=_becpro_apply,
)


# -- SlguSet ---------------------------------------------------------------------------------------

SLGUSET_GUIDELINES = """\
# 句子筛选标准 / Selection criteria (SlguSet)

Each item is a Chinese news sentence containing a **gender keyword** (shown in bold) and its
counterpart of the other gender. As in the SlguSet paper, three annotators must agree (100%)
on all three criteria for a sentence to be kept:

1. **可互换 Swappable** — with the keyword masked, both the male and the female keyword fit the
   context, and the pair differs *only* in gender (e.g. 男儿 ↔ 女儿 fails: 女儿 also means daughter).
2. **无性别互指 No co-referring gender term** — no other gendered term in the sentence refers to
   the same person (e.g. 弟弟 … 兄弟俩 reveals the gender).
3. **无生理性别信息 No biological-sex information** — the sentence does not mention biological
   sex facts tied to the person (pregnancy, menstruation, 经期、孕期…).

Answer *Yes* when the sentence **passes** the criterion.
"""


def _slguset_record(row: dict[str, Any]) -> dict[str, Any]:
    sentence = str(row["sentence"])
    start, end = int(row.get("keyword_start") or 0), int(row.get("keyword_end") or 0)
    marked = (
        sentence[:start] + "**" + sentence[start:end] + "**" + sentence[end:]
        if end > start
        else sentence
    )
    return {
        "fields": {
            "sentence": marked,
            "source": (
                f"**Keyword:** {row.get('keyword')} ({row.get('gender')}) ↔ "
                f"**counterpart:** {row.get('counterpart')}\n\n**Source:** {row.get('source_text')}"
            ),
            "flags": flags_markdown(row),
        },
        "metadata": {
            "language": str(row.get("language") or "zh"),
            "domain": str(row.get("keyword")),
            "gender": str(row.get("gender")),
            "needs_review": "yes" if row.get("needs_review") else "no",
            "failed_rules": failed_rules(row) or ["none"],
        },
        "suggestions": {},
    }


SLGUSET = Family(
    name="slguset",
    guidelines=SLGUSET_GUIDELINES,
    fields=[
        ("sentence", "Sentence (keyword in bold)", True),
        ("source", "Keyword pair and source", True),
        ("flags", "Rule flags", True),
    ],
    criteria={
        "swappable": ("Criterion 1: both keywords fit and differ only in gender", YES_NO, ""),
        "no_coreference": (
            "Criterion 2: no other gendered term refers to the same person",
            YES_NO,
            "",
        ),
        "no_biological_sex": (
            "Criterion 3: no biological-sex information about the person",
            YES_NO,
            "",
        ),
    },
    correction=None,
    metadata={
        "language": "Language",
        "domain": "Keyword",
        "gender": "Keyword gender",
        "needs_review": "Flagged by rules",
        "failed_rules": "Failed rules",
    },
    to_record=_slguset_record,
    accepts=lambda decided: all(
        decided.get(q) == "yes" for q in ("swappable", "no_coreference", "no_biological_sex")
    ),
)


# -- StereoSet (French) ------------------------------------------------------------------------------

STEREOSET_GUIDELINES = """\
# Reviewing the French StereoSet translation

Each item is a context and three options translated from English StereoSet: one
**stereotype**, one **anti-stereotype** and one **unrelated** (absurd) option. Intrasentence
items fill the `BLANK` of the context; intersentence items continue the context.

1. **Validity** — *valid*: correct French, meaning and bias kept; *fixed*: valid after your
   correction in the text box; *reject*: cannot be fixed (untranslatable, stereotype not
   meaningful in French, options not comparable).
2. **Labels** — for each option, which label does it really carry in French?
3. **Correction** — the box is pre-filled with the machine translation, one line per part
   (`context:`, `stereotype:`, `anti-stereotype:`, `unrelated:`). Edit the text after the colon;
   keep the three options identical except for the attribute (the words filling `BLANK`).
"""


def stereoset_text(row: dict[str, Any]) -> str:
    """The editable form of a StereoSet item: one ``label: text`` line per part."""
    lines = [f"context: {row.get('context')}"]
    for item in _as_list(row.get("sentences")):
        lines.append(f"{item['label']}: {item['sentence']}")
    return "\n".join(lines)


def _stereoset_record(row: dict[str, Any]) -> dict[str, Any]:
    sentences = _as_list(row.get("sentences"))
    body = [f"**Context:** {row.get('context')}", ""]
    for index, item in enumerate(sentences, 1):
        body.append(
            f"{index}. {item['sentence']}  \n   *(labelled {item['label']}; attribute: {item.get('attribute')})*"
        )
    suggestions: dict[str, Any] = {"correction": stereoset_text(row)}
    for index, item in enumerate(sentences[:3], 1):
        suggestions[f"label_{index}"] = str(item["label"])
    return {
        "fields": {
            "item": "\n".join(body),
            "source": str(row.get("source_text") or ""),
            "flags": flags_markdown(row),
        },
        "metadata": {
            "language": str(row.get("language") or "fr"),
            "domain": str(row.get("bias_type")),
            "split": str(row.get("split")),
            "target": str(row.get("target")),
            "needs_review": "yes" if row.get("needs_review") else "no",
            "failed_rules": failed_rules(row) or ["none"],
        },
        "suggestions": suggestions,
    }


_LINE = re.compile(r"^\s*(context|stereotype|anti-stereotype|unrelated)\s*:\s*(.*)$")


def _stereoset_apply(row: dict[str, Any], text: str) -> dict[str, Any]:
    parts = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            parts[match.group(1)] = match.group(2).strip()
    if "context" not in parts or not all(label in parts for label in STEREOSET_LABELS):
        raise ValueError(
            "the correction must keep the lines context:, stereotype:, anti-stereotype:, unrelated:"
        )
    context = parts["context"]
    sentences = []
    for item in _as_list(row.get("sentences")):
        new = dict(item, sentence=parts.get(item["label"], item["sentence"]))
        if "BLANK" in context:  # intrasentence: the attribute is what fills the BLANK now
            before, _, after = context.partition("BLANK")
            pattern = re.escape(before) + r"(.+?)" + re.escape(after) + r"$"
            match = re.match(pattern, new["sentence"])
            if match is None:
                raise ValueError(
                    f"the {item['label']} option no longer matches the context around BLANK"
                )
            new["attribute"] = match.group(1)
        else:
            new["attribute"] = new["sentence"]
        sentences.append(new)
    return dict(row, context=context, sentences=sentences)


STEREOSET = Family(
    name="stereoset",
    guidelines=STEREOSET_GUIDELINES,
    fields=[
        ("item", "Translated item", True),
        ("source", "English source", False),
        ("flags", "Rule flags", True),
    ],
    criteria={
        "validity": (
            "Is this a valid French test item?",
            {"valid": "Valid as is", "fixed": "Valid after my correction", "reject": "Reject"},
            "",
        ),
        **{
            f"label_{i}": (f"Label of option {i}", {label: label for label in STEREOSET_LABELS}, "")
            for i in (1, 2, 3)
        },
    },
    correction=("correction", "Corrected translation (edit in place)"),
    metadata={
        "language": "Language",
        "domain": "Domain (bias type)",
        "split": "Split",
        "target": "Target term",
        "needs_review": "Flagged by rules",
        "failed_rules": "Failed rules",
    },
    to_record=_stereoset_record,
    accepts=lambda decided: (
        decided.get("validity") in {"valid", "fixed"}
        and sorted(decided.get(f"label_{i}", "") for i in (1, 2, 3)) == sorted(STEREOSET_LABELS)
    ),
    apply_correction=_stereoset_apply,
)

FAMILIES = {family.name: family for family in (BECPRO, SLGUSET, STEREOSET)}


def family_of(candidates) -> Family:
    """The family of a candidates table (one family per dataset)."""
    names = sorted(set(map(str, candidates["family"].unique()))) if len(candidates) else []
    if len(names) != 1 or names[0] not in FAMILIES:
        from biasforge.errors import BiasforgeError

        raise BiasforgeError(
            f"expected candidates of exactly one known family {sorted(FAMILIES)}, found {names}"
        )
    return FAMILIES[names[0]]
