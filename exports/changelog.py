"""CHANGELOG.md: what changed in a release compared with the previous version of its name.

Records are matched by id. An id present only in the new release is *added*, only in the old
one *removed*, and in both with a different content hash *changed* (the changed fields are
named). The content hash covers every column of the record plus its config, computed from the
released parquet files themselves, so it also works against releases made by older versions
of this tool.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from biasforge.exports.configs import SPLIT

# Run-time provenance that says how an item was produced this time, not what it is: a re-run
# served from the translation memory flips ``cache_hit`` without changing a word.
VOLATILE = {"translation": ("cache_hit",)}


def _content(record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    for column, keys in VOLATILE.items():
        if isinstance(out.get(column), dict):
            out[column] = {k: v for k, v in out[column].items() if k not in keys}
    return out


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))


def content_hash(record: dict[str, Any], config: str) -> str:
    """sha256 of a record's content (all columns, sorted, without :data:`VOLATILE` fields) and
    the config it is released in."""
    payload = _canonical({"config": config, "record": _content(record)})
    return hashlib.sha256(payload.encode()).hexdigest()


def release_records(release_dir: str | Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """id -> (config, record) for every record of a release folder."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for path in sorted(Path(release_dir).glob(f"*/{SPLIT}.parquet")):
        for record in pq.read_table(path).to_pylist():
            out[str(record["id"])] = (path.parent.name, record)
    return out


@dataclass
class Diff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, list[str]] = field(default_factory=dict)  # id -> changed fields
    unchanged: int = 0

    def summary(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "removed": len(self.removed),
            "changed": len(self.changed),
            "unchanged": self.unchanged,
        }


def diff_records(
    old: dict[str, tuple[str, dict[str, Any]]], new: dict[str, tuple[str, dict[str, Any]]]
) -> Diff:
    """Compare two id -> (config, record) maps."""
    diff = Diff(
        added=sorted(set(new) - set(old)),
        removed=sorted(set(old) - set(new)),
    )
    for rid in sorted(set(new) & set(old)):
        (old_config, old_rec), (new_config, new_rec) = old[rid], new[rid]
        if content_hash(old_rec, old_config) == content_hash(new_rec, new_config):
            diff.unchanged += 1
            continue
        old_c, new_c = _content(old_rec), _content(new_rec)
        fields = sorted(
            key
            for key in set(old_c) | set(new_c)
            if _canonical(old_c.get(key)) != _canonical(new_c.get(key))
        )
        if old_config != new_config:
            fields.insert(0, "(config)")
        diff.changed[rid] = fields
    return diff


def _config_of(records: dict[str, tuple[str, dict[str, Any]]], rid: str) -> str:
    return records[rid][0]


def changelog_md(
    name: str,
    version: str,
    previous: str | None,
    diff: Diff,
    old: dict[str, tuple[str, dict[str, Any]]],
    new: dict[str, tuple[str, dict[str, Any]]],
) -> str:
    """The CHANGELOG.md text: counts, then every id by kind (added/removed/changed)."""
    lines = [f"# Changelog — {name} {version}", ""]
    if previous is None:
        lines += [
            f"First release of {name}: {len(new)} records, all added.",
            "",
            "| | records |",
            "|---|---|",
            f"| added | {len(new)} |",
            "",
        ]
        per_config = Counter(config for config, _ in new.values())
        lines += ["| config | records |", "|---|---|"]
        lines += [f"| {c} | {n} |" for c, n in sorted(per_config.items())]
        return "\n".join(lines) + "\n"
    s = diff.summary()
    lines += [
        f"Changes from {previous} to {version}: {s['added']} added, {s['removed']} removed, "
        f"{s['changed']} changed, {s['unchanged']} unchanged.",
        "",
        "| | records |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in s.items()),
        "",
    ]
    if diff.changed:
        fields = Counter(f for fs in diff.changed.values() for f in fs)
        lines += ["Changed fields:", "", "| field | records |", "|---|---|"]
        lines += [f"| {f} | {n} |" for f, n in fields.most_common()]
        lines.append("")
    lines += [f"## Added ({len(diff.added)})", ""]
    lines += [f"- `{rid}` ({_config_of(new, rid)})" for rid in diff.added] or ["_none_"]
    lines += ["", f"## Removed ({len(diff.removed)})", ""]
    lines += [f"- `{rid}` ({_config_of(old, rid)})" for rid in diff.removed] or ["_none_"]
    lines += ["", f"## Changed ({len(diff.changed)})", ""]
    lines += [
        f"- `{rid}` ({_config_of(new, rid)}): {', '.join(fields)}"
        for rid, fields in diff.changed.items()
    ] or ["_none_"]
    return "\n".join(lines) + "\n"
