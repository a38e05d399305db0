"""Read StereoSet in any of its three published shapes into one table of source items.

* the official JSON (``{"version", "data": {"intrasentence": [...], "intersentence": [...]}}``,
  each item with ``id``, ``target``, ``bias_type``, ``context`` and ``sentences`` carrying
  ``id``, ``sentence`` and ``gold_label``);
* a flattened JSONL, one item a line with ``type``, ``target``, ``bias_type``, ``context``,
  ``stereotype``, ``anti-stereotype``, ``unrelated`` (no ids: they are derived from the
  content with :func:`biasforge.files.stable_id`, plus an occurrence number when the same
  content appears twice, so ids are stable and unique);
* a Hugging Face hub id (``McGill-NLP/stereoset``), read with ``datasets`` when online.

Every item becomes one row: ``source_id``, ``split``, ``bias_type``, ``target``, ``context``,
``sentences`` (list of ``{id, label, sentence}`` in the order stereotype, anti-stereotype,
unrelated) and ``origin`` (file and line or record, for messages).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from biasforge.errors import BiasforgeError, InputError
from biasforge.families.stereoset import DOMAINS, LABELS, SPLITS
from biasforge.files import stable_id
from biasforge.resources import package_path
from biasforge.textfiles import (
    DEFAULT,
    check_encoding,
    control_problem,
    encoding_for,
    open_text,
    read_text,
)

BIAS_TYPES = DOMAINS  # StereoSet's name for them
COLUMNS = ["source_id", "split", "bias_type", "target", "context", "sentences", "origin"]
#: the default source: a 205-item sample of the English dev set, flattened JSONL
BUNDLED_SAMPLE = package_path("biasforge.curation", "data", "stereoset", "sample_dev_en.jsonl")


def _require_str(value: Any, what: str, path: Path, **where) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, f"{what} must be a non-empty string, got {value!r}", **where)
    problem = control_problem(value)
    if problem:
        raise InputError(path, f"{what}: {problem}", **where)
    return value.strip()


def _item(
    path: Path,
    where: dict,
    *,
    source_id: str,
    split: Any,
    bias_type: Any,
    target: Any,
    context: Any,
    sentences: list[dict[str, str]],
    origin: str,
) -> dict[str, Any]:
    if split not in SPLITS:
        raise InputError(path, f"type must be one of {', '.join(SPLITS)}, got {split!r}", **where)
    bias_type = _require_str(bias_type, "bias_type", path, **where)
    if bias_type not in BIAS_TYPES:
        raise InputError(
            path, f"bias_type must be one of {', '.join(BIAS_TYPES)}, got {bias_type!r}", **where
        )
    labels = [s["label"] for s in sentences]
    if sorted(labels) != sorted(LABELS):
        raise InputError(
            path,
            f"expected one sentence per label ({', '.join(LABELS)}), got {labels}",
            **where,
        )
    order = {label: i for i, label in enumerate(LABELS)}
    return {
        "source_id": source_id,
        "split": split,
        "bias_type": bias_type,
        "target": _require_str(target, "target", path, **where),
        "context": _require_str(context, "context", path, **where),
        "sentences": sorted(sentences, key=lambda s: order[s["label"]]),
        "origin": origin,
    }


def read_jsonl(path: str | Path, encoding: str = DEFAULT) -> pd.DataFrame:
    """The flattened layout, one item per line; ids derived from the content."""
    path = Path(path)
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    with open_text(path, encoding) as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = {"line": line_no}
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(path, f"not valid JSON ({exc.msg})", **where) from exc
            if not isinstance(raw, dict):
                raise InputError(path, "expected a JSON object", **where)
            missing = [
                k for k in ("type", "target", "bias_type", "context", *LABELS) if k not in raw
            ]
            if missing:
                raise InputError(path, f"missing field(s) {', '.join(missing)}", **where)
            texts = [_require_str(raw[label], label, path, **where) for label in LABELS]
            content = [raw["type"], raw["target"], raw["bias_type"], raw["context"], *texts]
            base = stable_id("stereoset", *map(str, content))
            seen[base] = seen.get(base, 0) + 1
            source_id = base if seen[base] == 1 else stable_id(base, str(seen[base]))
            sentences = [
                {"id": stable_id(source_id, label), "label": label, "sentence": text}
                for label, text in zip(LABELS, texts, strict=True)
            ]
            rows.append(
                _item(
                    path,
                    where,
                    source_id=source_id,
                    split=raw["type"],
                    bias_type=raw["bias_type"],
                    target=raw["target"],
                    context=raw["context"],
                    sentences=sentences,
                    origin=f"{path.name}:{line_no}",
                )
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def _official_items(
    path: Path, items: Iterable[Mapping[str, Any]], split: str, label_of
) -> list[dict[str, Any]]:
    rows = []
    for index, raw in enumerate(items):
        record = str(raw.get("id") or f"{split}[{index}]") if isinstance(raw, Mapping) else None
        where = {"record": record or f"{split}[{index}]"}
        if not isinstance(raw, Mapping):
            raise InputError(path, "expected a JSON object", **where)
        for key in ("id", "target", "bias_type", "context", "sentences"):
            if key not in raw:
                raise InputError(path, f"missing field {key!r}", **where)
        if not isinstance(raw["sentences"], list):
            got = json.dumps(raw["sentences"])[:40]
            raise InputError(path, f"'sentences' must be a list of objects, got {got}", **where)
        sentences = []
        for s_index, sentence in enumerate(raw["sentences"]):
            if not isinstance(sentence, Mapping) or "sentence" not in sentence:
                raise InputError(path, f"sentence {s_index} has no 'sentence' field", **where)
            label = label_of(sentence.get("gold_label"))
            if label not in LABELS:
                raise InputError(
                    path,
                    f"sentence {s_index} has gold_label {label!r}, not one of {LABELS}",
                    **where,
                )
            sentences.append(
                {
                    "id": str(sentence.get("id") or stable_id(str(raw["id"]), label)),
                    "label": label,
                    "sentence": _require_str(sentence["sentence"], "sentence", path, **where),
                }
            )
        rows.append(
            _item(
                path,
                where,
                source_id=str(raw["id"]),
                split=split,
                bias_type=raw["bias_type"],
                target=raw["target"],
                context=raw["context"],
                sentences=sentences,
                origin=f"{path.name} record {raw['id']}",
            )
        )
    return rows


def read_official_json(path: str | Path, encoding: str = DEFAULT) -> pd.DataFrame:
    """The layout of the StereoSet release (``dev.json``), ids kept as published."""
    path = Path(path)
    try:
        data = json.loads(read_text(path, encoding))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON ({exc.msg})", line=exc.lineno) from exc
    if not isinstance(data, dict) or not isinstance(data.get("data"), dict):
        raise InputError(path, 'expected {"version": ..., "data": {"intrasentence": [...], ...}}')
    rows: list[dict[str, Any]] = []
    for split in SPLITS:
        items = data["data"].get(split, [])
        if not isinstance(items, list):
            raise InputError(path, f"data.{split} must be a list")
        rows += _official_items(path, items, split, lambda g: g)
    _check_unique(path, rows)
    return pd.DataFrame(rows, columns=COLUMNS)


def from_hf_rows(
    rows: Iterable[Mapping[str, Any]], split: str, gold_names: list[str], name: str
) -> list[dict[str, Any]]:
    """Convert rows of the hub dataset (sentences as a dict of lists) to source items."""

    def label_of(gold: Any) -> Any:
        return gold_names[gold] if isinstance(gold, int) else gold

    items = []
    for row in rows:
        s = row["sentences"]
        sentences = [
            {"sentence": text, "id": sid, "gold_label": gold}
            for text, sid, gold in zip(s["sentence"], s["id"], s["gold_label"], strict=True)
        ]
        items.append({**row, "sentences": sentences})
    return _official_items(Path(name), items, split, label_of)


def gold_label_names(features: Mapping[str, Any]) -> list[str]:
    """Names of the ``gold_label`` ClassLabel, whichever way ``datasets`` nests sequences."""
    node: Any = features["sentences"]
    node = getattr(node, "feature", node)  # Sequence({...}) in older datasets
    node = node["gold_label"]
    node = getattr(node, "feature", node)  # List(ClassLabel) in datasets >= 4
    return list(node.names)


def read_hub(hub_id: str, hf_split: str = "validation") -> pd.DataFrame:
    """Load from the Hugging Face hub with ``datasets`` (needs network the first time)."""
    try:
        import datasets
    except ImportError as exc:  # pragma: no cover - datasets is a curation dependency
        raise BiasforgeError("reading from the hub needs the 'datasets' package") from exc
    rows: list[dict[str, Any]] = []
    for split in SPLITS:
        try:
            ds = datasets.load_dataset(hub_id, split, split=hf_split)
        except Exception as exc:
            raise BiasforgeError(
                f"could not load {hub_id!r} (config {split}, split {hf_split}) from the hub: {exc}"
            ) from exc
        gold_names = gold_label_names(ds.features)
        rows += from_hf_rows(ds, split, gold_names, f"hf://{hub_id}")
    _check_unique(Path(f"hf://{hub_id}"), rows)
    return pd.DataFrame(rows, columns=COLUMNS)


def _check_unique(path: Path, rows: list[dict[str, Any]]) -> None:
    seen: set[str] = set()
    for row in rows:
        if row["source_id"] in seen:
            raise InputError(path, "id is used by two items", record=row["source_id"])
        seen.add(row["source_id"])


def load_source(
    source: str | Path, *, hf_split: str = "validation", encoding: str = DEFAULT
) -> tuple[pd.DataFrame, str]:
    """Load a file (``.json`` official layout, ``.jsonl`` flattened) or a hub id.

    ``encoding`` is that of a user's file (the bundled sample is UTF-8). Returns the items
    and a short description of the source kind.
    """
    path = Path(source)
    if path.is_file():
        encoding = encoding_for(path, BUNDLED_SAMPLE, encoding)
        if path.suffix == ".jsonl":
            return read_jsonl(path, encoding), "jsonl"
        with path.open(encoding=check_encoding(encoding), errors="replace") as handle:
            head = handle.read(4096).lstrip()
        if (head.startswith("{") and '"data"' in head[:4096]) or path.suffix == ".json":
            return read_official_json(path, encoding), "official-json"
        return read_jsonl(path, encoding), "jsonl"
    if path.exists():
        raise InputError(path, "not a file")
    text = str(source)
    if text.count("/") == 1 and not text.startswith((".", "/")) and not path.suffix:
        return read_hub(text, hf_split), "hub"
    raise InputError(path, "file not found (and not a Hugging Face hub id like owner/name)")
