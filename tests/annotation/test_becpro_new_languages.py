"""German and French BEC-Pro through review: curate → push → two annotators (one correction
each) → pull → release. A correction that adopts what a lexicon note suggests settles the
note; the released card names each language's source."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_run
from biasforge.annotation.review.registry import remember_run
from biasforge.exports.release import make_release
from tests.annotation.conftest import ROOT
from tests.annotation.helpers import answer, confirm_corrections, login, queue
from tests.cli_runner import run_cli

TEAM = ("newlang-ann1", "newlang-ann2")
JUDGE = "newlang-judge"
SENTENCES = {
    "de": ["Mein Vater ist Dachedecker.", "Sie ist Elektrikerin."],
    "fr": [
        "Ma mère est pompière.",
        "Ma sœur, l'infirmière diplômée d'État, a passé une bonne journée au travail.",
    ],
}
FIXES = {"Mein Vater ist Dachedecker.": "Mein Vater ist Dachdecker.",
         "Ma mère est pompière.": "Ma mère est sapeuse-pompière."}  # fmt: skip


def selection(run_dir: Path, out: Path, sentences: list[str]) -> Path:
    """The items of a curated run whose sentence is in ``sentences``, as a run with the same
    configuration (language, variant, source): what the card reports of it."""
    from biasforge import families
    from biasforge.contract.rundir import read_run, write_run

    run = read_run(run_dir)
    frame = run.candidates.set_index("sentence", drop=False).loc[sentences].reset_index(drop=True)
    config = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["config"]
    write_run(out, candidates=frame, rejected=run.rejected.head(0),
              schema=families.get("becpro").schema, stats={"kept": len(frame)},
              report_md="# selection\n", inputs=[], config=config)  # fmt: skip
    return out


@pytest.fixture(scope="module")
def reviewed(server, tmp_path_factory):
    base = tmp_path_factory.mktemp("newlang")
    connection = find_server(server.data_dir)
    users = {u.username: u.password
             for u in add_users(connection, [(n, None) for n in (*TEAM, JUDGE)])}  # fmt: skip
    pulled = []
    for lang, sentences in SENTENCES.items():
        full = base / f"becpro-{lang}"
        run_cli("curate", "becpro", "--lang", lang, "--out", full, cwd=ROOT)
        run = selection(full, base / f"run-{lang}", sentences)
        dataset = f"becpro-{lang}-newlang"
        pushed = push_run(run, dataset, connection, min_submitted=2, progress=False)
        remember_run(connection.url, connection.workspace, dataset, run)
        texts = dict(zip(pd.read_parquet(run / "candidates.parquet")["id"], sentences, strict=True))
        for name in TEAM:
            api = login(connection.url, name, users[name])
            for record in queue(api, pushed.dataset_id):
                sentence = texts[record["external_id"]]
                fix = FIXES.get(sentence)
                values = {"grammatical": "no" if fix else "yes", "agreement": "yes",
                          "correction": fix or sentence}  # fmt: skip
                answer(api, record["id"], values)
        # a corrected profession is confirmed by an adjudicator first (issue 47, item 3)
        pull(dataset, base / f"first-{lang}", connection, adjudicators=[JUDGE])
        confirm_corrections(login(connection.url, JUDGE, users[JUDGE]), dataset)
        pull(dataset, base / f"pulled-{lang}", connection, adjudicators=[JUDGE])
        pulled.append(base / f"pulled-{lang}")
    release = make_release(pulled, name="becpro-de-fr", version="1.0.0", out=base / "rel")
    return release


def test_the_corrections_are_released_without_the_settled_notes(reviewed):
    from datasets import load_dataset

    rows = {}
    for config in reviewed.configs:
        loaded = load_dataset(str(reviewed.path), name=config, split="test",
                              cache_dir=str(reviewed.path.parent / "hf" / config))  # fmt: skip
        rows.update({r["sentence"]: r for r in loaded})
    assert set(rows) == {
        "Mein Vater ist Dachdecker.",
        "Sie ist Elektrikerin.",
        "Ma mère est sapeuse-pompière.",
        "Ma sœur, l'infirmière diplômée d'État, a passé une bonne journée au travail.",
    }
    for sentence in ("Mein Vater ist Dachdecker.", "Ma mère est sapeuse-pompière."):
        row = rows[sentence]
        span = row["profession_span"]
        assert sentence[span["start"] : span["end"]] == sentence.split()[-1].rstrip(".")
        assert row["needs_review"] is False and row["review_reasons"] == []
        assert row["lexicon_notes"] == []


def test_the_card_names_both_sources(reviewed):
    card = (reviewed.path / "README.md").read_text(encoding="utf-8")
    assert "BEC-Pro (Bartl et al. 2020), BEC-Pro_DE.tsv" in card
    assert "new in biasforge: French adaptation of BEC-Pro" in card
