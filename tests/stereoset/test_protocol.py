"""Any backend that follows the Translator protocol plugs into the pipeline (``curate`` and
``dry_run`` take a ready translator); a backend that loses the attribute tag gets the item
rejected with the reason (its alignment is lost), not kept as a test that is not one."""

from __future__ import annotations

import dataclasses

import pytest

from biasforge.contract.rundir import RunResult, read_run
from biasforge.curation.stereoset import Options, curate, dry_run
from biasforge.curation.translation import TranslationMemory, Translator
from biasforge.errors import BiasforgeError, InputError
from tests.stereoset.conftest import intra, write_jsonl


class TagLosingTranslator:
    """Identity "translation" that drops the <a> tag around the word 'fox'."""

    engine_id = "tag-losing"
    max_batch = 50

    def options_key(self) -> dict:
        return {}

    def translate(self, texts, source, target, *, context=None, xml=False):
        return [t.replace("<a>fox</a>", "fox") for t in texts]


class IdentityTranslator(TagLosingTranslator):
    """Identity "translation" that keeps every tag."""

    engine_id = "identity"

    def translate(self, texts, source, target, *, context=None, xml=False):
        return list(texts)


def test_lost_tag_rejects_the_item_with_the_reason_and_what_came_back(tmp_path):
    assert isinstance(TagLosingTranslator(), Translator)
    src = write_jsonl(
        tmp_path / "s.jsonl", [intra("man", "The man was BLANK.", "smart", "dumb", "fox", "gender")]
    )
    options = Options(source=str(src), progress=False)
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        result = curate(options, tmp_path / "run", translator=TagLosingTranslator(), memory=memory)
    assert isinstance(result, RunResult) and result.path == tmp_path / "run"
    assert result.stats["kept"] == 0 and result.stats["rejected"] == 1
    run = read_run(tmp_path / "run")
    rejected = run.rejected.iloc[0]
    assert list(rejected["reasons"]) == ["structure: attribute tag lost in sentence(s) 3"]
    assert [s["sentence"] for s in rejected["sentences"]] == [
        "The man was smart.",
        "The man was dumb.",
        "The man was fox.",
    ]
    assert rejected["translation"]["engine"] == "tag-losing"
    report = (tmp_path / "run" / "report.md").read_text()
    assert "| structure | 1 |" in report and "attribute tag lost" in report


def test_dry_run_then_run_with_the_memory_from_the_options(tmp_path):
    src = write_jsonl(
        tmp_path / "s.jsonl", [intra("man", "The man was BLANK.", "smart", "dumb", "fox", "gender")]
    )
    options = Options(source=str(src), memory=tmp_path / "tm.sqlite", progress=False)
    before = dry_run(options, translator=IdentityTranslator())
    assert before.items == 1 and before.plan.characters_to_send > 0 and before.quota is None
    assert "nothing was sent" in before.summary()
    run = curate(options, tmp_path / "run", translator=IdentityTranslator())
    assert run.stats["kept"] == 1 and run.stats["language"] == "fr"
    # an absolute path outside the working folder is published by its name only
    assert read_run(run.path).manifest["config"]["source"] == "s.jsonl"
    after = dry_run(options, translator=IdentityTranslator())
    assert after.plan.characters_to_send == 0  # everything is in the memory now


def test_options_are_frozen_and_checked():
    options = Options(lang="FR")
    assert options.lang == "fr"
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.lang = "de"  # type: ignore[misc]
    with pytest.raises(BiasforgeError, match="unknown translator 'google'"):
        Options(translator="google")


def test_bad_synonym_file_is_one_error_naming_file_and_line(tmp_path):
    src = write_jsonl(
        tmp_path / "s.jsonl", [intra("man", "The man was BLANK.", "smart", "dumb", "fox", "gender")]
    )
    bad = tmp_path / "syn.tsv"
    bad.write_text("attribute\tsynonym\nsmart\tclever\ndumb\n", encoding="utf-8")
    options = Options(source=str(src), synonyms=bad, memory=tmp_path / "tm.sqlite")
    translator = TagLosingTranslator()
    with pytest.raises(InputError) as error:
        curate(options, tmp_path / "run", translator=translator)
    assert str(error.value).startswith(f"{bad}:3: ") and "\n" not in str(error.value)
    missing = dataclasses.replace(options, synonyms=tmp_path / "nope.tsv")
    with pytest.raises(InputError, match=r"nope\.tsv: file not found"):
        dry_run(missing, translator=translator)
    assert not (tmp_path / "run").exists()
