"""No request is ever over DeepL's 128 KiB limit: long texts are cut at sentence ends and
joined back, an oversize ``context`` is trimmed to its last sentences, and a text with one
sentence over the limit is refused with the reason instead of being sent."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biasforge.contract.rundir import read_run
from biasforge.curation.translation.sizing import fit_context, join_pieces, json_bytes, split_text
from tests.conftest import run_cli
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


@pytest.mark.parametrize(
    "huge",
    [("The man is from the house. " * 370_000).strip(),  # 10 MB of sentences
     ("word " * 40_000).strip()],  # 200 kB and no sentence end: over DeepL's request limit
    ids=["ten-megabytes-of-sentences", "one-sentence-over-the-request-limit"],
)  # fmt: skip
def test_a_text_far_longer_than_a_sentence_is_rejected_by_the_audit_and_never_sent(
    fake_deepl, tmp_path, huge
):
    """Issue 47, item 14: a 10 MB context was kept as an item, cut into hundreds of requests
    and shown to annotators whole; a StereoSet text is one sentence, so the audit rejects it
    (whole in rejected.parquet) before anything is sent. Texts DeepL is still sent are cut
    below its request limit (the split tests above)."""
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
    assert sum(r["bytes"] for r in fake_deepl.requests) < 2_000  # the short item only
    run = read_run(tmp_path / "run")
    (reason,) = run.rejected.iloc[0]["reasons"]
    assert reason == (
        f"text_length: context is {len(huge):,} characters long (a StereoSet text is one "
        "sentence, at most 2,000 characters)"
    )
    assert run.rejected.iloc[0]["context"] == huge  # nothing lost
