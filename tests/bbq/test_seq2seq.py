"""``score bbq`` on an encoder-decoder model: each option is the decoder's target with the prompt
as the encoder's source, its token log-probabilities (teacher forcing) summed, the highest
chosen; checked against the same computed by hand with transformers on a tiny BART."""

from __future__ import annotations

import pandas as pd

from biasforge.curation.bbq.pipeline import Options, curate
from biasforge.families.bbq import SCHEMA
from biasforge.scoring.tasks.bbq import choices, prompt
from tests.helpers import score, write_release


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
    for row in items.itertuples():
        options, means = choices([row.ans0, row.ans1, row.ans2])
        text = prompt(row.context, row.question)
        lls = [_target_loglikelihood(model, tokenizer, text, o) for o in options]
        best = max(range(len(lls)), key=lls.__getitem__)
        assert answers.loc[row.id, "choice"] == best
        assert answers.loc[row.id, "pred_label"] == means[best]
        assert answers.loc[row.id, "correct"] == (means[best] == row.label)
