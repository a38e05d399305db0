"""The miner's tokens come from jieba-next (jieba in Rust, for speed); every rule and the name
model were built on jieba 0.42.1's tokens, so the two must agree token for token."""

from __future__ import annotations

import io
import json
import logging

import pytest

from biasforge.curation.slguset.sample import BUNDLED_SAMPLE


def jieba_reference(extra_words, freq):
    """jieba 0.42.1 itself, with the same extra words, as the name model was trained on: those
    its dictionary holds less often than ``freq``, added as a user dictionary (jieba's own way)."""
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    rare = [word for word in extra_words if tokenizer.FREQ.get(word, 0) < freq]
    tokenizer.load_userdict(io.BytesIO("".join(f"{word} {freq}\n" for word in rare).encode()))
    return tokenizer, jieba.posseg.POSTokenizer(tokenizer)


@pytest.fixture(scope="module")
def texts(peoples_daily):
    lines = peoples_daily.read_text(encoding="utf-8").splitlines()
    news = [json.loads(line)["text"] for line in lines]
    sample = [p for p in BUNDLED_SAMPLE.read_text(encoding="utf-8").splitlines() if p.strip()]
    return news + sample


@pytest.mark.parametrize("mode", ["fast", "posseg"])
def test_tokens_are_jiebas_own(resources, texts, mode):
    from biasforge.curation.slguset.names.tokens import EXTRA_WORD_FREQ

    ours = resources.tokenizer
    assert ours.extra_words  # the lexicon's non-gender words are in the dictionary
    tokenizer, tagger = jieba_reference(ours.extra_words, EXTRA_WORD_FREQ)
    tags = tagger.word_tag_tab
    for text in texts:
        if mode == "fast":
            expected = [(w, tags.get(w, "oov")) for w in tokenizer.cut(text, HMM=True)]
        else:
            expected = [(p.word, p.flag) for p in tagger.cut(text, HMM=True)]
        got = ours.tokens(text, mode)
        assert [(t.word, t.tag) for t in got] == expected, text
        assert [t.freq for t in got] == [tokenizer.FREQ.get(t.word, 0) for t in got]
    assert len(texts) > 2000
