"""``curate stereoset --lang en``: the English source through the same pipeline as a
translation (audit, structure checks, flags), with no engine, no key and no memory; its
release scores with the official procedure and evaluator's figures."""

from __future__ import annotations

import json
import os

import pandas as pd

from biasforge.curation.stereoset import Options, curate, dry_run
from biasforge.curation.stereoset.source import BUNDLED_SAMPLE, load_source
from biasforge.families.base import as_list
from tests.conftest import run_cli
from tests.scoring.official_reference import official_intrasentence_mlm, official_template_word

NO_KEY = {k: v for k, v in os.environ.items() if not k.startswith("DEEPL_")}


def _source() -> pd.DataFrame:
    items, _ = load_source(str(BUNDLED_SAMPLE))
    return items.set_index("source_id")


def test_english_run_needs_no_key_and_keeps_the_source(tmp_path, biasforge_home, monkeypatch):
    for name in ("DEEPL_AUTH_KEY", "DEEPL_SERVER_URL"):
        monkeypatch.delenv(name, raising=False)
    assert "nothing to translate" in dry_run(Options(lang="en")).summary()
    run = curate(Options(lang="en", progress=False), tmp_path / "run")
    stats = run.stats
    assert stats["engine"] == "none (source language)" and stats["source_language"] == "en"
    assert stats["translation"]["characters_sent"] == 0 and stats["translation"]["requests"] == 0
    assert not list(biasforge_home.rglob("*.sqlite")), "the memory is neither read nor written"
    kept = pd.read_parquet(tmp_path / "run" / "candidates.parquet")
    rejected = pd.read_parquet(tmp_path / "run" / "rejected.parquet")
    # only form errors are rejected; "his/her" is a fine English test (no possessive rule)
    assert {r.split(":")[0] for rs in rejected["reasons"] for r in rs} == {"blank_slot"}
    assert len(kept) + len(rejected) == stats["items"] == 205
    source = _source()
    for row in kept.itertuples(index=False):
        original = source.loc[row.source_id]
        assert (row.language, row.source_language, row.translation) == ("en", "en", None)
        assert (row.context, row.target, row.bias_type) == (
            original.context,
            original.target,
            original.bias_type,
        )
        expected = {s["id"]: (s["label"], s["sentence"]) for s in as_list(original.sentences)}
        got = {s["id"]: (s["label"], s["sentence"]) for s in as_list(row.sentences)}
        assert got == expected
    intra = kept[kept["split"] == "intrasentence"]
    checks = {c["rule"]: c for cs in intra["checks"] for c in cs}
    assert {"structure", "distinct_sentences", "gender_agreement"} <= checks.keys()
    assert stats["structure"] == {"identical": len(intra)}


def test_english_release_scores_with_the_official_figures(tiny_models, tmp_path):
    run_cli("curate", "stereoset", "--lang", "en", "--out", tmp_path / "run", env=NO_KEY)
    run_cli(
        "export", "release", tmp_path / "run", "--name", "stereoset-en", "--version", "0.1.0",
        "--out", tmp_path / "releases", "--unreviewed",
    )  # fmt: skip
    release = tmp_path / "releases" / "stereoset-en" / "0.1.0"
    out = tmp_path / "scores"
    run_cli(
        "score", "stereoset", "--dataset", release, "--model", tiny_models["masked"],
        "--out", out, "--no-progress", "--bootstrap", "0", "--limit", "20",
    )  # fmt: skip
    predictions = json.loads((out / "tiny-bert" / "predictions.json").read_text())
    scored = {p["id"]: p["score"] for p in predictions["intrasentence"]}
    # the official one-sentence-per-forward procedure on the *source* items gives the same
    source = _source().reset_index()
    scored_items = source["sentences"].map(lambda ss: as_list(ss)[0]["id"] in scored)
    intra = source[scored_items & (source["split"] == "intrasentence")]
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    model = AutoModelForMaskedLM.from_pretrained(tiny_models["masked"])
    tokenizer = AutoTokenizer.from_pretrained(tiny_models["masked"])
    # the attribute as the official loader reads it from the published sentence
    intra = intra.assign(
        sentences=[
            [{**s, "attribute": official_template_word(c, s["sentence"])} for s in as_list(ss)]
            for c, ss in zip(intra["context"], intra["sentences"], strict=True)
        ]
    )
    official = official_intrasentence_mlm(model, tokenizer, intra)
    assert scored.keys() == official.keys() and len(scored) == 3 * 20
    assert max(abs(scored[k] - official[k]) for k in scored) < 1e-6
    replay = run_cli(
        "score", "stereoset-eval", "--dataset", release,
        "--predictions", out / "tiny-bert" / "predictions.json",
    )  # fmt: skip
    results = json.loads((out / "tiny-bert" / "results.json").read_text())
    assert json.loads(replay.stdout) == results
