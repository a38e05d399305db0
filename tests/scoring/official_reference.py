"""The official StereoSet intrasentence procedure, one sentence per forward pass.

A direct port of ``IntrasentenceLoader`` + ``evaluate_intrasentence`` from the StereoSet
repository (``eval_discriminative_models.py``) and of ``evaluate_intrasentence`` from
``eval_generative_models.py``, with batch size 1, no padding and a softmax over every position,
as the official code does. It is slow on purpose: the benchmark and the tests compare the fast
path in ``biasforge.scoring.stereoset`` against it. A test oracle, so it lives with the tests and does not
ship in the package; it reads the ``transformers`` model and tokenizer directly, never the
adapters under test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasforge.scoring.data import as_list


def official_intrasentence_mlm(model, tokenizer, items: pd.DataFrame, max_seq_length: int = 128):
    """Sentence id -> mean P(sub-token) exactly as the official masked-LM evaluation."""
    import torch

    mask = tokenizer.mask_token
    mask_idx = tokenizer.mask_token_id
    probabilities: dict[str, list[float]] = {}
    model.eval()
    with torch.no_grad():
        for row in items.itertuples(index=False):
            for sentence in as_list(row.sentences):
                insertion_tokens = tokenizer.encode(sentence["attribute"], add_special_tokens=False)
                for idx in range(len(insertion_tokens)):
                    insertion = tokenizer.decode(insertion_tokens[:idx])
                    new_sentence = row.context.replace("BLANK", f"{insertion}{mask}")
                    encoded = tokenizer(
                        new_sentence,
                        add_special_tokens=True,
                        max_length=max_seq_length,
                        truncation=True,
                        return_token_type_ids=True,
                        return_attention_mask=True,
                    )
                    input_ids = torch.tensor([encoded["input_ids"]])
                    output = model(
                        input_ids,
                        attention_mask=torch.tensor([encoded["attention_mask"]]),
                        token_type_ids=torch.tensor([encoded["token_type_ids"]]),
                    )[0].softmax(dim=-1)
                    output = output[input_ids == mask_idx]
                    prob = output.index_select(1, torch.tensor([insertion_tokens[idx]])).diag()
                    for item in prob:
                        probabilities.setdefault(sentence["id"], []).append(item.item())
    return {sid: float(np.mean(v)) for sid, v in probabilities.items()}


def official_intrasentence_causal(model, tokenizer, items: pd.DataFrame):
    """Sentence id -> geometric mean of token probabilities, the first given the start token."""
    import torch

    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    scores = {}
    model.eval()
    with torch.no_grad():
        initial = torch.softmax(model(torch.tensor([[start]]))[0], dim=-1)
        for row in items.itertuples(index=False):
            for sentence in as_list(row.sentences):
                tokens = tokenizer.encode(sentence["sentence"], add_special_tokens=False)
                joint = [initial[0, 0, tokens[0]].item()]
                output = torch.softmax(model(torch.tensor([tokens]))[0], dim=-1)
                for idx in range(1, len(tokens)):
                    joint.append(output[0, idx - 1, tokens[idx]].item())
                score = np.sum([np.log2(p) for p in joint]) / len(joint)
                scores[sentence["id"]] = float(np.power(2, score))
    return scores


def official_template_word(context: str, sentence: str) -> str:
    """The official loader's attribute: the sentence's word at BLANK, punctuation stripped."""
    import string

    word_idx = None
    for idx, word in enumerate(context.split(" ")):
        if "BLANK" in word:
            word_idx = idx
    if word_idx is None:
        raise ValueError(f"no BLANK in {context!r}")
    return sentence.split(" ")[word_idx].translate(str.maketrans("", "", string.punctuation))


def flat_jsonl_items(path: str, split: str | None = None, limit: int | None = None) -> pd.DataFrame:
    """Contract-shaped StereoSet items from the flattened dev jsonl in shared/data.

    Ids are stable hashes of the line number and label; the attribute is the official
    template word for intrasentence items and the whole continuation for intersentence ones.
    """
    import json

    from biasforge.files import stable_id

    rows = []
    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            record = json.loads(line)
            if split and record["type"] != split:
                continue
            item_id = stable_id("stereoset", "en", str(line_no))
            sentences = []
            for label in ("stereotype", "anti-stereotype", "unrelated"):
                text = record[label]
                attribute = (
                    official_template_word(record["context"], text)
                    if record["type"] == "intrasentence"
                    else text
                )
                sentences.append(
                    {
                        "id": stable_id(item_id, label),
                        "label": label,
                        "sentence": text,
                        "attribute": attribute,
                    }
                )
            rows.append(
                {
                    "id": item_id,
                    "family": "stereoset",
                    "language": "en",
                    "split": record["type"],
                    "bias_type": record["bias_type"],
                    "target": record["target"],
                    "context": record["context"],
                    "sentences": sentences,
                }
            )
            if limit and len(rows) >= limit:
                break
    return pd.DataFrame(rows)
