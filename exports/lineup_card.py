"""What the dataset card says about native items and about a parallel release (issue 44).

Native items (``origin=native``) are counted per config, with the annotators who reviewed them
(from the reviewed folders' ``responses.parquet``) or the fact that they were not reviewed; a
parallel release says which languages it lines up, by which column, how many source items
all of them keep, and each language's adaptation counts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa

from biasforge.contract.adaptation import NATIVE, ORIGIN
from biasforge.contract.markdown import md_table
from biasforge.contract.reviewed import RESPONSES
from biasforge.contract.rundir import read_table
from biasforge.exports.inputs import ReleaseInput
from biasforge.exports.parallel import SHARED, is_shared


def _native_ids(table: pa.Table) -> list[str]:
    if ORIGIN not in table.column_names:
        return []
    ids, origins = table.column("id").to_pylist(), table.column(ORIGIN).to_pylist()
    return [str(i) for i, origin in zip(ids, origins, strict=True) if origin == NATIVE]


def _reviewers(item: ReleaseInput, ids: set[str]) -> Counter[str]:
    """Annotator -> native items of ``item`` they submitted an answer for."""
    if item.kind != "reviewed" or not ids or RESPONSES not in item.manifest.files:
        return Counter()
    answers = read_table(item.path / RESPONSES).to_pylist()
    pairs = {
        (str(a["annotator"]), str(a["id"]))
        for a in answers
        if str(a.get("id")) in ids and a.get("status") == "submitted"
    }
    return Counter(annotator for annotator, _ in pairs)


def _items(n: int, kind: str = "") -> str:
    """``2 native items``, ``1 native item``; without a kind, ``2 items were``/``1 item was``."""
    noun = f"{kind} item" if kind else "item"
    counted = f"{n} {noun}{'' if n == 1 else 's'}"
    return counted if kind else f"{counted} {'was' if n == 1 else 'were'}"


def native_md(configs: dict[str, pa.Table], inputs: list[ReleaseInput]) -> str:
    """The card's paragraph on native items ("" when there are none)."""
    counts = {c: len(_native_ids(t)) for c, t in configs.items() if not is_shared(c)}
    if not any(counts.values()):
        return ""
    total = sum(counts.values())
    where = ", ".join(f"`{c}`: {n}" for c, n in counts.items() if n)
    lines = [
        f"**Native items**: {_items(total)} written in their language (`origin=native`, "
        f"`adaptation=native`), not translated: {where}. They met the same checks as the "
        "translated items; they have no source counterpart (`source_id` starts `native:`)."
    ]
    for item in inputs:
        ids = set(_native_ids(item.table))
        if not ids:
            continue
        if item.kind != "reviewed":
            lines.append(f"- `{item.path.name}`: {_items(len(ids), 'native')}, **not reviewed**.")
            continue
        who = _reviewers(item, ids)
        named = ", ".join(f"{name} ({n})" for name, n in sorted(who.items())) or "nobody"
        lines.append(
            f"- `{item.path.name}`: {_items(len(ids), 'native')}, reviewed by {named} "
            "(annotator: native items answered)."
        )
    return "\n".join(lines)


def parallel_md(summary: dict[str, Any] | None, configs: dict[str, pa.Table]) -> str:
    """The card's section on a parallel release ("" for another release)."""
    if not summary:
        return ""
    languages = summary["languages"]
    kinds = sorted({k for counts in summary["adaptation"].values() for k in counts})
    rows = [[lang, *(summary["adaptation"][lang].get(k, 0) for k in kinds)] for lang in languages]
    shared = {c: t.num_rows for c, t in configs.items() if is_shared(c)}
    return "\n\n".join(
        [
            f"This is a **parallel release** of {', '.join(languages)}: a config per language "
            f"and a `{SHARED}` config holding, in every language, the "
            f"{summary['shared_items']} source items kept (transferred or modified) in all "
            f"of them, aligned by `{'`, `'.join(summary['key'])}` (as MBBQ, Neplenbroek et al. "
            "2024). Native items and items removed or rejected in any language are not "
            "shared. Compare languages on it with `biasforge score compare --languages`.",
            "Shared configs: " + ", ".join(f"`{c}` ({n} records)" for c, n in shared.items()),
            md_table(["language", *kinds], rows),
        ]
    )


def lineup_md(
    configs: dict[str, pa.Table], inputs: list[ReleaseInput], parallel: dict[str, Any] | None
) -> str:
    """Both parts, as one card section body ("" when neither applies)."""
    parts = [p for p in (parallel_md(parallel, configs), native_md(configs, inputs)) if p]
    return "\n\n".join(parts)


__all__ = ["lineup_md", "native_md", "parallel_md"]
