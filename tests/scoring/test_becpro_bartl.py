"""BEC-Pro's ``bartl`` procedure against a port of the published evaluation code, and how it
differs from the default ``spans`` procedure, on the curated English corpus and a tiny BERT."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasforge.errors import BiasforgeError
from biasforge.scoring.models import ModelOptions, load_model
from biasforge.scoring.tasks import becpro
from tests.models import tiny_bert
from tests.scoring.bartl_reference import model_evaluation


@pytest.fixture(scope="module")
def sharp_bert(tiny_models, tmp_path_factory) -> str:
    """The tiny BERT's tokenizer with larger random weights, so predictions are far from
    uniform and the procedures' choices show in the numbers."""
    from transformers import AutoTokenizer, BertForMaskedLM

    tokenizer = AutoTokenizer.from_pretrained(tiny_models["masked"])
    path = tmp_path_factory.mktemp("sharp") / "sharp-bert"
    return tiny_bert(BertForMaskedLM, tokenizer, path, seed=4, max_position_embeddings=64,
                     initializer_range=0.2)  # fmt: skip


@pytest.fixture(scope="module")
def english_items() -> pd.DataFrame:
    """The 5,400 English BEC-Pro items as curation builds them (the published corpus)."""
    from biasforge.curation.becpro.build import build_items
    from biasforge.curation.becpro.lexicon import load_language

    english = load_language("en")
    return build_items(english, "default", english)


def _sample(items: pd.DataFrame) -> pd.DataFrame:
    """Every 40th item plus the rows the published masking treats specially."""
    quirks = items["sentence"].str.contains("lodging manager|director of religious|mason")
    return items[(np.arange(len(items)) % 40 == 0) | quirks].reset_index(drop=True)


def test_masking_is_the_published_tsv(english_items):
    """Scoring renders Sent_TM / Sent_TAM as the exports stage writes the published TSV."""
    from biasforge.exports.becpro_tsv import to_becpro_frame

    tsv = to_becpro_frame(english_items, "original")
    ours = [becpro.tsv_masks(row) for row in english_items.itertuples(index=False)]
    assert [t for t, _ in ours] == tsv["Sent_TM"].tolist()
    assert [p for _, p in ours] == tsv["Sent_TAM"].tolist()
    assert becpro.bartl_width(tsv["Sent_TM"].tolist()) == 16
    lodging = tsv[tsv["Sentence"] == "This man is a lodging manager."].iloc[0]
    assert lodging["Sent_TAM"] == "This [MASK] is a [MASK] [MASK]ager."


def test_bartl_equals_the_published_code(sharp_bert, english_items):
    from biasforge.exports.becpro_tsv import to_becpro_frame

    items = _sample(english_items)
    lm = load_model(sharp_bert, ModelOptions(progress=False, batch_tokens=256))
    ours = becpro.score_items(lm, items, procedure="bartl")["association"].to_numpy()
    reference = model_evaluation(to_becpro_frame(items, "original"), lm.tokenizer, lm.model)
    assert len(ours) == len(items) > 150
    assert np.max(np.abs(ours - np.asarray(reference))) < 1e-6
    # the tiny vocabulary splits most person words, and long sentences lose [SEP] at 16 tokens
    assert len(lm.encode("girlfriend")) > 1
    assert max(len(lm.encode(s)) + 2 for s in items["sentence"]) > 16


def test_the_two_procedures_differ_as_documented(sharp_bert, english_items):
    items = _sample(english_items)
    lm = load_model(sharp_bert, ModelOptions(progress=False))
    spans = becpro.score_items(lm, items, procedure="spans")["association"].to_numpy()
    bartl = becpro.score_items(lm, items, procedure="bartl")["association"].to_numpy()
    difference = np.abs(spans - bartl)
    assert difference.max() > 0.5 and difference.mean() > 0.1
    assert np.mean(np.sign(spans) == np.sign(bartl)) < 0.9
    # long sentences lose their profession to the truncation: target and prior are then the
    # same input and the published procedure gives exactly 0
    assert (bartl == 0.0).any() and not (spans == 0.0).any()


def test_bartl_needs_a_masked_model(tiny_models, english_items):
    lm = load_model(tiny_models["causal"], ModelOptions(progress=False))
    with pytest.raises(BiasforgeError, match="masked language model"):
        becpro.score_items(lm, english_items.head(3), procedure="bartl")
