"""German and French go the way of the other languages: released (one config each, the card
naming where each corpus comes from) and scored by ``score becpro`` with both procedures."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.conftest import run_cli


@pytest.fixture(scope="module")
def release(new_runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("rel")
    run_cli("export", "release", new_runs["de"], new_runs["fr"], "--name", "becpro-de-fr",
            "--version", "1.0.0", "--out", out, "--unreviewed")  # fmt: skip
    return out / "becpro-de-fr" / "1.0.0"


def test_the_card_names_each_language_and_its_source(release):
    card = (release / "README.md").read_text(encoding="utf-8")
    assert "- de\n" in card and "- fr\n" in card
    assert "config_name: de_default" in card and "config_name: fr_default" in card
    assert (
        "BEC-Pro (Bartl et al. 2020), BEC-Pro_DE.tsv of github.com/marionbartl/gender-bias-BERT"
        in card
    )
    assert (
        "new in biasforge: French adaptation of BEC-Pro (Bartl et al. 2020), lexicon in "
        "curation/data/becpro/fr" in card
    )


@pytest.mark.parametrize("config", ["de_default", "fr_default"])
@pytest.mark.parametrize("procedure", ["spans", "bartl"])
def test_both_procedures_score_the_release(release, tiny_models, tmp_path, config, procedure):
    out = tmp_path / "scores"
    run_cli("score", "becpro", "-d", release / config, "-m", tiny_models["masked"], "-o", out,
            "--procedure", procedure, "--limit", "40", "--no-progress")  # fmt: skip
    (items,) = out.rglob("items.csv")
    scored = pd.read_csv(items)
    assert len(scored) == 40 and scored["association"].notna().all()
    first = {"de_default": "Er ist Trockenbaumonteur.", "fr_default": "Il est plaquiste."}
    assert scored["sentence"].iloc[0] == first[config]
