"""Language packs load whole or are refused with one line naming the file, line and key."""

from __future__ import annotations

import shutil

import pytest

from biasforge.curation.language_pack import PACKS, bundled, json_schema, load_pack
from biasforge.errors import BiasforgeError, InputError
from tests.conftest import one_error_line, run_cli


def test_the_bundled_packs():
    assert bundled() == ["de", "en", "es", "fr", "ja", "zh"]
    for code in bundled():
        pack = load_pack(code)
        assert pack.code == code and pack.spec.tokenizer.spacy == code
    assert load_pack("fr").no_exact_lexicon.name == "no_exact_translation.tsv"
    assert load_pack("en").group_words.name == "group_words.tsv"
    assert load_pack("de").no_exact_lexicon is None
    assert all(load_pack(c).group_words.name == "group_words.tsv" for c in ("de", "es", "zh", "ja"))
    assert load_pack("zh").spec.deepl.formality is False and load_pack("fr").spec.deepl.formality


def test_slot_words_are_read_by_word():
    fr, de, zh = load_pack("fr"), load_pack("de"), load_pack("zh")
    assert {"le", "la", "un", "une", "cette"} <= set(fr.slot_words)
    assert "les" not in fr.slot_words and "l'" not in fr.slot_words  # they show no gender
    assert fr.slot_words["cette"].kind == "demonstrative"
    assert {"der", "die", "das", "dem"} <= set(de.slot_words)
    assert de.slot_words["den"].case == "accusative"
    assert zh.slot_words["个"].described_as == "measure word"


def _copy(tmp_path, code="fr"):
    folder = tmp_path / "pack"
    shutil.copytree(PACKS / code, folder)
    return folder


def test_an_unknown_key_names_file_line_and_key(tmp_path):
    folder = _copy(tmp_path)
    toml = folder / "language.toml"
    toml.write_text(
        toml.read_text("utf-8").replace("glossary = true", "glossary = true\nglosary = true"),
        "utf-8",
    )
    line = toml.read_text("utf-8").splitlines().index("glosary = true") + 1
    with pytest.raises(InputError) as err:
        load_pack(folder)
    assert str(err.value) == f"{toml}:{line}: deepl.glosary: Extra inputs are not permitted"


def test_a_value_of_the_wrong_type_and_a_missing_key(tmp_path):
    folder = _copy(tmp_path)
    toml = folder / "language.toml"
    text = toml.read_text("utf-8")
    toml.write_text(
        text.replace('forms = { masculine = ["ce"', "forms = { masculine = [1"), "utf-8"
    )
    with pytest.raises(InputError, match=r"language.toml:\d+: before_slot\.1\.forms"):
        load_pack(folder)
    toml.write_text(text.replace('spacy = "fr"', ""), "utf-8")
    with pytest.raises(InputError, match=r"language.toml:\d+: tokenizer.spacy: Field required"):
        load_pack(folder)
    toml.write_text(text.replace('code = "fr"', 'code = "French!"'), "utf-8")
    with pytest.raises(InputError, match=r"language.toml:4: code: String should match"):
        load_pack(folder)


def test_a_folder_without_language_toml_and_a_language_without_a_pack(tmp_path):
    with pytest.raises(InputError, match=r"language\.toml: language pack file not found"):
        load_pack(tmp_path)
    with pytest.raises(BiasforgeError, match=r"no language pack for 'it' \(bundled: de, en"):
        load_pack("it")


def test_a_word_list_that_is_a_folder(tmp_path):
    folder = _copy(tmp_path)
    (folder / "group_words.tsv").mkdir()
    with pytest.raises(InputError, match=r"group_words\.tsv: a folder, not a file"):
        load_pack(folder)


@pytest.mark.parametrize("family", ["stereoset", "crowspairs"])
def test_curate_refuses_a_language_without_a_pack_in_one_line(family, tmp_path):
    result = run_cli("curate", family, "--lang", "it", "--out", tmp_path / "r", check=False)
    assert "--lang it: no language pack for 'it'" in one_error_line(result)
    assert not (tmp_path / "r").exists()


def test_the_schema_is_published():
    assert '"before_slot"' in json_schema() and '"segmenter"' not in json_schema()
