"""What a BEC-Pro run records about its inputs, and how it reads them: paths as the user gave
them (or package-relative for the bundled lexicon), never an absolute path of this machine;
a lexicon saved with a UTF-8 byte-order mark reads like any other."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd

from biasforge.contract.redact import is_public_path
from biasforge.curation.becpro.lexicon import LANGUAGE_FILES, default_lexicon_dir
from tests.becpro.conftest import candidates
from tests.conftest import REPO, run_cli

PUBLISHED = ("manifest.json", "stats.json", "report.md")
#: a run's inputs: the lexicon's profession list, then the language folder's four files
INPUTS = ["professions.tsv", *(f"en/{name}" for name in LANGUAGE_FILES)]


def _curate(cwd: Path, *args: str) -> None:
    """The command as a user runs it from ``cwd`` (relative paths are relative to it)."""
    run_cli("curate", "becpro", *args, cwd=cwd)


def _published_text(run: Path) -> str:
    return "\n".join((run / name).read_text(encoding="utf-8") for name in PUBLISHED)


def _input_paths(run: Path) -> list[str]:
    return [i["path"] for i in json.loads((run / "manifest.json").read_text())["inputs"]]


def test_bundled_lexicon_is_named_by_its_package_relative_path(becpro_runs):
    run = becpro_runs["en"]
    assert _input_paths(run) == [f"curation/data/becpro/{name}" for name in INPUTS]
    text = _published_text(run)
    assert "Built from `curation/data/becpro/en`" in text
    assert is_public_path(text) and str(REPO) not in text


def test_a_lexicon_given_relative_is_recorded_as_given_and_absolute_by_name(tmp_path):
    shutil.copytree(default_lexicon_dir(), tmp_path / "my-lexicon")
    _curate(tmp_path, "--lang", "en", "--lexicon", "my-lexicon", "--out", "relative")
    assert _input_paths(tmp_path / "relative") == [f"my-lexicon/{n}" for n in INPUTS]
    assert "Built from `my-lexicon/en`" in _published_text(tmp_path / "relative")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    absolute = str(tmp_path / "my-lexicon")
    _curate(elsewhere, "--lang", "en", "--lexicon", absolute, "--out", "absolute")
    assert _input_paths(elsewhere / "absolute") == [name.split("/")[-1] for name in INPUTS]
    text = _published_text(elsewhere / "absolute")
    assert str(tmp_path) not in text and is_public_path(text)


def test_a_lexicon_saved_with_a_byte_order_mark_builds_the_same_corpus(becpro_runs, tmp_path):
    lexicon = shutil.copytree(default_lexicon_dir(), tmp_path / "bom-lexicon")
    for name in INPUTS:
        path = lexicon / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    _curate(tmp_path, "--lang", "en", "--lexicon", str(lexicon), "--out", "run")
    pd.testing.assert_frame_equal(candidates(tmp_path / "run"), candidates(becpro_runs["en"]))
