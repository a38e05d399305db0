"""A user's own language pack: a Portuguese folder written here curates StereoSet and
CrowS-Pairs into Brazilian Portuguese with no change to the code (``--language-pack``)."""

from __future__ import annotations

import json
from pathlib import Path

from biasforge.contract.rundir import read_run
from tests.cli_runner import run_cli
from tests.conftest import one_error_line
from tests.languages.written import curated_item

PORTUGUESE = """\
code = "pt-br"
name = "Portuguese (Brazil)"
articles = ["o", "a", "os", "as", "um", "uma"]

[tokenizer]
spacy = "pt"

[deepl]
code = "PT-BR"
formality = true
glossary = true

[[before_slot]]
kind = "article"
forms = { masculine = ["o", "um", "do", "no"], feminine = ["a", "uma", "da", "na"] }
"""


def write_pack(folder: Path) -> Path:
    folder.mkdir()
    (folder / "language.toml").write_text(PORTUGUESE, encoding="utf-8")
    (folder / "no_exact_translation.tsv").write_text(
        "word\trenderings\tsuggestion\ncat\tgato/gata\tfelinos (plural)\n", encoding="utf-8"
    )
    return folder


def test_a_portuguese_pack_flags_o_a_and_its_lexicon(tmp_path):
    pack = write_pack(tmp_path / "pt")
    checks = curated_item(
        tmp_path,
        "pt-br",
        "Todos acham que o <x>BLANK</x> é esperto.",
        [
            "Todos acham que o <a>homem</a> é esperto.",
            "Todos acham que a <a>mulher</a> é esperta.",
            "Todos acham que o <a>gato</a> é esperto.",
        ],
        {"man": "homem", "cat": "gato"},
        language_pack=pack,
    )
    assert checks["gender_agreement"].startswith(
        "the translated sentences disagree outside the slot (o/a; esperto/esperta); the slot "
        "follows the gendered word 'o'"
    )
    assert checks["no_exact_translation"] == (
        "'cat' has no exact translation (gato/gata), consider felinos (plural)"
    )


def test_the_commands_take_the_folder_and_record_it(fake_deepl, tmp_path):
    pack = write_pack(tmp_path / "pt")
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    for family in ("stereoset", "crowspairs"):
        run_cli("curate", family, "--lang", "pt-br", "--language-pack", pack, "--limit", "4",
                "--memory", tmp_path / "tm.sqlite", "--out", tmp_path / family, env=env)  # fmt: skip
        run = read_run(tmp_path / family)
        assert set(run.candidates["language"]) == {"pt-br"} and len(run.candidates)
        manifest = json.loads((tmp_path / family / "manifest.json").read_text())
        assert manifest["config"]["language_pack"] == "pt"
        assert {"path": "language.toml", "role": "language pack"}.items() <= next(
            i for i in manifest["inputs"] if i["role"] == "language pack"
        ).items()


def test_a_pack_for_another_language_is_refused_in_one_line(tmp_path):
    pack = write_pack(tmp_path / "pt")
    result = run_cli("curate", "stereoset", "--lang", "es", "--language-pack", pack,
                     "--out", tmp_path / "r", check=False)  # fmt: skip
    assert one_error_line(result).endswith(
        "language.toml: code: the pack is for 'pt-br', not --lang es"
    )
