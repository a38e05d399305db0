"""No request is ever over DeepL's 128 KiB limit: long texts are cut at sentence ends and
joined back, an oversize ``context`` is trimmed to its last sentences, and a text with one
sentence over the limit is refused with the reason instead of being sent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from biasforge.contract.rundir import read_run
from biasforge.curation.translation.sizing import fit_context, join_pieces, json_bytes, split_text
from tests.conftest import run_cli
from tests.fake_deepl import REQUEST_LIMIT, fake_translate
from tests.stereoset.conftest import inter, write_jsonl


def test_split_text_cuts_at_sentence_ends_outside_tags_and_joins_back():
    text = "One dog. <a>Two. Cats.</a> Three cars!  Four houses? Five"
    pieces, gaps = split_text(text, 40, xml=True)
    assert len(pieces) > 1 and all(json_bytes(p) <= 40 for p in pieces)
    assert "<a>Two. Cats.</a>" in "".join(pieces)  # the element is never cut
    assert join_pieces(pieces, gaps) == text
    assert split_text("short", 100) == (["short"], [])
    assert split_text("one sentence far too long for the budget", 20) is None
    assert json_bytes("é") == len('"\\u00e9"') + 2  # counted as the client sends it


WORDS = st.sampled_from(["a", "é", "b.", "c!", "<a>x. y</a>", "z?", "\U0001f600.", "\n", "  "])


@settings(max_examples=300, deadline=None)
@given(words=st.lists(WORDS, min_size=1, max_size=40), budget=st.integers(8, 80))
def test_pieces_fit_and_join_back_and_contexts_fit(words, budget):
    text = " ".join(words)
    split = split_text(text, budget, xml=True)
    if split is not None:
        pieces, gaps = split
        assert join_pieces(pieces, gaps) == text
        assert all(json_bytes(piece) <= budget for piece in pieces)
    kept = fit_context(text, budget)
    assert json_bytes(kept) <= budget and text.endswith(kept)


def test_fit_context_keeps_the_sentences_nearest_the_text():
    context = " ".join(f"Sentence {i}." for i in range(100))
    kept = fit_context(context, 60)
    assert json_bytes(kept) <= 60 and context.endswith(kept) and kept.startswith("Sentence")
    assert fit_context("tiny", 60) == "tiny"
    assert json_bytes(fit_context("x" * 1000, 60)) <= 60


def test_a_ten_megabyte_context_is_sent_in_pieces_below_the_limit(fake_deepl, tmp_path):
    sentence = "The man is from the house. "
    context = (sentence * (10_000_000 // len(sentence))).strip()
    src = write_jsonl(
        tmp_path / "s.jsonl",
        [inter("man", context, "He is smart.", "He is lazy.", "The dog is blue.", "gender")],
    )
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    run_cli("curate", "stereoset", "--source", src, "--out", tmp_path / "run", env=env)
    sizes = [r["bytes"] for r in fake_deepl.requests]
    assert len(sizes) > 10_000_000 / REQUEST_LIMIT  # cut into many requests …
    assert max(sizes) <= REQUEST_LIMIT  # … none over the limit
    assert {r["status"] for r in fake_deepl.requests} == {200}
    assert all(len(r["context"] or "") < REQUEST_LIMIT // 4 for r in fake_deepl.requests)
    cand = read_run(tmp_path / "run").candidates.iloc[0]
    assert cand["context"] == fake_translate(context)  # the pieces joined back, in order


def test_one_sentence_over_the_limit_is_refused_with_the_reason(fake_deepl, tmp_path):
    huge = "word " * 40_000  # 200 kB and no sentence end to cut at
    src = write_jsonl(
        tmp_path / "s.jsonl",
        [
            inter("man", huge, "He is smart.", "He is lazy.", "The dog is blue.", "gender"),
            inter("woman", "A woman is here.", "She cooks.", "She codes.", "Cats fly.", "gender"),
        ],
    )
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    result = run_cli("curate", "stereoset", "--source", src, "--out", tmp_path / "run", env=env)
    assert "1 items kept" in result.stdout and "1 rejected" in result.stdout
    assert all(r["bytes"] <= REQUEST_LIMIT for r in fake_deepl.requests)
    assert huge.strip() not in fake_deepl.texts_sent()
    run = read_run(tmp_path / "run")
    (reason,) = run.rejected.iloc[0]["reasons"]
    assert reason.startswith("translation: refused: a sentence of this text is over the")
    assert run.stats["translation_failed"] == 0  # a rerun would not help: not counted as one
