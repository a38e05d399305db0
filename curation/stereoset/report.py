"""``report.md`` of a StereoSet run: the paper's Table 1 for the run, rules, translation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from biasforge.contract.markdown import excerpt
from biasforge.curation.checks import CheckStats
from biasforge.curation.report import examples_md, md_table, rules_md
from biasforge.curation.stereoset.adapt import retryable_failure
from biasforge.families.stereoset import DOMAINS

#: Table 1 of Adam-Cuvillier et al. (2024), StereoSet-fr, for comparison
PAPER_TABLE1 = {
    "gender": (11, 256, 10, 242),
    "profession": (32, 806, 30, 827),
    "race": (43, 958, 36, 976),
    "religion": (3, 76, 3, 78),
}


def table1_counts(frame: pd.DataFrame, target_column: str = "target") -> dict[str, tuple[int, ...]]:
    """Per domain: (# target terms, # tests) for intrasentence, then intersentence.

    Target terms are distinct values of ``target_column`` within the domain and split, as in
    the paper, whose totals add the domains up.
    """
    counts: dict[str, tuple[int, ...]] = {}
    for domain in DOMAINS:
        values: list[int] = []
        for split in ("intrasentence", "intersentence"):
            part = frame[(frame["bias_type"] == domain) & (frame["split"] == split)]
            values += [part[target_column].nunique(), len(part)]
        counts[domain] = tuple(values)
    counts["total"] = tuple(sum(v[i] for v in counts.values()) for i in range(4))
    return counts


def table1_md(frame: pd.DataFrame, target_column: str = "target") -> str:
    counts = table1_counts(frame, target_column)
    return md_table(
        [
            "domain",
            "intrasentence: # target terms",
            "intrasentence: # tests",
            "intersentence: # target terms",
            "intersentence: # tests",
        ],
        [[domain, *values] for domain, values in counts.items()],
    )


def _paper_md() -> str:
    rows = [[d, *v] for d, v in PAPER_TABLE1.items()]
    rows.append(["total", *(sum(v[i] for v in PAPER_TABLE1.values()) for i in range(4))])
    return md_table(
        ["domain", "intra: terms", "intra: tests", "inter: terms", "inter: tests"], rows
    )


def _rejections_per_rule(rejected: pd.DataFrame) -> str:
    counts: dict[str, int] = {}
    for reasons in rejected["reasons"]:
        for reason in reasons:
            rule = reason.partition(": ")[0]
            counts[rule] = counts.get(rule, 0) + 1
    if not counts:
        return "_no item was rejected_"
    return md_table(["rule", "items rejected"], sorted(counts.items()))


def _failures(rejected: pd.DataFrame) -> str:
    failed = rejected[rejected["reasons"].map(lambda rs: any(retryable_failure(r) for r in rs))]
    if failed.empty:
        return "_none: every text was translated_"
    lines = [
        f"{len(failed)} items could not be translated. Rerun the same command (with "
        "`--overwrite`): what was translated is in the translation memory and is not sent "
        "again; only these items are retried.",
        "",
    ]
    for row in failed.head(20).itertuples(index=False):
        reason = next(r for r in row.reasons if retryable_failure(r))
        lines.append(f"- `{excerpt(row.source_id)}` ({row.split}) — {excerpt(reason)}")
    if len(failed) > 20:
        lines.append(f"- … and {len(failed) - 20} more (see rejected.parquet)")
    return "\n".join(lines)


def _structure_md(structure: dict[str, int]) -> str:
    """Intrasentence items per structure status, with their share ("" when there are none)."""
    intra_kept = sum(structure.values()) or 1
    rows = [[status, n, f"{100 * n / intra_kept:.1f}%"] for status, n in sorted(structure.items())]
    return md_table(["status", "items", "share"], rows) if rows else ""


def _translation_md(t: dict[str, Any]) -> str:
    """The translation's counts, and the share of characters the memory saved."""
    total, sent = t["characters_total"], t["characters_sent"]
    saved = 100 * (1 - sent / total) if total else 0.0
    return (
        "| texts | in memory | requests | retries | characters in source | characters sent "
        "| saved by the memory |\n|---|---|---|---|---|---|---|\n"
        f"| {t['units']} | {t['cache_hits']} | {t['requests']} | {t['retries']} | {total} "
        f"| {sent} | {saved:.1f}% |"
    )


def render_report(
    config: dict[str, Any],
    items: pd.DataFrame,
    kept: pd.DataFrame,
    rejected: pd.DataFrame,
    rules: Sequence[CheckStats],
    stats: dict[str, Any],
) -> str:
    empty = "_no items kept_"
    return f"""# StereoSet run — en → {config["language"]}

Source: `{config["source"]}` ({config["source_kind"]}), engine `{config["engine"]}`.

| source items | kept | rejected | of which translation failed | kept but flagged for review |
|---|---|---|---|---|
| {stats["items"]} | {stats["kept"]} | {stats["rejected"]} | {stats["translation_failed"]} | {stats["needs_review"]} |

## Table 1 — target terms and tests per domain (this run, kept items)

Target terms are the translated target words (distinct per domain and split).

{table1_md(kept) if len(kept) else empty}

Same count on the source target words:

{table1_md(kept, "_target_en") if len(kept) else empty}

The English source before the audit:

{table1_md(items)}

For comparison, Table 1 of StereoSet-fr (Adam-Cuvillier et al. 2024):

{_paper_md()}

## Rejections per rule

{_rejections_per_rule(rejected)}

## Rules

Every item carries the verdict of every rule it met (`checks` column). `reject` rules remove
the item (kept in `rejected.parquet` with its reasons); `review` rules keep it and flag it for
annotators with the reason (`needs_review`, `review_reasons`).

{rules_md(rules)}

## Intrasentence structure after translation

`identical`: the three translated sentences differed only in the attribute. `uniformised`:
they did not, and were rebuilt from the context translated once with its slot. Items whose
alignment was lost (an engine dropped a tag) are rejected by the `structure` rule.

{_structure_md(stats["structure"]) or empty}

## Translation

{_translation_md(stats["translation"])}

### Failures

{_failures(rejected)}

## Flagged for review (examples)

{examples_md(kept, "review_reasons", text_column="context") if len(kept) else empty}

## Rejected (examples)

{examples_md(rejected, "reasons", text_column="context") if len(rejected) else "_none_"}
"""
