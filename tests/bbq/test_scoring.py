"""``score bbq`` on a masked model: each option's pseudo-log-likelihood after the prompt (each of
its tokens masked alone), the highest chosen; checked against the same computed by hand with
transformers on a tiny BERT. (Causal models: ``test_lm_eval.py``, against lm-eval itself.)"""

from __future__ import annotations

import pandas as pd

from biasforge.scoring.tasks.bbq import choices, prompt
from tests.cli_runner import run_cli
from tests.helpers import score, write_release


def _pseudo_loglikelihood(model, tokenizer, text: str, option: str) -> float:
    import torch

    whole = tokenizer(f"{text} {option}")["input_ids"]
    start = len(tokenizer(text)["input_ids"]) - 1
    total = 0.0
    for position in range(start, len(whole) - 1):
        masked = list(whole)
        masked[position] = tokenizer.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([masked])).logits[0, position]
        total += float(torch.log_softmax(logits.float(), -1)[whole[position]])
    return total


def test_a_masked_model_chooses_by_pseudo_loglikelihood(tmp_path, tiny_models) -> None:
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    run_cli("curate", "bbq", "--category", "Religion", "--out", tmp_path / "run")
    items = pd.read_parquet(tmp_path / "run" / "candidates.parquet")
    items = items.head(4).assign(context=lambda t: t.context.str.slice(0, 30))  # tiny BERT: 128
    release = write_release(items, tmp_path / "rel", "bbq-masked", "1.0.0")
    out = tmp_path / "scores"
    score("bbq", "-d", str(release), "-m", tiny_models["masked"], "-o", str(out))
    answers = pd.read_csv(out / "answers.csv", dtype={"id": str}).set_index("id")

    tokenizer = AutoTokenizer.from_pretrained(tiny_models["masked"])
    model = AutoModelForMaskedLM.from_pretrained(tiny_models["masked"]).eval()
    for row in items.itertuples():
        options, means = choices([row.ans0, row.ans1, row.ans2])
        text = prompt(row.context, row.question)
        plls = [_pseudo_loglikelihood(model, tokenizer, text, o) for o in options]
        best = max(range(len(plls)), key=plls.__getitem__)
        assert answers.loc[row.id, "choice"] == best
        assert answers.loc[row.id, "pred_label"] == means[best]
    assert "pseudo-log-likelihood" in (out / "report.md").read_text()
