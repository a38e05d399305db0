"""One model interface, three adapters over ``transformers`` (masked, causal, encoder-decoder).

Like lm-evaluation-harness, the metrics never touch a model directly: they send *requests*
and get log-probabilities back, and each adapter answers the requests its architecture can:

- ``masked_logprobs([(text, targets)])`` — masked LMs: ``text`` holds one mask token per
  entry of ``targets``; returns log P(target_k) at the k-th mask (``None`` targets mark masks
  that are present but not read, e.g. the masked profession of a BEC-Pro prior).
- ``continuation_logprobs([(context, continuation)])`` — causal LMs: per-token log-probs of
  the continuation given the context (after BOS for tokenizers that add one, e.g. Gemma; as the
  official StereoSet code for GPT-2-style ones, see ``CausalLM.continuation_logprobs``);
  encoder-decoders: per-token log-probs of the target (decoder side) given the source.
- ``pooled([(first, second)])`` — the sentence-pair representation an NSP head reads (the
  first token for encoders, the mean of the last hidden states for decoders/encoder-decoders,
  as in the French paper's footnote 7); ``native_nsp`` uses a pre-trained NSP head if the
  checkpoint has one.

Speed: identical inputs are computed once, batches are sorted by length with dynamic padding
under a token budget, everything runs under ``torch.inference_mode``, and the vocabulary
projection is applied only where a probability is read (it is checked once against the
model's own full forward and abandoned if the two disagree); for causal models each distinct
prefix goes through the projection once (StereoSet's three sentences share their start).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from biasforge.errors import BiasforgeError

KINDS = ("masked", "causal", "seq2seq")


@dataclass
class ModelOptions:
    """How to load and run a model."""

    kind: str = "auto"
    device: str = "cpu"
    dtype: str = "float32"
    batch_tokens: int = 4096
    max_batch: int = 256
    progress: bool = True


def length_batches(
    lengths: Sequence[int], batch_tokens: int, max_batch: int
) -> Iterator[list[int]]:
    """Indices grouped into batches, longest first, each padded size within ``batch_tokens``."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batch: list[int] = []
    for index in order:
        width = lengths[batch[0]] if batch else lengths[index]
        if batch and ((len(batch) + 1) * width > batch_tokens or len(batch) >= max_batch):
            yield batch
            batch = []
        batch.append(index)
    if batch:
        yield batch


def _progress(iterable, total: int, desc: str, enabled: bool):
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit="batch", leave=False)


def _pad(rows: Sequence[Sequence[int]], pad_id: int):
    import torch

    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(list(row), dtype=torch.long)
        mask[i, : len(row)] = 1
    return ids, mask


