"""StereoSet-fr and SlguSet review designs on the real server: settings accepted by Argilla,
corrections applied (attribute re-derived), labels, criteria, translation memory write-back."""

from __future__ import annotations

import httpx
import pandas as pd
import pytest

from biasforge import families
from biasforge.annotation.client.connection import client, find_server
from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_run
from biasforge.annotation.review.registry import remember_run
from biasforge.contract.rundir import write_run
from biasforge.families.stereoset import editable_text as stereoset_text
from biasforge.families.stereoset import option_order
from tests.annotation.keyed import TEST_KEY, keyed_review, use_key

BECPRO, SLGUSET = (families.get(n).review for n in ("becpro", "slguset"))
STEREOSET = keyed_review("stereoset")


def stereoset_rows() -> list[dict]:
    def item(ident, context, fills, source, sources):
        labels = ("stereotype", "anti-stereotype", "unrelated")
        return {
            "id": ident, "family": "stereoset", "language": "fr", "source_id": ident, "source_language": "en",
            "source_text": source, "split": "intrasentence", "bias_type": "gender", "target": "mère",
            "context": context,
            "sentences": [
                {"id": f"{ident}-{i}", "label": label, "sentence": context.replace("BLANK", fill), "attribute": fill}
                for i, (label, fill) in enumerate(zip(labels, fills, strict=True))
            ],
            "source_sentences": sources,
            "checks": [{"rule": "structure", "passed": False, "severity": "review", "detail": "attributes differ in form"}],
            "needs_review": True, "review_reasons": ["structure"],
            "translation": {"engine": "deepl", "source_lang": "en", "target_lang": "fr", "cache_hit": False, "glossary": ""},
        }  # fmt: skip

    return [
        item("ss-1", "La mère est BLANK.", ("attentionnée", "négligente", "bleu"), "The mother is BLANK.",
             ["The mother is caring.", "The mother is neglectful.", "The mother is blue."]),
        item("ss-2", "Ma mère était BLANK.", ("douce", "dure", "carré"), "My mother was BLANK.",
             ["My mother was gentle.", "My mother was harsh.", "My mother was square."]),
    ]  # fmt: skip


def slguset_rows() -> list[dict]:
    rows = []
    for ident, sentence, keyword, counterpart, gender in (
        ("sl-1", "重庆女足在运动会上取得了第二名。", "女", "男", "female"),
        ("sl-2", "他的弟弟和兄弟俩抱头痛哭。", "弟弟", "妹妹", "male"),
    ):
        start = sentence.index(keyword)
        rows.append(
            {
                "id": ident, "family": "slguset", "language": "zh", "source_id": ident, "source_language": "zh",
                "source_text": sentence, "sentence": sentence, "keyword": keyword, "keyword_start": start,
                "keyword_end": start + len(keyword), "gender": gender, "counterpart": counterpart,
                "checks": [{"rule": "no_person_name", "passed": True, "severity": "reject", "detail": "no name"}],
                "needs_review": False, "review_reasons": [],
            }
        )  # fmt: skip
    return rows


def make_run(path, rows, family):
    return write_run(
        path, candidates=pd.DataFrame(rows), rejected=pd.DataFrame(), schema=families.get(family).schema, stats={},
        report_md="# test\n", inputs=[], config={},
    ).path  # fmt: skip


def answer_as_owner(connection, dataset_id: str, answers: dict[str, dict]) -> None:
    api = httpx.Client(
        base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key}, timeout=60
    )
    records = api.get(f"/api/v1/datasets/{dataset_id}/records").json()["items"]
    for record in records:
        values = answers[record["external_id"]]
        response = api.post(
            f"/api/v1/records/{record['id']}/responses",
            json={"values": {q: {"value": v} for q, v in values.items()}, "status": "submitted"},
        )
        assert response.status_code == 201, response.text


def test_settings_of_every_family_default_to_three_annotators(server):
    client(find_server(server.data_dir))  # the SDK's settings objects need a default client
    for family in (BECPRO, SLGUSET, STEREOSET):
        settings = family.settings()
        assert settings.distribution.min_submitted == 3
        assert settings.guidelines and len(settings.guidelines) > 200
        names = {f.name for f in settings.fields}
        assert {"source", "flags"} <= names
        assert {"language", "domain", "needs_review", "failed_rules"} <= {
            m.name for m in settings.metadata
        }
    assert set(SLGUSET.criteria) == {"swappable", "no_coreference", "no_biological_sex"}
    assert {"validity", "label_A", "label_B", "label_C"} == set(STEREOSET.criteria)


