"""A StereoSet run names its inputs as the user gave them, bundled ones by package-relative
name, and never records an absolute path of this machine (config, stats, report, manifest)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from biasforge.contract.redact import is_public_path
from biasforge.curation.language_pack import load_pack
from tests.conftest import REPO, run_cli
from tests.stereoset.conftest import intra, write_jsonl

PUBLISHED = ("manifest.json", "stats.json", "report.md")


def _curate(cwd: Path, env: dict[str, str], *args: object) -> None:
    run_cli("curate", "stereoset", *args, env=env, cwd=cwd)


def _published(run: Path) -> tuple[dict, str]:
    text = "\n".join((run / name).read_text(encoding="utf-8") for name in PUBLISHED)
    return json.loads((run / "manifest.json").read_text()), text


def test_inputs_are_named_as_given_or_by_package_relative_name(deepl_env, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    write_jsonl(work / "s.jsonl", [intra("man", "The man was BLANK.", "smart", "lazy", "fox")])
    (work / "glossary.tsv").write_text("source\ttarget\nman\thomme\n", encoding="utf-8")
    # outside the work folder
    lexicon = shutil.copy(load_pack("fr").no_exact_lexicon, tmp_path / "lexicon.tsv")
    _curate(
        work, deepl_env, "--source", "s.jsonl", "--glossary", "glossary.tsv",
        "--lexicon", lexicon, "--out", "run",
    )  # fmt: skip
    manifest, text = _published(work / "run")
    config = manifest["config"]
    assert (config["source"], config["glossary_file"], config["lexicon"]) == (
        "s.jsonl",
        "glossary.tsv",
        "lexicon.tsv",
    )
    assert [i["path"] for i in manifest["inputs"]] == ["s.jsonl", "glossary.tsv", "lexicon.tsv"]
    assert str(tmp_path) not in text and str(REPO) not in text and is_public_path(text)

    _curate(work, deepl_env, "--out", "bundled")  # the bundled sample and lexicon
    manifest, text = _published(work / "bundled")
    assert [i["path"] for i in manifest["inputs"]] == [
        "curation/data/stereoset/sample_dev_en.jsonl",
        "curation/data/languages/fr/no_exact_translation.tsv",
    ]
    assert manifest["config"]["source"] == "curation/data/stereoset/sample_dev_en.jsonl"
    assert str(tmp_path) not in text and str(REPO) not in text and is_public_path(text)
