"""Translations that collapse are rejected with the reason, never kept: a server that answers
one fixed text and drops XML tags (DeepL's own mock server does), an empty answer, two
attributes that translate to the same word."""

from __future__ import annotations

import pytest

from biasforge.contract.rundir import read_run
from tests.conftest import run_cli
from tests.fake_deepl import FakeDeepL
from tests.stereoset.conftest import intra, write_jsonl


def _rules(reasons) -> set[str]:
    return {reason.partition(":")[0] for reason in reasons}


@pytest.mark.parametrize(
    ("fixed", "intersentence_rule"),
    [("Proton beam", "distinct_sentences"), ("", "empty_context")],
)
def test_a_server_answering_one_fixed_text_leaves_no_item_kept(tmp_path, fixed, intersentence_rule):
    mock = FakeDeepL(fixed_text=fixed).start()
    try:
        env = {"DEEPL_AUTH_KEY": mock.auth_key, "DEEPL_SERVER_URL": mock.url}
        result = run_cli("curate", "stereoset", "--out", tmp_path / "run", env=env)
    finally:
        mock.stop()
    assert "0 items kept" in result.stdout and "205 rejected" in result.stdout
    run = read_run(tmp_path / "run")
    translated = run.rejected[run.rejected["translation"].notna()]
    assert len(translated) == 200  # the 5 others were rejected by the audit, in English
    rules = translated.groupby("split")["reasons"].agg(lambda rs: set().union(*map(_rules, rs)))
    assert rules["intrasentence"] == {"structure"}  # the tags were dropped
    assert rules["intersentence"] == {intersentence_rule}
    report = (tmp_path / "run" / "report.md").read_text()
    assert f"| {intersentence_rule} |" in report and "| structure |" in report


def test_two_attributes_with_one_translation_make_the_item_not_distinct(fake_deepl, tmp_path):
    src = write_jsonl(  # the fake translates both "from" and "of" as "de"
        tmp_path / "s.jsonl",
        [
            intra("man", "The man is BLANK Paris.", "from", "of", "fox", "gender"),
            intra("woman", "The woman was BLANK.", "smart", "lazy", "fox", "gender"),
        ],
    )
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    run_cli("curate", "stereoset", "--source", src, "--out", tmp_path / "run", env=env)
    run = read_run(tmp_path / "run")
    assert list(run.candidates["target"]) == ["femme"]
    (reason,) = run.rejected.iloc[0]["reasons"]
    assert reason == (
        "distinct_sentences: the stereotype and anti-stereotype sentences came back "
        "identical: nothing left to compare"
    )
