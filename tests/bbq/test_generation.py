"""``score bbq --answer-by generation``: the model's own greedy answer, matched to an option as the
authors matched UnifiedQA's answers (``choice_from_text``, checked against their R script in
``test_scores.py``). Checked here: the answer is what transformers' own greedy ``generate``
writes after the prompt (its first line), for a tiny causal and a tiny encoder-decoder model;
the option is the one that answer names; a masked model is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from biasforge.curation.bbq.pipeline import Options, curate
from biasforge.families.bbq import SCHEMA
from biasforge.scoring.tasks.bbq import choice_from_text, prompt
from tests.cli_runner import run_cli
from tests.helpers import score, write_release

TOKENS = 6


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("bbq-generation")
    curate(Options(categories=("Religion",)), root / "run", schema=SCHEMA)
    items = pd.read_parquet(root / "run" / "candidates.parquet")
    items = items.groupby(["context_condition", "question_polarity"]).head(2)
    items = items.assign(context=lambda t: t.context.str.slice(0, 60))
    return str(write_release(items, root / "rel", "bbq-said", "1.0.0"))


def _greedy(path: str, text: str, decoder_only: bool) -> str:
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    kind = AutoModelForCausalLM if decoder_only else AutoModelForSeq2SeqLM
    model = kind.from_pretrained(path).eval()
    ids = torch.tensor([tokenizer(text)["input_ids"]])
    out = model.generate(input_ids=ids, max_new_tokens=TOKENS, do_sample=False,
                         attention_mask=torch.ones_like(ids), pad_token_id=0)  # fmt: skip
    new = out[0, ids.shape[1] :] if decoder_only else out[0]
    return tokenizer.decode(new.tolist(), skip_special_tokens=True).strip().split("\n")[0].strip()


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_the_answer_is_the_models_greedy_text_and_the_option_it_names(
    tmp_path, tiny_models, release, kind
) -> None:
    out = tmp_path / "scores"
    score("bbq", "-d", release, "-m", tiny_models[kind], "-o", str(out),
          "--answer-by", "generation", "--max-new-tokens", str(TOKENS))  # fmt: skip
    answers = pd.read_csv(out / "answers.csv", dtype={"id": str}, keep_default_na=False)
    items = _items(release)
    assert len(answers) == len(items) == 8
    for row, said in zip(items.itertuples(), answers.itertuples(), strict=True):
        text = prompt(row.context, row.question)
        assert said.said == _greedy(tiny_models[kind], text, kind == "causal")
        texts = [row.answer_info[k][0] for k in ("ans0", "ans1", "ans2")]
        named = choice_from_text(said.said, [row.ans0, row.ans1, row.ans2], texts)
        assert str(said.pred_label) == ("" if named is None else str(named))
    assert "greedy answer" in (out / "report.md").read_text()


def _items(release: str) -> pd.DataFrame:
    (path,) = Path(release).rglob("*.parquet")
    return pd.read_parquet(path)


def test_a_masked_model_cannot_answer_by_generation(tmp_path, tiny_models, release) -> None:
    result = run_cli("score", "bbq", "-d", release, "-m", tiny_models["masked"], "-o",
                     tmp_path / "s", "--answer-by", "generation", check=False)  # fmt: skip
    assert result.returncode == 2
    assert "cannot generate an answer after a prompt" in result.stderr
    assert not (tmp_path / "s").exists()


def test_two_models_are_compared_on_the_questions_both_answered(
    tmp_path, tiny_models, release
) -> None:
    """Accuracy differences equal those counted by hand from the two models' answers; the
    bias-score figure is drawn."""
    out = tmp_path / "scores"
    score("bbq", "-d", release, "-m", tiny_models["causal"], "-m", tiny_models["seq2seq"],
          "-o", str(out), "--bootstrap", "200")  # fmt: skip
    answers = pd.read_csv(out / "answers.csv", dtype={"id": str})
    compared = pd.read_csv(out / "comparisons.csv").set_index("figure")
    (a, b) = compared[["model_a", "model_b"]].iloc[0]
    for condition in ("ambig", "disambig"):
        by_hand = [
            answers[answers.model.eq(m) & answers.context_condition.eq(condition)].correct.mean()
            for m in (a, b)
        ]
        difference = compared.loc[f"Religion|{condition}|accuracy", "difference"]
        assert difference == pytest.approx(by_hand[0] - by_hand[1])
    assert (out / "bias_scores.png").stat().st_size > 0
    assert "Models compared" in (out / "report.md").read_text()
