"""``report.md`` of a SlguSet run: funnel, keyword pairs, rules, timings, name-filter quality."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd

from biasforge.contract.markdown import md_table
from curation.checks import CheckStats
from curation.report import examples_md, rules_md
from curation.slguset.lexicon import Lexicon

RULES_TEXT = """Every candidate carries each rule's verdict (`checks`). `reject` rules drop the sentence into
`rejected.parquet` with its reasons; `review` rules keep it and flag it for annotators (the
paper's criteria 1–3 are decided by people)."""

EVAL_TEXT = (
    "Sentence-level precision/recall on `{file}` (gold person names), "
    "split into fixed halves by a hash of each id: the model was fitted on `tune` (so "
    "its `tune` figures are optimistic), `heldout` is the honest figure. Sentence "
    "positive = at least one gold name; flagged = the filter found one. Targets: "
    "recall ≥ 0.95, precision ≥ 0.70.\n\n"
)


def per_keyword(kept: pd.DataFrame, lexicon: Lexicon) -> list[dict[str, Any]]:
    """Kept candidates per keyword pair, by gender and form."""
    counts = Counter(kept["keyword"]) if len(kept) else Counter()
    rows = []
    for pair in lexicon.pairs:
        forms = [f for f in lexicon.forms.values() if f.pair == pair]
        male = sum(counts[f.text] for f in forms if f.gender == "male")
        female = sum(counts[f.text] for f in forms if f.gender == "female")
        detail = ", ".join(f"{f.text} {counts[f.text]}" for f in forms if counts[f.text])
        rows.append({"pair": pair, "male": male, "female": female, "forms": detail})
    return rows


def rejections(rejected: pd.DataFrame) -> dict[str, int]:
    """Rejected rows by the rule that dropped them."""
    counts: Counter = Counter()
    if len(rejected):
        for reasons in rejected["reasons"]:
            counts[reasons[0].split(":", 1)[0]] += 1
    return dict(counts)


def _funnel(stats: dict[str, Any]) -> str:
    return md_table(
        ["stage", "count"],
        [
            ["documents (lines/records)", stats["documents"]],
            ["raw characters", stats["raw_chars"]],
            ["undecodable lines skipped", stats["bad_lines_skipped"]],
            [
                "documents without any gender form (regex prefilter)",
                stats["documents_without_keyword"],
            ],
            ["sentences in documents with a form", stats["sentences_seen"]],
            ["… without a gender form (regex prefilter)", stats["sentences_without_keyword"]],
            ["exact duplicates dropped", stats["duplicates"]],
            ["quote repairs", stats["quote_repairs"]],
            ["rejected by a rule (rejected.parquet)", stats["rejected"]],
            ["kept candidates", stats["kept"]],
            ["… flagged for review", stats["needs_review"]],
        ],
    )


def _evaluation(evaluation: dict[str, Any] | None) -> str:
    if not evaluation:
        return "_not measured in this run (pass `--name-eval FILE` with gold names)_"
    rows = []
    for part in ("tune", "heldout", "all"):
        for who, label in (("model", "this filter"), ("jieba_nr", "jieba nr* alone")):
            r = evaluation[part][who]
            rows.append(
                [
                    part,
                    label,
                    r["sentences"],
                    r["positives"],
                    r["flagged"],
                    f"{r['precision']:.3f}",
                    f"{r['recall']:.3f}",
                ]
            )
    header = ["part", "filter", "sentences", "with names", "flagged", "precision", "recall"]
    return EVAL_TEXT.format(file=evaluation["file"]) + md_table(header, rows)


def render_report(stats: dict[str, Any], kept: pd.DataFrame, rejected: pd.DataFrame) -> str:
    rules = [
        CheckStats(r["rule"], r["severity"], r["description"], r["seen"], r["failed"], r["seconds"])
        for r in stats["rules"]
    ]
    per_kw = md_table(
        ["pair", "male", "female", "forms"],
        [[r["pair"], r["male"], r["female"], r["forms"]] for r in stats["per_keyword"]],
    )
    timings = md_table(
        ["stage", "seconds"], [[k, f"{v:.3f}"] for k, v in sorted(stats["seconds"].items())]
    )
    rejected_by = md_table(
        ["rule (first failed)", "rows"], sorted(stats["rejections_per_rule"].items())
    )
    corpus = ", ".join(f"`{c}`" for c in stats["corpus"])
    return f"""# SlguSet run

Corpus: {corpus} — {stats["num_proc"]} process(es),
name tagger `{stats["tagger"]}`, {stats["raw_chars_per_second"]:,} raw characters/s overall.

## Funnel

{_funnel(stats)}

## Kept candidates per keyword pair

{per_kw}

## Rules

{RULES_TEXT}

{rules_md(rules)}

Rejected rows by the rule that dropped them:

{rejected_by}

## Timings

Seconds per datatrove step (summed over tasks), the mining wall clock and the merge.

{timings}

## Person-name filter quality

{_evaluation(stats.get("name_filter_eval"))}

## Flagged for review (examples)

{examples_md(kept, "review_reasons") if len(kept) else "_none_"}

## Rejected (examples)

{examples_md(rejected, "reasons") if len(rejected) else "_none_"}
"""
