"""``curate bbq --lang fr``: the templates and the vocabulary are translated (through the fake
DeepL server, the one allowed fake), not the instances; each French instance is its English
twin (same seed, same draws) written from the translated template, so label, ``target_loc`` and
the ``answer_info`` tags are the twin's; proper names come from the French list; a template
whose slots do not come back is rejected naming its field; the run is released and scored."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from biasforge.curation.bbq.generate import default_data_dir
from tests.cli_runner import run_cli
from tests.fake_deepl import FakeDeepL
from tests.helpers import score

CATEGORIES = ("--category", "Religion", "--category", "Gender_identity")
KEYS = ("ans0", "ans1", "ans2")


def _curate(out: Path, fake: FakeDeepL, home: Path, *args: str):
    env = {"DEEPL_AUTH_KEY": fake.auth_key, "DEEPL_SERVER_URL": fake.url,
           "BIASFORGE_HOME": str(home)}  # fmt: skip
    return run_cli("curate", "bbq", "--lang", "fr", *args, "--out", out, env=env, check=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bbq-fr")
    fake = FakeDeepL().start()
    try:
        result = _curate(root / "fr", fake, root / "home", *CATEGORIES)
        assert result.returncode == 0, result.stderr
        sent = fake.texts_sent()
    finally:
        fake.stop()
    run_cli("curate", "bbq", "--lang", "en", *CATEGORIES, "--out", root / "en")
    return {"fr": root / "fr", "en": root / "en", "sent": sent, "root": root}


def test_each_french_instance_is_its_english_twin_in_french(runs) -> None:
    fr = pd.read_parquet(runs["fr"] / "candidates.parquet").set_index("source_id")
    en = pd.read_parquet(runs["en"] / "candidates.parquet").set_index("id")
    assert len(fr) == len(en) == 5672 + 1200  # nothing rejected, same draws
    twins = en.loc[fr.index]
    assert (fr.label == twins.label).all()
    assert fr.target_loc.equals(twins.target_loc)
    assert (fr.question_index == twins.question_index).all()
    assert (fr.context != twins.context).mean() > 0.99  # the fake's French differs
    flagged = fr[fr.needs_review]
    for row, twin in zip(fr.itertuples(), twins.itertuples(), strict=True):
        tags = [row.answer_info[k][1] for k in KEYS]
        if row.Index not in flagged.index:
            assert tags == [twin.answer_info[k][1] for k in KEYS]
    assert all("answers_keep_groups" in r[0] for r in flagged.review_reasons)
    assert not fr.context.str.contains("{{").any()
    flat = fr.reset_index()
    quartets = flat.groupby([flat.category, flat.example_id // 4])
    for _, q in quartets:
        ambiguous = q[q.context_condition == "ambig"].context.iloc[0]
        assert q.context.str.startswith(ambiguous).all()


def test_templates_and_words_are_sent_not_instances(runs) -> None:
    texts = runs["sent"]
    assert 0 < len(texts) < 1000  # 85 templates x 6 fields and the words, not 6,872 instances
    assert any("<x>{{NAME1}}</x>" in t for t in texts)
    assert not any("{{NAME1}}" in t and "<x>{{NAME1}}</x>" not in t for t in texts)


def test_proper_names_are_french_names_of_the_same_gender(runs) -> None:
    fr = pd.read_parquet(runs["fr"] / "candidates.parquet")
    names = pd.read_csv(default_data_dir() / "names_fr.csv").set_index("Name").gender
    named = fr[fr.category.eq("Gender_identity") & fr.label_type.eq("name")]
    assert len(named) > 0
    for info in named.answer_info:
        for k in KEYS:
            text, tag = info[k]
            if tag != "unknown":
                assert text in names.index and tag.endswith(names[text]), (text, tag)


def test_a_template_whose_slots_are_lost_is_rejected_naming_the_field(tmp_path) -> None:
    fake = FakeDeepL(fixed_text="Texte fixe.").start()  # DeepL's mock: one text, tags dropped
    try:
        result = _curate(tmp_path / "run", fake, tmp_path / "home", "--category", "Religion")
    finally:
        fake.stop()
    assert result.returncode == 0, result.stderr
    rejected = pd.read_parquet(tmp_path / "run" / "rejected.parquet")
    kept = pd.read_parquet(tmp_path / "run" / "candidates.parquet")
    assert len(kept) == 0 and len(rejected) == 1200
    reasons = {r[0] for r in rejected.reasons}
    assert any("Ambiguous_Context: slots ['{{NAME1}}', '{{NAME2}}'] came back as []" in r
               for r in reasons)  # fmt: skip


def test_the_french_run_is_released_and_scored(runs, tiny_models) -> None:
    root = runs["root"]
    run_cli("export", "release", runs["fr"], "--name", "bbq-fr", "--version", "0.1.0",
            "--out", root / "releases", "--unreviewed")  # fmt: skip
    release = root / "releases" / "bbq-fr" / "0.1.0"
    out = root / "scores"
    score("bbq", "-d", str(release), "-m", tiny_models["causal"], "-o", str(out),
          "--limit", "48", "--bootstrap", "100")  # fmt: skip
    answers = pd.read_csv(out / "answers.csv")
    assert len(answers) == 48 and answers.pred_label.notna().all()
    results = pd.read_csv(out / "results.csv")
    assert set(results.context_condition) == {"ambig", "disambig"}


def test_french_templates_reviewed_on_the_server_released_and_scored(
    server, tmp_path, tiny_models
) -> None:
    """The French templates are reviewed per template on the real embedded server, blind and
    in French; a template whose stereotype annotators do not recognise is removed with all its
    instances; the release keeps the others and is scored."""
    from biasforge.annotation.client.connection import find_server
    from biasforge.annotation.review.pull import pull
    from biasforge.annotation.review.push import push_run
    from biasforge.annotation.review.registry import remember_run
    from biasforge.families.bbq import REVIEW, template_of
    from tests.annotation.test_families import answer_as_owner
    from tests.bbq.test_review import SHOWN_METADATA, _records

    fake = FakeDeepL().start()
    try:
        result = _curate(tmp_path / "run", fake, tmp_path / "home", "--category", "Religion")
    finally:
        fake.stop()
    assert result.returncode == 0, result.stderr
    connection = find_server(server.data_dir)
    pushed = push_run(tmp_path / "run", "bbq-fr", connection, min_submitted=1, progress=False)
    remember_run(connection.url, connection.workspace, "bbq-fr", tmp_path / "run")
    records = _records(connection, pushed.dataset_id)
    assert len(records) == pushed.created == 25
    for record in records:
        assert set(record["metadata"]) <= SHOWN_METADATA
    assert any(" étaient " in r["fields"]["ambiguous_context"] for r in records)  # French shown
    templates = sorted(r["external_id"] for r in records)
    removed, corrected = templates[3], templates[5]
    run = pd.read_parquet(tmp_path / "run" / "candidates.parquet").to_dict("records")
    (original,) = {r["template_context"] for r in run if template_of(r) == corrected}
    answers = {t: dict.fromkeys(REVIEW.criteria, "yes") for t in templates}
    answers[removed]["stereotype"] = "no"
    answers[corrected] |= {"ambiguous": "no", "template": original.rstrip() + " Corrigé."}
    answer_as_owner(connection, pushed.dataset_id, answers)
    pull("bbq-fr", tmp_path / "reviewed", connection)
    run_cli("export", "release", tmp_path / "reviewed", "--name", "bbq-fr", "--version", "1.0.0",
            "--out", tmp_path / "rel")  # fmt: skip
    release = tmp_path / "rel" / "bbq-fr" / "1.0.0"
    (data,) = release.glob("**/*.parquet")
    kept = pd.read_parquet(data)
    dropped = sum(template_of(row) == removed for row in run)
    assert dropped > 0 and len(kept) == 1200 - dropped and (kept.language == "fr").all()
    assert removed not in {template_of(row) for row in kept.to_dict("records")}
    rewritten = kept[[template_of(r) == corrected for r in kept.to_dict("records")]]
    before = {r["id"]: r["context"] for r in run if template_of(r) == corrected}
    assert len(rewritten) == len(before) > 0  # every question of the template written again
    for row in rewritten.itertuples():
        assert "Corrigé." in row.context and row.context != before[row.id]
        if row.context_condition == "ambig":
            assert row.context == before[row.id] + " Corrigé."
        else:
            assert row.context.count("Corrigé.") == 1 and not row.context.endswith("Corrigé.")
    out = tmp_path / "scores"
    score("bbq", "-d", str(release), "-m", tiny_models["causal"], "-o", str(out), "--limit",
          "24", "--bootstrap", "50")  # fmt: skip
    assert len(pd.read_csv(out / "answers.csv")) == 24


def test_a_template_correction_keeps_its_slots_or_is_refused() -> None:
    from biasforge.families.bbq import apply_correction

    row = {"context": "Un A et un B. Le A a menti.", "template_context": "Un {{NAME1}} et un {{NAME2}}.",
           "fillers": {"NAME1": "A", "NAME2": "B", "WORD1": "", "WORD2": ""}}  # fmt: skip
    fixed = apply_correction(row, "Un {{NAME1}} puis un {{NAME2}}.")
    assert fixed["context"] == "Un A puis un B. Le A a menti."
    assert fixed["template_context"] == "Un {{NAME1}} puis un {{NAME2}}."
    with pytest.raises(ValueError, match="must keep the slots"):
        apply_correction(row, "Un {{NAME1}} et un autre.")
    with pytest.raises(ValueError, match="records no template"):
        apply_correction({**row, "template_context": None}, "Un {{NAME1}} et un {{NAME2}}.")
