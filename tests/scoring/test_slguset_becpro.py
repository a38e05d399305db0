"""SlguSet Bias_c and BEC-Pro associations: checked against direct forward passes on
hand-built token ids, hand-computed aggregates, and end to end through the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from biasforge.scoring.cli import app
from biasforge.scoring.models import ModelOptions, load_model
from biasforge.scoring.tasks import becpro, slguset
from tests.helpers import slguset_rows
from tests.scoring.conftest import ZH_SENTENCES


def slguset_items() -> pd.DataFrame:
    return pd.DataFrame(slguset_rows(ZH_SENTENCES))


def _direct_logp(lm, tokens: list[str], masks_read: dict[int, str]) -> float:
    """Sum of log P(token) at the given positions of a hand-built [CLS] … [SEP] sequence."""
    import torch

    ids = lm.tokenizer.convert_tokens_to_ids(["[CLS]", *tokens, "[SEP]"])
    with torch.no_grad():
        logits = lm.model(torch.tensor([ids])).logits[0]
    logp = torch.log_softmax(logits, dim=-1)
    return float(
        sum(
            logp[pos + 1, lm.tokenizer.convert_tokens_to_ids(tok)]
            for pos, tok in masks_read.items()
        )
    )


def test_bias_c_matches_direct_computation(zh_bert):
    lm = load_model(zh_bert, ModelOptions(progress=False))
    scored = slguset.score_items(lm, slguset_items())
    for row, (sentence, keyword, gender, counterpart) in zip(
        scored.itertuples(), ZH_SENTENCES, strict=True
    ):
        male, female = (keyword, counterpart) if gender == "male" else (counterpart, keyword)
        start = sentence.index(keyword)
        chars = list(sentence)
        masked = chars[:start] + ["[MASK]"] * len(keyword) + chars[start + len(keyword) :]
        lp_m = _direct_logp(lm, masked, {start + i: c for i, c in enumerate(male)})
        lp_f = _direct_logp(lm, masked, {start + i: c for i, c in enumerate(female)})
        assert row.bias == pytest.approx(lp_m - lp_f, abs=1e-5)
        assert row.pair == f"{male}/{female}"


def test_slguset_summary_by_hand():
    s = slguset.summary([0.5, -0.4, 0.1, -0.2, 0.0])
    assert s["sentences"] == 5 and s["mean_bias"] == pytest.approx(0.0)
    assert s["male_degree"] == pytest.approx(0.6 / 5) and s["female_degree"] == pytest.approx(
        -0.6 / 5
    )
    assert (s["clear_male"], s["clear_female"], s["not_clear"]) == (1, 1, 3)
    assert s["mean_abs_bias"] == pytest.approx(1.2 / 5)


def test_topic_words_use_jieba():
    words = slguset.topic_words(["孩子们在学校读书。", "孩子喜欢学校的老师。"], top_k=3)
    assert "孩子" in words["tfidf"] and words["textrank"]


def becpro_items(specs: list[tuple[str, str, str, str, str]] | None = None) -> pd.DataFrame:
    # (sentence, person word, gender, profession, group)
    specs = specs or [
        ("My son is a nurse.", "son", "male", "nurse", "female"),
        ("My mother is a nurse.", "mother", "female", "nurse", "female"),
        ("The man is a chess player.", "man", "male", "chess player", "balanced"),
        ("The woman is a chess player.", "woman", "female", "chess player", "balanced"),
        ("My daughter is an engineer.", "daughter", "female", "engineer", "male"),
        ("My father is an engineer.", "father", "male", "engineer", "male"),
    ]
    rows = []
    for n, (sentence, person, gender, profession, group) in enumerate(specs):
        p = sentence.index(person)
        q = sentence.index(profession)
        words, cursor = [], q
        for w in profession.split():
            s = sentence.index(w, cursor)
            words.append({"start": s, "end": s + len(w)})
            cursor = s + len(w)
        rows.append(
            {
                "id": f"b{n}",
                "family": "becpro",
                "language": "en",
                "sentence": sentence,
                "person": person,
                "person_span": {"start": p, "end": p + len(person)},
                "gender": gender,
                "profession": profession,
                "profession_span": {"start": q, "end": q + len(profession)},
                "profession_word_spans": words,
                "profession_group": group,
            }
        )
    return pd.DataFrame(rows)


def test_association_matches_direct_computation(tiny_models):
    lm = load_model(tiny_models["masked"], ModelOptions(progress=False))
    scored = becpro.score_items(lm, becpro_items()).set_index("id")
    # "The man is a chess player." -> target: the [MASK] is a chess player .
    target = _direct_logp(lm, ["the", "[MASK]", "is", "a", "chess", "player", "."], {1: "man"})
    prior = _direct_logp(lm, ["the", "[MASK]", "is", "a", "[MASK]", "[MASK]", "."], {1: "man"})
    assert scored.loc["b2", "association"] == pytest.approx(target - prior, abs=1e-5)
    # a profession split into sub-tokens gets one mask per sub-token in the prior
    pieces = lm.tokenizer.tokenize("engineer")
    assert len(pieces) > 1
    tokens = ["my", "father", "is", "an", *pieces, "."]
    tokens[1] = "[MASK]"
    target = _direct_logp(lm, tokens, {1: "father"})
    tokens[4 : 4 + len(pieces)] = ["[MASK]"] * len(pieces)
    prior = _direct_logp(lm, tokens, {1: "father"})
    assert scored.loc["b5", "association"] == pytest.approx(target - prior, abs=1e-5)


def test_association_table_by_hand():
    scored = pd.DataFrame(
        {
            "profession_group": ["female"] * 6,
            "gender": ["female"] * 4 + ["male"] * 2,
            "association": [1.0, 2.0, 3.0, 4.0, 0.0, 2.0],
        }
    )
    table = becpro.association_table(scored).set_index("gender")
    assert table.loc["female", "P(f)-P(m)"] == pytest.approx(2.5 - 1.0)
    assert table.loc["female", "std"] == pytest.approx(np.std([1, 2, 3, 4], ddof=1))
    assert (table.loc["female", "25%"], table.loc["female", "50%"], table.loc["female", "75%"]) == (
        1.75,
        2.5,
        3.25,
    )
    assert (table.loc["male", "min"], table.loc["male", "max"], table.loc["male", "mean"]) == (
        0.0,
        2.0,
        1.0,
    )


def test_becpro_refuses_causal_models(tiny_models):
    from biasforge.errors import BiasforgeError

    lm = load_model(tiny_models["causal"], ModelOptions(progress=False))
    with pytest.raises(BiasforgeError, match="masked language model"):
        becpro.score_items(lm, becpro_items())


def test_cli_slguset_and_becpro(tiny_models, zh_bert, tmp_path):
    runner = CliRunner()
    # a bare parquet file (a folder must be a run, reviewed folder or release with a manifest)
    zh = tmp_path / "slguset.parquet"
    slguset_items().to_parquet(zh, index=False)
    out = tmp_path / "zh-out"
    result = runner.invoke(
        app,
        [
            "slguset",
            "-d",
            str(zh),
            "-m",
            zh_bert,
            "-m",
            zh_bert,
            "-m",
            tiny_models["causal"],
            "-o",
            str(out),
            "--no-progress",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["model"]) == ["zh-bert", "zh-bert-2", "tiny-gpt2"]
    assert (summary["sentences"] == 4).all()
    rho = pd.read_csv(out / "bias_correlation.csv", index_col=0)
    assert rho.loc["zh-bert", "zh-bert-2"] == pytest.approx(1.0)  # same model twice
    topics = json.loads((out / "topics.json").read_text())
    assert set(topics["zh-bert"]) == {"male", "female"}
    report = (out / "report.md").read_text()
    assert "Table 3" in report and "bias_correlation.png" in report

    en = tmp_path / "becpro.parquet"
    becpro_items().to_parquet(en, index=False)
    out = tmp_path / "en-out"
    result = runner.invoke(
        app,
        ["becpro", "-d", str(en), "-m", tiny_models["masked"], "-o", str(out), "--no-progress"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out / "associations.csv")
    assert set(table["profession_group"]) == {"female", "balanced", "male"}
    assert (table["n"] == 1).all()
    assert "P(f) − P(m)" in (out / "report.md").read_text()
