"""Copied as ``utils.py`` into every lm-evaluation-harness task folder that ``biasforge export
convert --format lm-eval`` writes (lm-eval imports it; biasforge does not), beside the family's
own ``family.py`` (its documents and figures: ``biasforge.exports.lm_eval.<family>``). Neither
imports biasforge: the folder runs wherever lm-eval does.

lm-eval asks each document's choices with ``loglikelihood`` (an empty context: after the
model's start token, as its own ``crows_pairs`` tasks do; otherwise after the context) and
hands ``process_results`` one ``(sum of log-probabilities, is_greedy)`` per choice; the
family's functions turn those into its figures for lm-eval's printed table, and ``biasforge
score import-lm-eval`` recomputes every figure from the logged per-item values with
biasforge's own code (intervals, per-domain tables, reports).

A family that compares choices by their mean token log-probability (StereoSet's geometric
mean) sets ``COUNTS_TOKENS``: ``load_docs`` then counts each choice's tokens with the
tokenizer named in the task's metadata (``tokenizer``, else ``pretrained``, both filled by
lm-eval from ``--model_args``), exactly as lm-eval splits the continuation. Without a loadable
tokenizer the counts are 0, lm-eval's printed figures compare sums (which favour short
sentences), and the import refuses those results.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _family():
    """The family's ``family.py`` beside this file (lm-eval loads task files by path)."""
    spec = importlib.util.spec_from_file_location("biasforge_family", HERE / "family.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tokenizer(metadata: dict):
    name = metadata.get("tokenizer") or metadata.get("pretrained")
    if not name:
        return None
    try:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(name))
    except Exception:  # an API model without a local tokenizer: no counts (see above)
        return None


def _counter(tokenizer):
    """Continuation tokens as lm-eval's ``loglikelihood`` splits them (0 without a tokenizer)."""

    def count(context: str, continuation: str) -> int:
        if tokenizer is None:
            return 0
        if not context:
            return len(tokenizer.encode(continuation, add_special_tokens=False))
        whole = tokenizer.encode(context + continuation)
        return len(whole) - len(tokenizer.encode(context))

    return count


def load_docs(data_file: str, **metadata):
    """The release's rows (the parquet copied beside this file) as lm-eval documents."""
    import datasets
    import pyarrow.parquet as pq

    family = _family()
    rows = pq.read_table(HERE / data_file).to_pylist()
    tokenizer = _tokenizer(metadata) if getattr(family, "COUNTS_TOKENS", False) else None
    docs = [family.to_doc(row, _counter(tokenizer)) for row in rows]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})


def doc_to_choice(doc: dict) -> list[str]:
    return list(doc["choices"])


def count(items) -> float:
    """An aggregation: how many documents gave 1."""
    return float(sum(items))