class LanguageModel:
    """Common part of the adapters: tokenizer, device, dtype, batching, the cheap head."""

    kind = ""

    def __init__(self, name: str, model: Any, tokenizer: Any, options: ModelOptions) -> None:
        import torch

        self.name = name
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.options = options
        self.device = torch.device(options.device)
        self.max_length = int(
            min(getattr(tokenizer, "model_max_length", 512) or 512, _max_positions(model.config))
        )
        self._head_ok: bool | None = None
        self._nsp_model = None
        self.path = ""

    # -- helpers -------------------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without special tokens."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    @property
    def pad_id(self) -> int:
        tok = self.tokenizer
        for candidate in (tok.pad_token_id, tok.eos_token_id, 0):
            if candidate is not None:
                return int(candidate)
        return 0

    def _base(self):
        return self.model.base_model

    def _head(self) -> Callable | None:
        return None

    def _logprobs_at(self, ids, mask, rows, cols, extra: dict | None = None, targets=None):
        """Log-softmax (float32) at (rows, cols), via the cheap head when it is verified.

        With ``targets`` (one token id per position) only those log-probabilities are returned,
        so a 262k-token vocabulary never materialises for more than a chunk of positions.
        """
        import torch

        extra = extra or {}
        head = self._head()
        if head is not None and self._head_ok is not False:
            hidden = self._base()(input_ids=ids, attention_mask=mask, **extra)[0]
            picked = hidden[rows, cols]
            if self._head_ok is None:
                full = self.model(input_ids=ids[:1], attention_mask=mask[:1], **_first(extra))
                first = rows == 0
                reference = full.logits[0, cols[first]].float()
                try:
                    mine = head(picked[first]).float()
                    self._head_ok = bool(
                        mine.shape == reference.shape
                        and torch.allclose(mine, reference, atol=1e-3, rtol=1e-3)
                    )
                except Exception:
                    self._head_ok = False
            if self._head_ok:
                chunks = []
                for i in range(0, picked.shape[0], 256):
                    logp = torch.log_softmax(head(picked[i : i + 256]).float(), dim=-1)
                    if targets is not None:
                        logp = logp.gather(1, targets[i : i + 256, None])[:, 0]
                    chunks.append(logp)
                return torch.cat(chunks) if chunks else picked.new_zeros((0,)).float()
        logits = self.model(input_ids=ids, attention_mask=mask, **extra).logits
        logp = torch.log_softmax(logits[rows, cols].float(), dim=-1)
        return logp if targets is None else logp.gather(1, targets[:, None])[:, 0]

    # -- requests (overridden where the architecture supports them) ---------------------------
    def masked_logprobs(self, requests: Sequence[tuple[str, Sequence[int]]]) -> list[list[float]]:
        raise BiasforgeError(f"{self.name} is a {self.kind} model: it has no mask token to fill")

    def continuation_logprobs(self, requests: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        raise BiasforgeError(f"{self.name} is a {self.kind} model: it does not score continuations")

    def pooled(self, pairs: Sequence[tuple[str, str]]):
        raise NotImplementedError

    def native_nsp(self, pairs: Sequence[tuple[str, str]]) -> list[float] | None:
        """P(second follows first) from a pre-trained NSP head, or None if there is none."""
        return None


def _first(extra: dict) -> dict:
    return {k: v[:1] for k, v in extra.items()}


def _max_positions(config) -> int:
    for attr in ("max_position_embeddings", "n_positions", "max_seq_len"):
        value = getattr(config, attr, None)
        if isinstance(value, int) and value > 0:
            return value
    text = getattr(config, "text_config", None)
    return _max_positions(text) if text is not None else 1 << 16


class MaskedLM(LanguageModel):
    """BERT-style models: probabilities at mask tokens; NSP head when the checkpoint has one."""

    kind = "masked"

    def _head(self):
        base = self.model.base_model
        others = [m for _, m in self.model.named_children() if m is not base]
        return others[0] if len(others) == 1 else None

    def masked_logprobs(self, requests):
        import torch

        tok = self.tokenizer
        if tok.mask_token_id is None:
            raise BiasforgeError(f"{self.name}: tokenizer has no mask token")
        mask_id = int(tok.mask_token_id)
        unique: dict[str, int] = {}
        needs: list[dict[int, set[int]]] = []
        wanted: dict[int, int] = {}
        for text, targets in requests:
            u = unique.setdefault(text, len(unique))
            if u == len(needs):
                needs.append({})
            for k, t in enumerate(targets):
                if t is not None:
                    needs[u].setdefault(k, set()).add(int(t))
            wanted[u] = max(wanted.get(u, 0), len(targets))
        texts = list(unique)
        encoded = tok(texts, add_special_tokens=True, truncation=True, max_length=self.max_length)
        ids_list = encoded["input_ids"]
        types_list = encoded.get("token_type_ids")
        positions = []
        for u, ids in enumerate(ids_list):
            pos = [i for i, x in enumerate(ids) if x == mask_id]
            want = wanted[u]
            if len(pos) < want:
                raise BiasforgeError(
                    f"{self.name}: expected {want} mask token(s) in {texts[u]!r}, found {len(pos)}"
                    " (text truncated or mask split by the tokenizer)"
                )
            positions.append(pos)
        values: dict[tuple[int, int, int], float] = {}
        lengths = [len(x) for x in ids_list]
        batches = list(length_batches(lengths, self.options.batch_tokens, self.options.max_batch))
        with torch.inference_mode():
            for batch in _progress(
                batches, len(batches), f"{self.name} masks", self.options.progress
            ):
                ids, att = _pad([ids_list[u] for u in batch], self.pad_id)
                extra = {}
                if types_list is not None:
                    extra["token_type_ids"], _ = _pad([types_list[u] for u in batch], 0)
                rows, cols, keys = [], [], []
                for r, u in enumerate(batch):
                    for k in needs[u]:
                        rows.append(r)
                        cols.append(positions[u][k])
                        keys.append((u, k))
                ids, att = ids.to(self.device), att.to(self.device)
                extra = {k: v.to(self.device) for k, v in extra.items()}
                rows_t = torch.tensor(rows, device=self.device)
                cols_t = torch.tensor(cols, device=self.device)
                logp = self._logprobs_at(ids, att, rows_t, cols_t, extra).cpu()
                for j, (u, k) in enumerate(keys):
                    for t in needs[u][k]:
                        values[(u, k, t)] = float(logp[j, t])
        out = []
        for text, targets in requests:
            u = unique[text]
            out.append(
                [None if t is None else values[(u, k, int(t))] for k, t in enumerate(targets)]
            )
        return out

    def pooled(self, pairs):
        import torch

        enc = self.tokenizer(
            [a for a, _ in pairs],
            [b for _, b in pairs],
            truncation=True,
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        ).to(self.device)
        with torch.inference_mode():
            hidden = self.model.base_model(**enc)[0]
        return hidden[:, 0].float().cpu()

    def native_nsp(self, pairs):
        import torch

        architectures = getattr(self.model.config, "architectures", None) or []
        if not any(
            a.endswith(("ForPreTraining", "ForNextSentencePrediction")) for a in architectures
        ):
            return None
        if self._nsp_model is None:
            from transformers import AutoModelForNextSentencePrediction

            try:
                self._nsp_model = (
                    AutoModelForNextSentencePrediction.from_pretrained(
                        self.path, dtype=_torch_dtype(self.options.dtype)
                    )
                    .to(self.device)
                    .eval()
                )
            except (ValueError, OSError):
                return None
        scores = [0.0] * len(pairs)
        encoded = [
            self.tokenizer(a, b, truncation=True, max_length=self.max_length) for a, b in pairs
        ]
        lengths = [len(e["input_ids"]) for e in encoded]
        batches = list(length_batches(lengths, self.options.batch_tokens, self.options.max_batch))
        with torch.inference_mode():
            for batch in _progress(
                batches, len(batches), f"{self.name} NSP", self.options.progress
            ):
                ids, att = _pad([encoded[i]["input_ids"] for i in batch], self.pad_id)
                types, _ = _pad([encoded[i].get("token_type_ids", [0]) for i in batch], 0)
                types = types[:, : ids.shape[1]]
                logits = self._nsp_model(
                    input_ids=ids.to(self.device),
                    attention_mask=att.to(self.device),
                    token_type_ids=types.to(self.device),
                ).logits
                probs = torch.softmax(logits.float(), dim=-1)[:, 0].cpu()
                for j, i in enumerate(batch):
                    scores[i] = float(probs[j])
        return scores


class CausalLM(LanguageModel):
    """Decoder-only models: token log-probs of a continuation from the start token."""

    kind = "causal"

    def _head(self):
        head = self.model.get_output_embeddings()
        if head is None:
            return None
        cap = getattr(self.model.config, "final_logit_softcapping", None)
        if cap:
            import torch

            return lambda h: torch.tanh(head(h) / cap) * cap
        return head

    @property
    def start_id(self) -> int:
        tok = self.tokenizer
        for candidate in (tok.bos_token_id, tok.eos_token_id):
            if candidate is not None:
                return int(candidate)
        raise BiasforgeError(
            f"{self.name}: tokenizer has neither a BOS nor an EOS token to start from"
        )

    @property
    def adds_bos(self) -> bool:
        """Whether the tokenizer itself starts every text with BOS (Gemma, Llama) or not (GPT-2)."""
        if not hasattr(self, "_adds_bos"):
            bos = self.tokenizer.bos_token_id
            ids = self.tokenizer("a")["input_ids"]
            self._adds_bos = bos is not None and len(ids) > 0 and ids[0] == bos
        return self._adds_bos

    def _start_logprobs(self):
        """log P(first token | start token), computed once (the official ``initial_token_probabilities``)."""
        import torch

        if getattr(self, "_start_lp", None) is None:
            with torch.inference_mode():
                ids = torch.tensor([[self.start_id]], device=self.device)
                logits = self.model(input_ids=ids).logits[0, -1].float()
                self._start_lp = torch.log_softmax(logits, dim=-1).cpu()
        return self._start_lp

    def continuation_logprobs(self, requests):
        """Per-token log-probs of each continuation given its context.

        Models whose tokenizer adds BOS (Gemma, Llama) read ``BOS + context + continuation``.
        GPT-2-style models read ``context + continuation`` as the official StereoSet code does;
        with an empty context the first token's probability is P(token | start token) from one
        separate forward of the start token, exactly as ``eval_generative_models.py``.
        """
        import torch

        cache: dict[str, list[int]] = {}

        def enc(text: str) -> list[int]:
            if text not in cache:
                cache[text] = self.encode(text) if text else []
            return cache[text]

        plans = []  # (sequence, number of continuation tokens read from it, first-from-start)
        for context, continuation in requests:
            cont = enc(continuation)
            if not cont:
                plans.append(((), 0, False))
                continue
            if self.adds_bos:
                seq, from_start = [self.start_id, *enc(context), *cont], False
            else:
                seq = [*enc(context), *cont]
                from_start = not enc(context)
            seq = seq[-self.max_length :]
            n = min(len(cont) - from_start, len(seq) - 1)
            plans.append((tuple(seq), n, from_start))
        unique: dict[tuple, int] = {}
        needed: list[int] = []  # per unique sequence: how many final positions are read
        for seq, n, _ in plans:
            if n > 0:
                u = unique.setdefault(seq, len(unique))
                if u == len(needed):
                    needed.append(0)
                needed[u] = max(needed[u], n)
        urows = list(unique)
        # log P(token p | tokens < p) depends only on the prefix up to p: identical prefixes
        # (the shared start of StereoSet's three sentences) go through the vocabulary head once
        memo: dict[tuple, float] = {}
        pending: set[tuple] = set()
        results: dict[int, np.ndarray] = {}
        lengths = [len(r) for r in urows]
        batches = list(length_batches(lengths, self.options.batch_tokens, self.options.max_batch))
        with torch.inference_mode():
            for batch in _progress(
                batches, len(batches), f"{self.name} tokens", self.options.progress
            ):
                ids, att = _pad([urows[u] for u in batch], self.pad_id)
                rows, cols, targets, keys = [], [], [], []
                for r, u in enumerate(batch):
                    row = urows[u]
                    for p in range(len(row) - needed[u], len(row)):
                        key = row[: p + 1]
                        if key in memo or key in pending:
                            continue
                        pending.add(key)
                        rows.append(r)
                        cols.append(p - 1)
                        targets.append(row[p])
                        keys.append(key)
                if keys:
                    ids, att = ids.to(self.device), att.to(self.device)
                    picked = self._logprobs_at(
                        ids,
                        att,
                        torch.tensor(rows, device=self.device),
                        torch.tensor(cols, device=self.device),
                        targets=torch.tensor(targets, device=self.device),
                    )
                    memo.update(zip(keys, picked.cpu().double().tolist(), strict=True))
                pending.clear()
                for u in batch:
                    row = urows[u]
                    results[u] = np.array(
                        [memo[row[: p + 1]] for p in range(len(row) - needed[u], len(row))]
                    )
                if len(memo) > 2_000_000:  # bound memory on very large datasets
                    memo.clear()
        out = []
        for seq, n, from_start in plans:
            values = results[unique[seq]][needed[unique[seq]] - n :] if n > 0 else np.zeros(0)
            if from_start:
                first = float(self._start_logprobs()[seq[0]])
                values = np.concatenate([[first], values])
            out.append(values)
        return out

    def pooled(self, pairs):
        import torch

        texts = [f"{a} {b}" for a, b in pairs]
        prefix = [self.start_id] if self.adds_bos else []
        rows = [[*prefix, *self.encode(t)][: self.max_length] for t in texts]
        ids, att = _pad(rows, self.pad_id)
        with torch.inference_mode():
            hidden = self.model.base_model(
                input_ids=ids.to(self.device), attention_mask=att.to(self.device)
            )[0].float()
        att = att.to(hidden.device).unsqueeze(-1).float()
        return ((hidden * att).sum(1) / att.sum(1)).cpu()


class Seq2SeqLM(LanguageModel):
    """Encoder-decoder models: log-probs of the decoder target given the encoder source."""

    kind = "seq2seq"

    def continuation_logprobs(self, requests):
        import torch

        tok = self.tokenizer
        sources = [
            tok(s, truncation=True, max_length=self.max_length)["input_ids"] for s, _ in requests
        ]
        targets = [
            tok(text_target=t, truncation=True, max_length=self.max_length)["input_ids"]
            for _, t in requests
        ]
        start = self.model.config.decoder_start_token_id
        if start is None:
            start = self.pad_id
        out: list[np.ndarray] = [np.zeros(0)] * len(requests)
        lengths = [len(s) + len(t) for s, t in zip(sources, targets, strict=True)]
        batches = list(length_batches(lengths, self.options.batch_tokens, self.options.max_batch))
        with torch.inference_mode():
            for batch in _progress(
                batches, len(batches), f"{self.name} targets", self.options.progress
            ):
                src, src_att = _pad([sources[i] for i in batch], self.pad_id)
                dec, dec_att = _pad([[start, *targets[i][:-1]] for i in batch], self.pad_id)
                logits = self.model(
                    input_ids=src.to(self.device),
                    attention_mask=src_att.to(self.device),
                    decoder_input_ids=dec.to(self.device),
                    decoder_attention_mask=dec_att.to(self.device),
                ).logits
                logp = torch.log_softmax(logits.float(), dim=-1).cpu()
                for r, i in enumerate(batch):
                    tgt = torch.tensor(targets[i])
                    out[i] = logp[r, torch.arange(len(tgt)), tgt].numpy().astype(np.float64)
        return out

    def pooled(self, pairs):
        import torch

        enc = self.tokenizer(
            [f"{a} {b}" for a, b in pairs],
            truncation=True,
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        ).to(self.device)
        with torch.inference_mode():
            hidden = self.model.get_encoder()(
                input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]
            )[0].float()
        att = enc["attention_mask"].unsqueeze(-1).float()
        return ((hidden * att).sum(1) / att.sum(1)).cpu()


