"""``score bbq`` on a masked model (each option's pseudo-log-likelihood after the prompt, each of
its tokens masked alone) and on an encoder-decoder (the option as the decoder's target, the
prompt as the encoder's source, its token log-probabilities summed): the highest chosen, checked
against the same computed by hand with transformers on a tiny BERT and a tiny BART. (Causal
models: ``test_lm_eval.py``, against lm-eval itself.)"""

from __future__ import annotations

from functools import partial

import pandas as pd

from biasforge.curation.bbq.pipeline import Options, curate
from biasforge.families.bbq import SCHEMA
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
    _check_choices(answers, items, partial(_pseudo_loglikelihood, model, tokenizer))
    assert "pseudo-log-likelihood" in (out / "report.md").read_text()


def _check_choices(answers: pd.DataFrame, items: pd.DataFrame, likelihood) -> None:
    """Each item's choice is the option of highest ``likelihood(prompt, option)`` (the first of
    equal ones), and its answer the one that option means."""
    for row in items.itertuples():
        options, means = choices([row.ans0, row.ans1, row.ans2])
        text = prompt(row.context, row.question)
        scores = [likelihood(text, o) for o in options]
        best = max(range(len(scores)), key=scores.__getitem__)
        assert answers.loc[row.id, "choice"] == best
        assert answers.loc[row.id, "pred_label"] == means[best]
        assert answers.loc[row.id, "correct"] == (means[best] == row.label)


def _target_loglikelihood(model, tokenizer, source: str, target: str) -> float:
    import torch

    source_ids = tokenizer(source, return_tensors="pt")["input_ids"]
    target_ids = tokenizer(text_target=target)["input_ids"]
    start = model.config.decoder_start_token_id
    decoder = torch.tensor([[start, *target_ids[:-1]]])
    with torch.no_grad():
        logits = model(input_ids=source_ids, decoder_input_ids=decoder).logits[0]
    logprobs = torch.log_softmax(logits.float(), -1)
    return float(sum(logprobs[n, token] for n, token in enumerate(target_ids)))


def test_an_encoder_decoder_chooses_by_the_decoders_loglikelihood(tmp_path, tiny_models) -> None:
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    curate(Options(categories=("Religion",)), tmp_path / "run", schema=SCHEMA)
    items = pd.read_parquet(tmp_path / "run" / "candidates.parquet")
    # both context conditions and polarities, short enough for the tiny model's positions
    items = items.groupby(["context_condition", "question_polarity"]).head(2)
    items = items.assign(context=lambda t: t.context.str.slice(0, 60))
    release = write_release(items, tmp_path / "rel", "bbq-seq2seq", "1.0.0")
    out = tmp_path / "scores"
    score("bbq", "-d", str(release), "-m", tiny_models["seq2seq"], "-o", str(out))
    answers = pd.read_csv(out / "answers.csv", dtype={"id": str}).set_index("id")
    assert len(answers) == len(items) == 8

    tokenizer = AutoTokenizer.from_pretrained(tiny_models["seq2seq"])
    model = AutoModelForSeq2SeqLM.from_pretrained(tiny_models["seq2seq"]).eval()
    _check_choices(answers, items, partial(_target_loglikelihood, model, tokenizer))
