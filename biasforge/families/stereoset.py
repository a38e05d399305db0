"""StereoSet (Nadeem et al. 2021) and its translations (StereoSet-fr, Adam-Cuvillier et al.
2024), described once.

An item is a context and three options (stereotype, anti-stereotype, unrelated). Intrasentence
options fill the context's ``BLANK`` and must differ only at the attribute — the French paper
found half of independent translations broke this, so it is a release rule. Review checks the
item's validity and each option's label, and corrects the translation in place; a corrected
part re-translates the English sentence it came from.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pandas as pd
import pyarrow as pa

from biasforge.contract.adaptation import NATIVE, origin_of
from biasforge.contract.markdown import md_table
from biasforge.contract.schema import Column, FamilySchema
from biasforge.families.base import (
    Adaptation,
    DatasetKey,
    Row,
    as_list,
    escape,
    follow_span,
    html_table,
    mark,
    marked,
)
from biasforge.families.declaration import declared, declared_review
from biasforge.rules import review_state

LABELS = ("stereotype", "anti-stereotype", "unrelated")
SPLITS = ("intrasentence", "intersentence")
DOMAINS = ("gender", "profession", "race", "religion")

SENTENCE = pa.struct(
    [
        ("id", pa.string()),
        ("label", pa.string()),
        ("sentence", pa.string()),
        ("attribute", pa.string()),
    ]
)
TRANSLATION = pa.struct(
    [
        ("engine", pa.string()),
        ("source_lang", pa.string()),
        ("target_lang", pa.string()),
        ("cache_hit", pa.bool_()),
        ("glossary", pa.string()),
    ]
)


def options_rule(row: Row) -> list[str]:
    """One sentence per label, each with an id and text."""
    sentences = as_list(row.get("sentences"))
    labels = [s.get("label") for s in sentences]
    problems = []
    if sorted(labels) != sorted(LABELS):
        problems.append(
            f"needs exactly one stereotype, one anti-stereotype and one unrelated sentence, "
            f"has {labels}"
        )
    for s in sentences:
        if not (s.get("id") or "").strip():
            problems.append(f"{s.get('label')} sentence has no id")
        if not (s.get("sentence") or "").strip():
            problems.append(f"{s.get('label')} sentence is empty")
    return problems


def frame_problem(context: str, sentence: str, attribute: str) -> str | None:
    """Why ``sentence`` is not ``context`` with BLANK replaced by ``attribute``, or None.

    Letter case is compared loosely: the published English StereoSet lower-cases its
    sentences ("The Crimean people…" / "The crimean people…") without changing the words.
    """
    prefix, _, suffix = context.partition("BLANK")
    if not attribute.strip():
        return "empty attribute"
    expected = prefix + attribute + suffix
    if sentence == expected or sentence.lower() == expected.lower():
        return None
    return f"sentence {sentence!r} is not the context with BLANK = {attribute!r}"


def structure_rule(row: Row) -> list[str]:
    """Intrasentence: one BLANK, options differ only at the attribute; intersentence: a context."""
    context = row.get("context") or ""
    if row.get("split") == "intersentence":
        return [] if context.strip() else ["intersentence item has an empty context"]
    if row.get("split") != "intrasentence":
        return []
    if context.count("BLANK") != 1:
        return [f"context must hold exactly one BLANK, has {context.count('BLANK')}"]
    problems = []
    for s in as_list(row.get("sentences")):
        why = frame_problem(context, s.get("sentence") or "", s.get("attribute") or "")
        if why:
            problems.append(f"{s.get('label')}: {why} (must differ only at the attribute)")
    return problems


SCHEMA = FamilySchema(
    family="stereoset",
    columns=(
        Column("split", pa.string(), allowed=SPLITS),
        Column("bias_type", pa.string(), nonempty=True),
        Column("target", pa.string(), nonempty=True),
        Column("context", pa.string()),
        Column("sentences", pa.list_(SENTENCE)),
        Column("source_sentences", pa.list_(pa.string()), required=False),
        Column("variant", pa.string(), required=False),
    ),
    trailing=(Column("translation", TRANSLATION, required=False),),
    row_rules=(options_rule,),
    release_rules=(structure_rule,),
    nested_ids="sentences",
)


# ----------------------------------------------------------------------------- review


OPTION_NAMES = ("A", "B", "C")
CHECK_KEY = "order_check"  # hidden record metadata: a keyed digest of the shown order
LEGACY_ORDER_KEY = "option_order"  # where records pushed before keyed orders kept theirs
_LABEL_WORD = re.compile(r"\b(anti-stereotype|stereotype|unrelated)(_|\b)", re.IGNORECASE)


def _legacy_order(row: Row, key: DatasetKey) -> list[int] | None:
    """The order a record pushed before keyed orders kept in its metadata, or None (also
    for one that is no order of the options: the record then fails ``pull``'s check)."""
    stored = str(key.legacy.get(str(row.get("id")), {}).get(LEGACY_ORDER_KEY, ""))
    order = [int(i) for i in stored.split(",") if i.strip().isdigit()]
    return order if sorted(order) == list(range(len(as_list(row.get("sentences"))))) else None


def option_order(row: Row, *, key: DatasetKey) -> list[int]:
    """Which stored sentence each shown option (A, B, C) is: a shuffle seeded by an HMAC of
    the record id under the dataset's private key.

    Stored sentences are in label order (stereotype first); shown in that order, the label
    questions were answered by reading the position (issue 23). Seeded by the id alone, the
    order was known to anyone who read this code and the id (issue 33): keyed, it is the
    same for every annotator, push and pull of the dataset, and unknown without the key.
    Records pushed before keyed orders keep the order they were shown with.
    """
    legacy = _legacy_order(row, key)
    if legacy is not None:
        return legacy
    order = list(range(len(as_list(row.get("sentences")))))
    random.Random(key.digest("stereoset-options", str(row.get("id")))).shuffle(order)
    return order


def order_check(row: Row, *, key: DatasetKey) -> str:
    """A keyed digest of the record's shown order, kept in hidden metadata: ``pull`` tells a
    record shown in another order (another version, another key) by it, and it tells an
    annotator nothing without the key."""
    order = ",".join(map(str, option_order(row, key=key)))
    return key.digest("stereoset-order-check", str(row.get("id")), order).hex()[:16]


def shown_options(row: Row, *, key: DatasetKey) -> list[tuple[str, int, dict[str, Any]]]:
    """(option name, stored index, sentence) in the order annotators see them."""
    sentences = as_list(row.get("sentences"))
    return [(OPTION_NAMES[j], i, sentences[i]) for j, i in enumerate(option_order(row, key=key))]


def blind(row: Row, text: str, *, key: DatasetKey) -> str:
    """``text`` with each label word replaced by the option that carries it, so the rule flags
    shown to annotators name no label ("stereotype: sentence …" → "option B: sentence …")."""
    name = {s.get("label"): n for n, _, s in shown_options(row, key=key)}

    def option(match: re.Match) -> str:
        if match.group(2) == "_":  # a rule name such as unrelated_plausible
            return "option_"
        return f"option {name.get(match.group(1).lower(), '?')}"

    return _LABEL_WORD.sub(option, text)


def editable_text(row: Row, *, key: DatasetKey) -> str:
    """The editable form of an item: ``context:`` then one ``A:``/``B:``/``C:`` line per
    option in the shown order (no label names: the box is visible to annotators)."""
    lines = [f"context: {row.get('context')}"]
    for name, _, item in shown_options(row, key=key):
        lines.append(f"{name}: {item['sentence']}")
    return "\n".join(lines)


def _find(text: str, word: str, start: int = 0) -> tuple[int, int] | None:
    index = text.lower().find(word.lower(), start) if word else -1
    return None if index < 0 else (index, index + len(word))


def _option_spans(row: Row, sentence: str, attribute: str) -> list[tuple[int, int, str]]:
    """The target and (intrasentence) the slot filler in one option, by position."""
    spans = []
    target = _find(sentence, str(row.get("target") or ""))
    if target:
        spans.append((*target, "target"))
    if row.get("split") == "intrasentence" and attribute:
        prefix = str(row.get("context") or "").partition("BLANK")[0]
        at = len(prefix) if sentence.lower().startswith(prefix.lower()) else 0
        slot = _find(sentence, attribute, at)
        if slot:
            spans.append((*slot, "slot"))
    return spans


def item_markdown(row: Row, *, key: DatasetKey) -> str:
    """Target, context and the three options (French beside English), what to judge marked.

    The options' labels are not shown, and the options are in the record's shuffled order
    under neutral names: annotators give the labels (issue 23).
    """
    context = str(row.get("context") or "")
    target = str(row.get("target") or "")
    in_context = _find(context, target)
    shown = marked(context, [(*in_context, "target")] if in_context else []).replace(
        "BLANK", "\\_\\_\\_\\_"
    )
    note = "" if in_context else " (not found verbatim in the context)"
    slot = "; the words filling the blank are marked" if row.get("split") == "intrasentence" else ""
    lines = [
        f"**Target:** {mark(target, 'target')}{note} — {escape(row.get('bias_type'))}, "
        f"{escape(row.get('split'))}{slot}",
        "",
        f"**Context:** {shown}",
        "",
    ]
    # a native item (written in the language) has no English source to show beside it
    english = [] if origin_of(row) == NATIVE else as_list(row.get("source_sentences"))
    rows = []
    for name, index, item in shown_options(row, key=key):
        sentence = str(item.get("sentence") or "")
        spans = _option_spans(row, sentence, str(item.get("attribute") or ""))
        source = escape(english[index]) if index < len(english) else "–"
        rows.append([name, marked(sentence, spans), source])
    language = escape(row.get("language") or "translation")
    lines.append(html_table(["option", f"translation ({language})", "English source"], rows))
    return "\n".join(lines)


def to_record(row: Row, *, key: DatasetKey) -> dict[str, Any]:
    """What Argilla keeps of the item; nothing of it tells the shown order without the key
    (a record pushed before keyed orders gets no check: its order is read from its own
    metadata)."""
    suggestions: dict[str, Any] = {"correction": editable_text(row, key=key)}
    for name, _, item in shown_options(row, key=key):
        suggestions[f"label_{name}"] = str(item["label"])  # only sent with --suggest-labels
    metadata = {
        "domain": str(row.get("bias_type")),
        "split": str(row.get("split")),
        "target": str(row.get("target")),
    }
    if _legacy_order(row, key) is None:
        metadata[CHECK_KEY] = order_check(row, key=key)
    return {
        "fields": {
            "item": item_markdown(row, key=key),
            "source": _source_field(row),
        },
        "metadata": metadata,
        "suggestions": suggestions,
    }


def _source_field(row: Row) -> str:
    """The review page's source field: the English context a translation came from, or for a
    native item (issue 44) that there is none: its ``source_text`` is its own text."""
    if origin_of(row) == NATIVE:
        return f"**Written in {escape(row.get('language') or 'the language')}**: no English source."
    return f"**English context:** {escape(row.get('source_text') or '')}"


_LINE = re.compile(r"^\s*(context|A|B|C)\s*:\s*(.*)$")


def _parts(text: str) -> dict[str, str]:
    parts = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            parts[match.group(1)] = match.group(2).strip()
    if not all(name in parts for name in ("context", *OPTION_NAMES)):
        raise ValueError("the correction must keep the lines context:, A:, B:, C:")
    return parts


def _attribute(context: str, item: dict[str, Any], name: str) -> str:
    """What fills the BLANK of ``context`` in the option (intersentence: the whole option)."""
    if "BLANK" not in context:
        return item["sentence"]
    before, _, after = context.partition("BLANK")
    pattern = re.escape(before) + r"(.+?)" + re.escape(after) + r"$"
    match = re.match(pattern, item["sentence"])
    if match is None:
        raise ValueError(f"option {name} no longer matches the context around BLANK")
    return match.group(1)


def apply_correction(row: Row, text: str, *, key: DatasetKey) -> Row:
    """The corrected context and options; line ``A:`` is the sentence shown as option A."""
    parts = _parts(text)
    context = parts["context"]
    sentences = [dict(s) for s in as_list(row.get("sentences"))]
    for name, index, item in shown_options(row, key=key):
        new = dict(item, sentence=parts[name])
        new["attribute"] = _attribute(context, new, name)
        sentences[index] = new
    return dict(row, context=context, sentences=sentences)


def apply_answers(row: Row, decided: dict[str, str], *, key: DatasetKey) -> Row:
    """The agreed label of each shown option replaces the label of the sentence it showed."""
    sentences = [dict(s) for s in as_list(row.get("sentences"))]
    for name, index, _ in shown_options(row, key=key):
        sentences[index]["label"] = decided.get(f"label_{name}", sentences[index]["label"])
    return dict(row, sentences=sentences)


def corrected_sources(before: Row, after: Row) -> list[tuple[str, str]]:
    """Each corrected part re-translates the English text it came from."""
    pairs = []
    if after.get("context") != before.get("context"):
        pairs.append((str(before["source_text"]), str(after["context"])))
    sources = as_list(before.get("source_sentences"))
    olds, news = as_list(before.get("sentences")), as_list(after.get("sentences"))
    for index, (old, new) in enumerate(zip(olds, news, strict=False)):
        if old.get("sentence") != new.get("sentence") and index < len(sources):
            pairs.append((str(sources[index]), str(new["sentence"])))
    return pairs


RECHECK_RULE = "after_correction"


def recheck(before: Row, after: Row) -> Row:
    """A corrected item checked again: its target stays the item's term while the corrected
    context still holds it (``Les tailleurs`` keeps the target ``tailleur``: per-target
    statistics group the items of one term), and follows the context only where the term
    itself was corrected (an untranslated ``Ethiopia`` becomes ``Éthiopie``); the structure
    and option rules run again, and ``needs_review``/``review_reasons`` are recomputed. What
    the checks cannot settle is flagged for the reviewer in a failed ``after_correction``
    check."""
    problems, target = [], str(before.get("target") or "")
    old, new = str(before.get("context") or ""), str(after.get("context") or "")
    found = _find(old, target)
    if new != old and _find(new, target) is None:
        if found is not None:
            start, end = follow_span(old, new, found, widen=True)
            target = new[start:end] if start < end else target
            if start >= end:
                problems.append(f"the corrected context no longer contains the target {target!r}")
        else:
            problems.append(f"the target {target!r} is not in the corrected context: set it")
    row = dict(after, target=target)
    problems += options_rule(row)
    structure = structure_rule(row)
    rerun = {RECHECK_RULE, "structure"}  # the curation's structure check, run again
    checks = [dict(c) for c in as_list(before.get("checks")) if c.get("rule") not in rerun]
    checks.append(
        {"rule": "structure", "passed": not structure, "severity": "review",
         "detail": "; ".join(structure) or "options differ only at the attribute"}
    )  # fmt: skip
    checks.append(
        {"rule": RECHECK_RULE, "passed": not problems, "severity": "review",
         "detail": "; ".join(problems) or "target and options checked again"}
    )  # fmt: skip
    return {**row, **review_state(checks)}


LABEL_QUESTIONS = tuple(f"label_{name}" for name in OPTION_NAMES)


def impossible_labels(decided: dict[str, str]) -> str | None:
    """Why decided labels are no item of StereoSet's (each label once over the options)."""
    labels = [decided.get(q) for q in LABEL_QUESTIONS]
    rejected = decided.get("validity") == "reject"  # its labels no longer matter
    if rejected or None in labels or sorted(labels) == sorted(LABELS):
        return None
    given = ", ".join(f"{q}={v}" for q, v in zip(LABEL_QUESTIONS, labels, strict=True))
    return f"impossible labels ({given}): each of {', '.join(LABELS)} must be given once"


def known_answers(row: Row, *, key: DatasetKey) -> dict[str, str]:
    """The label questions' answers that a validated item implies: each shown option's label
    (through the record's shuffled order), so a validated item can be a control item."""
    return {
        f"label_{name}": str(item.get("label")) for name, _, item in shown_options(row, key=key)
    }


def source_labels(row: Row) -> dict[str, str]:
    """Each sentence's label by sentence id: the source's before review (a translation keeps
    the English labels), the blind decision after."""
    return {str(s.get("id")): str(s.get("label")) for s in as_list(row.get("sentences"))}


REVIEW = declared_review(
    "stereoset",
    criteria={
        f"label_{name}": (
            f"Label of option {name}",
            {label: label for label in LABELS},
            "Which association does this French option carry?",
        )
        for name in OPTION_NAMES
    },
    to_record=to_record,
    accepts=lambda decided: (
        decided.get("validity") in {"valid", "fixed"}
        and sorted(decided.get(q, "") for q in LABEL_QUESTIONS) == sorted(LABELS)
    ),
    joint=LABEL_QUESTIONS,
    impossible=impossible_labels,
    apply_correction=apply_correction,
    apply_answers=apply_answers,
    corrected_sources=corrected_sources,
    hidden_metadata=(CHECK_KEY,),
    needs_key=True,
    legacy_metadata=(LEGACY_ORDER_KEY,),
    blind=blind,
    recheck=recheck,
    as_is={"validity": "valid"},
    known_answers=known_answers,
    source_labels=source_labels,
    label_domain="bias_type",
    adaptation=Adaptation(domain="bias_type"),  # translated: SHADES' question (issue 44)
)


# ----------------------------------------------------------------------------- release


def _per_domain(table: pa.Table | None) -> dict[str, tuple[int, int]]:
    frame = (
        table.select(["bias_type", "target"]).to_pandas()
        if table is not None
        else pd.DataFrame({"bias_type": [], "target": []})
    )
    per = {
        d: (int(frame[frame.bias_type == d].target.nunique()), int((frame.bias_type == d).sum()))
        for d in sorted(set(DOMAINS) | set(frame.bias_type))
    }
    per["total"] = (sum(v[0] for v in per.values()), len(frame))
    return per


def statistics(configs: dict[str, pa.Table]) -> str:
    """Table 1 of the French paper: target terms and tests per domain, intra and inter."""
    header = ["domain"]
    columns = []
    for split in SPLITS:
        header += [f"{split}: target terms", f"{split}: tests"]
        columns.append(_per_domain(configs.get(split)))
    domains = [d for d in columns[0] if d != "total"]
    domains += [d for d in columns[1] if d not in domains and d != "total"]
    rows = []
    for domain in [*domains, "total"]:
        row: list[object] = [domain]
        for per in columns:
            row += list(per.get(domain, (0, 0)))
        rows.append(row)
    return md_table(header, rows)


FAMILY = declared(
    "stereoset",
    schema=SCHEMA,
    review=REVIEW,
    statistics=statistics,
    config_order=SPLITS,
)
