"""Tiny random-weight models of each kind, built offline (once per test run: the fixtures
``tiny_models`` and ``bos_model`` in tests/conftest.py).

Tokenizers are made here too: a WordPiece vocabulary for BERT (``BertTokenizer(vocab=...)``;
``vocab_file=`` is ignored by transformers 5) and a byte-level BPE trained on a few sentences
for GPT-2 and BART, so the tests exercise real space-prefix tokenisation.
"""

from __future__ import annotations

import string
from pathlib import Path

WORDS = [
    "the",
    "a",
    "an",
    "is",
    "was",
    "were",
    "are",
    "he",
    "she",
    "his",
    "her",
    "they",
    "man",
    "woman",
    "men",
    "women",
    "chess",
    "player",
    "asian",
    "hispanic",
    "fox",
    "nurse",
    "doctor",
    "engineer",
    "kind",
    "cruel",
    "strong",
    "weak",
    "cat",
    "dog",
    "people",
    "live",
    "in",
    "country",
    "many",
    "my",
    "professor",
    "good",
    "bad",
    "smart",
    "lazy",
    "girl",
    "boy",
    "mother",
    "father",
    "son",
    "daughter",
    ".",
    ",",
    "!",
    "?",
]
CORPUS = [
    "The chess player was asian.",
    "The chess player was hispanic.",
    "The nurse was kind and the doctor was strong.",
    "Many people live in the country.",
    "My professor is a smart man. He is good.",
    "The girl and the boy were lazy.",
] * 5


def _bert_tokenizer(tmp):
    from transformers import BertTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab += sorted(set(WORDS) - {"hispanic", "engineer", "daughter"})
    vocab += list(string.ascii_lowercase) + [f"##{c}" for c in string.ascii_lowercase]
    vocab += ["##ic", "##er", "##ter", "##anic", "##gine"]
    path = tmp / "vocab.txt"
    path.write_text("\n".join(dict.fromkeys(vocab)) + "\n")
    return BertTokenizer(vocab=str(path))


def _bpe_tokenizer(specials: dict[str, str]):
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        CORPUS, vocab_size=400, special_tokens=list(dict.fromkeys(specials.values()))
    )
    return PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, **specials)


def tiny_bert(model_class, tokenizer, path: Path, seed: int, **config) -> str:
    """A 2-layer, 32-wide BERT of ``model_class`` with random weights (``seed``), saved with
    ``tokenizer`` at ``path`` like a hub checkpoint; ``config`` adds or changes settings."""
    import torch
    from transformers import BertConfig

    torch.manual_seed(seed)
    shape = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    model = model_class(BertConfig(vocab_size=len(tokenizer), **shape, **config))
    return str(_saved(model, tokenizer, path))


def build_tiny_models(root: Path) -> dict[str, str]:
    """A tiny BERT (MLM + NSP head), GPT-2 and BART saved like hub checkpoints under ``root``;
    their paths by kind (``masked``, ``causal``, ``seq2seq``)."""
    from transformers import (
        BartConfig,
        BartForConditionalGeneration,
        BertForPreTraining,
        GPT2Config,
        GPT2LMHeadModel,
    )

    paths = {}
    paths["masked"] = root / "tiny-bert"
    tiny_bert(BertForPreTraining, _bert_tokenizer(root), paths["masked"], seed=0,
              max_position_embeddings=128)  # fmt: skip

    gpt_tok = _bpe_tokenizer({"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>"})
    gpt = GPT2LMHeadModel(
        GPT2Config(
            vocab_size=len(gpt_tok), n_embd=32, n_layer=2, n_head=2, n_positions=128,
            bos_token_id=gpt_tok.bos_token_id, eos_token_id=gpt_tok.eos_token_id,
        )
    )  # fmt: skip
    paths["causal"] = _saved(gpt, gpt_tok, root / "tiny-gpt2")

    bart_tok = _bpe_tokenizer(dict(bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                   mask_token="<mask>", unk_token="<unk>"))  # fmt: skip
    layers = dict(encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                  decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64)  # fmt: skip
    bart = BartForConditionalGeneration(
        BartConfig(
            vocab_size=len(bart_tok), d_model=32, **layers, max_position_embeddings=128,
            pad_token_id=bart_tok.pad_token_id, bos_token_id=bart_tok.bos_token_id,
            eos_token_id=bart_tok.eos_token_id, decoder_start_token_id=bart_tok.eos_token_id,
            forced_eos_token_id=None,
        )
    )  # fmt: skip
    paths["seq2seq"] = _saved(bart, bart_tok, root / "tiny-bart")
    return {k: str(v) for k, v in paths.items()}


def _saved(model, tokenizer, path: Path) -> Path:
    """``model`` and ``tokenizer`` saved at ``path`` like a hub checkpoint."""
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _bos_tokenizer():
    """A byte-level BPE whose post-processor starts every text with <bos>."""
    from tokenizers import ByteLevelBPETokenizer
    from tokenizers.processors import TemplateProcessing
    from transformers import PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(CORPUS, vocab_size=400, special_tokens=["<bos>", "<eos>"])
    inner = bpe._tokenizer
    bos = inner.token_to_id("<bos>")
    inner.post_processor = TemplateProcessing(
        single="<bos> $A", pair="<bos> $A $B", special_tokens=[("<bos>", bos)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=inner, bos_token="<bos>", eos_token="<eos>", pad_token="<eos>"
    )


def build_bos_model(root: Path) -> str:
    """A tiny GPT-2-shaped model whose tokenizer starts every text with BOS (as Gemma's and
    Llama's do), saved under ``root``; its path."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    tok = _bos_tokenizer()
    assert tok("a")["input_ids"][0] == tok.bos_token_id
    torch.manual_seed(3)
    model = GPT2LMHeadModel(
        GPT2Config(
            vocab_size=len(tok), n_embd=32, n_layer=2, n_head=2, n_positions=512,
            bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
        )
    )  # fmt: skip
    return str(_saved(model, tok, root / "tiny-bos-gpt2"))
