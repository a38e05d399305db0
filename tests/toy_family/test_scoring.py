"""A fifth family is scored with no line outside its folder: the toy family's task (named in
``FAMILY.scoring_tasks``) is listed by ``biasforge score --help`` and scores a toy release with
a tiny local GPT-2 through ``biasforge score toy``."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from biasforge import families
from biasforge.cli import app
from tests.toy_family import FAMILY, Options, curate


@pytest.fixture
def toy_registered():
    families.register(FAMILY)
    yield FAMILY
    families.unregister(FAMILY.name)


def _plain_mean_logprob(path: str, text: str) -> float:
    """The mean token log-probability of ``text`` after the start token, by hand."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    tokens = tokenizer.encode(text, add_special_tokens=False)
    with torch.no_grad():
        logits = model(torch.tensor([[tokenizer.bos_token_id, *tokens]])).logits[0]
    logp = torch.log_softmax(logits.float(), dim=-1)
    return float(sum(logp[i, t] for i, t in enumerate(tokens)) / len(tokens))


def test_score_lists_and_runs_the_toy_task(toy_registered, tiny_models, tmp_path):
    from biasforge.exports.release import make_release

    runner = CliRunner()
    assert "toy" in runner.invoke(app, ["score", "--help"]).output
    run = curate(Options(), tmp_path / "run").path
    release = make_release(
        [run], name="toy", version="1.0.0", out=tmp_path / "rel", unreviewed=True
    ).path
    out = tmp_path / "scores"
    args = ["score", "toy", "-d", str(release), "-m", tiny_models["causal"], "-o", str(out)]
    result = runner.invoke(app, [*args, "--no-progress", "--digits", "4"])
    assert result.exit_code == 0, result.output
    scores = pd.read_csv(out / "scores.csv").set_index("id")
    assert sorted(scores.index) == ["t1", "t2", "t3", "t5"]
    sentences = pd.read_parquet(run / "candidates.parquet").set_index("id")["sentence"]
    for item, row in scores.iterrows():
        want = _plain_mean_logprob(tiny_models["causal"], sentences[item])
        assert abs(row["mean_logprob"] - want) < 1e-4
    assert "Toy requests" in (out / "report.md").read_text()


def test_without_the_toy_family_there_is_no_toy_command():
    result = CliRunner().invoke(app, ["score", "--help"])
    assert result.exit_code == 0 and "toy" not in result.output
