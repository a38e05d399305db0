"""Curating CrowS-Pairs: the English baseline with no key, French through the fake DeepL
server and the translation memory, both CSV layouts, and release like any family."""

from __future__ import annotations

import pandas as pd
import pytest

from biasforge.curation.crowspairs import Options, curate
from biasforge.curation.crowspairs.align import align_pair, tagged
from biasforge.curation.crowspairs.source import read_pairs
from biasforge.errors import InputError
from tests.conftest import SHARED, run_cli

FULL = SHARED / "data" / "crows_pairs" / "crows_pairs_anonymized.csv"


@pytest.fixture
def fake_deepl(fake_deepl, monkeypatch):
    """The fake DeepL server (tests/conftest.py), its key in the environment."""
    monkeypatch.setenv("DEEPL_AUTH_KEY", fake_deepl.auth_key)
    return fake_deepl


def test_english_sample_needs_no_key_and_keeps_the_source(tmp_path, biasforge_home, monkeypatch):
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    stats = curate(Options(lang="en", progress=False), tmp_path / "run").stats
    assert (stats["pairs"], stats["kept"], stats["translation"]["characters_sent"]) == (100, 100, 0)
    assert not list(biasforge_home.rglob("*.sqlite"))
    kept = pd.read_parquet(tmp_path / "run" / "candidates.parquet")
    source = read_pairs(Options().source).set_index("source_id")
    assert (kept["sent_more"] == source.loc[kept["source_id"], "sent_more"].values).all()
    flagged = kept[kept["needs_review"]]
    assert len(flagged) == stats["needs_review"] > 0
    assert all(r.startswith("bias_type_words:") for rs in flagged["review_reasons"] for r in rs)


def test_full_english_set_flags_blodgett_problems_and_drops_the_duplicate(tmp_path):
    stats = curate(Options(lang="en", source=str(FULL), progress=False), tmp_path / "run").stats
    assert stats["pairs"] == 1508 and stats["kept"] == 1507
    rejected = pd.read_parquet(tmp_path / "run" / "rejected.parquet")
    assert [r.split(":")[0] for r in rejected["reasons"].iloc[0]] == ["duplicate"]
    failed = {r["rule"]: r["failed"] for r in stats["rules"]}
    assert failed["extra_differences"] > 0 and failed["bias_type_words"] > 0


def test_french_through_the_fake_server_and_the_memory(tmp_path, fake_deepl):
    options = Options(lang="fr", server_url=fake_deepl.url, progress=False)
    stats = curate(options, tmp_path / "run").stats
    assert stats["translation"]["characters_sent"] > 0
    assert stats["kept"] + stats["rejected"] == 100
    assert set(stats["structure"]) <= {"identical", "uniformised"}
    kept = pd.read_parquet(tmp_path / "run" / "candidates.parquet")
    assert (kept["source_sent_more"] != kept["sent_more"]).any()
    assert kept["translation"].map(lambda t: t["target_lang"]).eq("fr").all()
    uniformised = kept[kept["review_reasons"].map(lambda rs: any("carried_over" in r for r in rs))]
    assert len(uniformised) == stats["structure"].get("uniformised", 0)
    again = curate(options, tmp_path / "again").stats["translation"]
    assert again["characters_sent"] == 0 and again["cache_hits"] == again["units"]


def test_alignment_keeps_uniformises_or_rejects():
    assert tagged("The poor man is lazy.", [(4, 8)]) == "The <a>poor</a> man is lazy."
    same = align_pair("Le <a>pauvre</a> est paresseux.", "Le <a>riche</a> est paresseux.", 1, 1)
    assert (same.status, same.sent_less) == ("identical", "Le riche est paresseux.")
    agree = align_pair("La <a>femme</a> est belle.", "Le <a>homme</a> est beau.", 1, 1)
    assert agree.status == "uniformised" and agree.sent_less == "La homme est belle."
    assert align_pair("Le pauvre est là.", "Le <a>riche</a> est là.", 1, 1).status == "broken"


def test_revised_layout_and_bad_input(tmp_path):
    revised = tmp_path / "revised.tsv"
    revised.write_text(
        "id\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
        "7\tWomen can't drive.\tMen can't drive.\tstereo\tgender\n"
        "8\tOld people are slow.\tYoung people are slow.\tstereo\tAGE\n"
        "9\tBlack kids are poor.\tWhite kids are poor.\tstereo\trace-colour\n",
        encoding="utf-8",
    )
    pairs = read_pairs(revised)
    assert list(pairs["source_id"]) == ["7", "8", "9"]
    assert list(pairs["bias_type"]) == ["gender", "age", "race-color"]
    bad = tmp_path / "bad.csv"
    bad.write_text("sent_more,sent_less,stereo_antistereo,bias_type\na,b,stereo,height\n")
    with pytest.raises(InputError, match=r"bad.csv:2: bias_type 'height'"):
        read_pairs(bad)
    result = run_cli("curate", "crowspairs", "--lang", "en", "--source", bad, "--out",
                     tmp_path / "r", check=False)  # fmt: skip
    assert result.returncode == 2 and "bad.csv:2" in result.stderr


def test_cli_release_loads_with_datasets(crowspairs_en, tmp_path):
    from datasets import load_dataset

    path = crowspairs_en["release"]  # made by the commands (tests/conftest.py)
    ds = load_dataset(str(path), name="en", split="test", cache_dir=str(tmp_path / "cache"))
    assert len(ds) == 100 and set(ds[0]) >= {"sent_more", "sent_less", "more_spans"}
