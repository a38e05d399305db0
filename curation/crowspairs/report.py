"""``report.md`` of a CrowS-Pairs run: pairs per bias type, each rule's counts, flag examples."""

from __future__ import annotations

from biasforge.contract.markdown import excerpt, md_table
from biasforge.curation.checks import CheckResult


def render_report(config: dict, stats: dict, result: CheckResult) -> str:
    """What the run did, in a few tables a reviewer reads before opening Argilla."""
    kept, rejected = result.kept, result.rejected
    by_type = [
        [t, stats["bias_types"].get(t, 0), int((rejected["bias_type"] == t).sum())]
        for t in sorted(set(stats["bias_types"]) | set(rejected["bias_type"]))
    ]
    rules = [[r["rule"], r["severity"], r["seen"], r["failed"]] for r in stats["rules"]]
    lines = [
        f"# CrowS-Pairs {config['language']} (from {config['source_language']})",
        "",
        f"Source: `{config['source']}`, engine `{config['engine']}`. {stats['pairs']} pairs: "
        f"{stats['kept']} kept ({stats['needs_review']} flagged for review), "
        f"{stats['rejected']} rejected.",
        "",
        "## Pairs per bias type",
        "",
        md_table(["bias type", "kept", "rejected"], by_type),
        "",
        "## Rules",
        "",
        md_table(["rule", "severity", "seen", "failed"], rules),
        "",
        "## Examples of flags",
        "",
    ]
    flagged = kept[kept["needs_review"]].head(10) if len(kept) else kept
    for row in flagged.itertuples(index=False):
        lines.append(
            f"- `{excerpt(row.source_id)}` {excerpt(row.sent_more)} / {excerpt(row.sent_less)}: "
            + excerpt("; ".join(row.review_reasons))
        )
    for row in rejected.head(10).itertuples(index=False):
        lines.append(f"- rejected `{excerpt(row.source_id)}`: " + excerpt("; ".join(row.reasons)))
    return "\n".join(lines) + "\n"