def test_becpro_correction_keeps_person_span_on_the_person_word():
    row = {
        "sentence": "My aunt is a taper.",
        "person": "aunt",
        "person_phrase": "my aunt",
        "profession": "steel worker",
    }
    fixed = BECPRO.apply_correction(row, "My aunt is a skilled steel worker.")
    text = fixed["sentence"]
    assert text[fixed["person_span"]["start"] : fixed["person_span"]["end"]] == "aunt"
    assert (
        text[fixed["profession_span"]["start"] : fixed["profession_span"]["end"]] == "steel worker"
    )
    assert [text[s["start"] : s["end"]] for s in fixed["profession_word_spans"]] == [
        "steel",
        "worker",
    ]
    with pytest.raises(ValueError):
        BECPRO.apply_correction(row, "My uncle is a skilled steel worker.")


def test_stereoset_correction_rederives_the_attribute():
    row = stereoset_rows()[0]
    text = stereoset_text(row, key=TEST_KEY).replace("La mère est", "Cette mère est")
    fixed = STEREOSET.apply_correction(row, text)
    assert fixed["context"] == "Cette mère est BLANK."
    assert [s["attribute"] for s in fixed["sentences"]] == ["attentionnée", "négligente", "bleu"]
    shown = "ABC"[option_order(row, key=TEST_KEY).index(2)]  # the unrelated option's name
    broken = text.replace("Cette mère est bleu.", "Le ciel est bleu.")
    with pytest.raises(ValueError, match=f"option {shown} no longer matches"):
        STEREOSET.apply_correction(row, broken)


LABELS = ("stereotype", "anti-stereotype", "unrelated")
RELABELLED = ("anti-stereotype", "stereotype", "unrelated")


def shown_labels(row: dict, labels: tuple[str, ...]) -> dict[str, str]:
    """The answers to "Label of option A/B/C" that give the stored sentences ``labels``."""
    return {f"label_{'ABC'[j]}": labels[i] for j, i in enumerate(option_order(row, key=TEST_KEY))}


def test_stereoset_and_slguset_review_on_the_server(server, tmp_path):
    connection = find_server(server.data_dir)
    run = make_run(tmp_path / "ss-run", stereoset_rows(), "stereoset")
    use_key(connection, "stereoset-fr")  # the answers below are given in TEST_KEY's order
    pushed = push_run(run, "stereoset-fr", connection, min_submitted=1, progress=False)
    remember_run(connection.url, connection.workspace, "stereoset-fr", run)
    rows = stereoset_rows()
    corrected = stereoset_text(rows[0], key=TEST_KEY).replace("attentionnée", "bienveillante")
    answer_as_owner(
        connection,
        pushed.dataset_id,
        {
            "ss-1": {"validity": "fixed", **shown_labels(rows[0], LABELS), "correction": corrected},
            "ss-2": {"validity": "valid", **shown_labels(rows[1], RELABELLED), "correction": stereoset_text(rows[1], key=TEST_KEY)},
        },
    )  # fmt: skip
    from biasforge.translation_memory import TranslationMemory

    trial = pull("stereoset-fr", tmp_path / "ss-dry", connection, dry_run=True)
    assert trial["decisions"] == {"accept": 2} and trial["translation_memory"]["written"] == 0
    with TranslationMemory() as memory:  # a trial pull teaches the memory nothing (issue 23)
        assert memory.preferred("The mother is caring.", "en", "fr") is None
    manifest = pull("stereoset-fr", tmp_path / "ss-out", connection, policy="unanimous")
    reviewed = pd.read_parquet(tmp_path / "ss-out" / "reviewed.parquet").set_index("id")
    assert list(reviewed["decision"]) == ["accept", "accept"]
    first = list(reviewed.loc["ss-1", "sentences"])
    assert (
        first[0]["sentence"] == "La mère est bienveillante."
        and first[0]["attribute"] == "bienveillante"
    )
    second = list(reviewed.loc["ss-2", "sentences"])
    assert [s["label"] for s in second] == [
        "anti-stereotype",
        "stereotype",
        "unrelated",
    ]  # relabelled
    assert manifest["translation_memory"]["written"] == 1

    with TranslationMemory() as memory:
        preferred = memory.preferred("The mother is caring.", "en", "fr")
    assert preferred is not None and preferred.text == "La mère est bienveillante."

    run = make_run(tmp_path / "sl-run", slguset_rows(), "slguset")
    pushed = push_run(run, "slguset", connection, min_submitted=1, progress=False)
    remember_run(connection.url, connection.workspace, "slguset", run)
    answer_as_owner(
        connection,
        pushed.dataset_id,
        {
            "sl-1": {"swappable": "yes", "no_coreference": "yes", "no_biological_sex": "yes"},
            "sl-2": {"swappable": "yes", "no_coreference": "no", "no_biological_sex": "yes"},
        },
    )
    pull("slguset", tmp_path / "sl-out", connection)
    reviewed = pd.read_parquet(tmp_path / "sl-out" / "reviewed.parquet").set_index("id")
    assert reviewed["decision"].to_dict() == {"sl-1": "accept", "sl-2": "reject"}
    assert reviewed.loc["sl-1", "keyword_start"] == 2