def _torch_dtype(name: str):
    import torch

    table = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if name not in table:
        raise BiasforgeError(f"unknown dtype {name!r}; choose one of {', '.join(table)}")
    return table[name]


def detect_kind(config) -> str:
    """Masked, causal or seq2seq, from the checkpoint's declared architecture."""
    if getattr(config, "is_encoder_decoder", False):
        return "seq2seq"
    architectures = getattr(config, "architectures", None) or []
    for arch in architectures:
        if arch.endswith(("ForMaskedLM", "ForPreTraining", "ForNextSentencePrediction")):
            return "masked"
        if arch.endswith(("ForCausalLM", "LMHeadModel", "ForConditionalGeneration")):
            return "causal"
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES

    return "masked" if config.model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES else "causal"


def model_name(spec: str) -> str:
    """Short display name: the folder name of a path, the hub id otherwise."""
    path = Path(spec)
    return path.name if path.exists() else spec


def load_model(spec: str, options: ModelOptions | None = None) -> LanguageModel:
    """Load a hub id or local path (or the ``gemma3-270m`` alias) as the right adapter."""
    from transformers import (
        AutoConfig,
        AutoModelForCausalLM,
        AutoModelForMaskedLM,
        AutoModelForSeq2SeqLM,
        AutoTokenizer,
    )

    from scoring import gemma

    options = options or ModelOptions()
    name = model_name(spec)
    path = gemma.resolve(spec)
    try:
        config = AutoConfig.from_pretrained(path)
        tokenizer = AutoTokenizer.from_pretrained(path)
    except (OSError, ValueError) as exc:
        raise BiasforgeError(f"cannot load model {spec!r}: {exc}") from exc
    kind = detect_kind(config) if options.kind == "auto" else options.kind
    if kind not in KINDS:
        raise BiasforgeError(f"unknown model kind {kind!r}; choose one of {', '.join(KINDS)}")
    auto = {
        "masked": AutoModelForMaskedLM,
        "causal": AutoModelForCausalLM,
        "seq2seq": AutoModelForSeq2SeqLM,
    }[kind]
    try:
        model = auto.from_pretrained(path, dtype=_torch_dtype(options.dtype))
    except (OSError, ValueError) as exc:
        raise BiasforgeError(f"cannot load {spec!r} as a {kind} model: {exc}") from exc
    model.to(options.device)
    adapter = {"masked": MaskedLM, "causal": CausalLM, "seq2seq": Seq2SeqLM}[kind]
    lm = adapter(name, model, tokenizer, options)
    lm.path = path
    return lm
