"""Run directories: atomic, deterministic, verified on read; bad input names file and line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import biasforge.contract.rundir as rundir
from biasforge.contract.rundir import read_run
from biasforge.curation.becpro import Options, curate
from biasforge.curation.becpro.lexicon import default_lexicon_dir
from biasforge.errors import InputError, OutputExistsError
from tests.conftest import one_error_line, run_cli
from tests.helpers import edit_manifest


def test_run_directory_has_the_contract_files(tmp_path):
    out = tmp_path / "run"
    stats = curate(Options(lang="en"), out).stats
    names = {p.name for p in out.iterdir()}
    assert names == {
        "candidates.parquet",
        "rejected.parquet",
        "stats.json",
        "report.md",
        "manifest.json",
    }
    manifest = json.loads((out / "manifest.json").read_text())
    config = manifest["config"]
    assert {k: config[k] for k in ("family", "language", "variant")} == {
        "family": "becpro",
        "language": "en",
        "variant": "default",
    }
    assert config["source"].startswith("BEC-Pro (Bartl et al. 2020), BEC-Pro_EN.tsv")
    assert {Path(i["path"]).name for i in manifest["inputs"]} == {
        "language.toml",
        "professions.tsv",
        "persons.tsv",
        "templates.tsv",
    }
    assert all(len(i["sha256"]) == 64 for i in manifest["inputs"])
    run = read_run(out)
    assert len(run.candidates) == stats["kept"] == 5400
    assert list(run.rejected.columns) == [*run.candidates.columns, "reasons"]
    report = (out / "report.md").read_text()
    assert "| male | 900 | 900 | 1800 |" in report  # group × gender counts
    assert "gender_balance" in report and "en_indefinite_article" in report


def test_rerun_gives_identical_candidates(tmp_path):
    curate(Options(lang="es", variant="without_articles"), tmp_path / "a")
    curate(Options(lang="es", variant="without_articles"), tmp_path / "b")
    a = (tmp_path / "a" / "candidates.parquet").read_bytes()
    b = (tmp_path / "b" / "candidates.parquet").read_bytes()
    assert a == b


def test_existing_run_is_not_overwritten_without_asking(tmp_path):
    out = tmp_path / "run"
    curate(Options(lang="eu"), out)
    before = (out / "candidates.parquet").read_bytes()
    with pytest.raises(OutputExistsError, match="already exists"):
        curate(Options(lang="eu"), out)
    result = run_cli("curate", "becpro", "--lang", "eu", "--out", out, check=False)
    assert result.returncode == 2 and "already exists" in result.stderr
    assert (out / "candidates.parquet").read_bytes() == before


def test_crash_while_writing_leaves_no_run_and_keeps_the_old_one(tmp_path, monkeypatch):
    out = tmp_path / "run"
    curate(Options(lang="en"), out)
    old_manifest = (out / "manifest.json").read_text()

    def crash(*args, **kwargs):
        raise KeyboardInterrupt("killed while writing")

    monkeypatch.setattr(rundir, "write_text_atomic", crash)
    with pytest.raises(KeyboardInterrupt):
        curate(Options(lang="en"), out, overwrite=True)
    with pytest.raises(KeyboardInterrupt):
        curate(Options(lang="en"), tmp_path / "fresh")
    assert not (tmp_path / "fresh").exists()
    assert (out / "manifest.json").read_text() == old_manifest
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_tampered_run_is_refused(tmp_path):
    out = tmp_path / "run"
    curate(Options(lang="en"), out)
    with (out / "candidates.parquet").open("ab") as handle:
        handle.write(b"x")
    with pytest.raises(InputError, match="checksum differs"):
        read_run(out)
    (out / "manifest.json").unlink()
    with pytest.raises(InputError, match=r"manifest\.json is missing"):
        read_run(out)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.__setitem__("files", {}), "lists no files"),
        (lambda m: m["files"].pop("candidates.parquet"), "candidates.parquet: not listed"),
        (lambda m: m["files"].pop("rejected.parquet"), "rejected.parquet: not listed"),
    ],
)
def test_manifest_with_an_empty_or_incomplete_file_list_is_refused(tmp_path, edit, message):
    out = tmp_path / "run"
    curate(Options(lang="en"), out)
    edit_manifest(out, edit)
    with pytest.raises(InputError, match=message):
        read_run(out)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"files": {"candidates.parquet": "ab', "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_truncated_or_non_object_manifest_is_one_clear_line(tmp_path, text, message):
    out = tmp_path / "run"
    curate(Options(lang="en"), out)
    (out / "manifest.json").write_text(text)
    result = run_cli("export", "release", out, "--name", "x", "--version", "1.0.0",
                     "--unreviewed", "--out", tmp_path / "rel", check=False)  # fmt: skip
    line = one_error_line(result)
    assert message in line and "manifest.json" in line


def _lexicon_copy(tmp_path: Path) -> Path:
    target = tmp_path / "lexicon"
    shutil.copytree(default_lexicon_dir(), target)
    return target


@pytest.mark.parametrize(
    ("file", "edit", "message"),
    [
        (
            "professions.tsv",
            lambda lines: lines.__setitem__(5, lines[5].replace("male", "mle", 1)),
            r"professions.tsv:6: column 'group' must be one of",
        ),
        (
            "professions.tsv",
            lambda lines: lines.__setitem__(3, lines[3].replace("\t", " ", 1)),
            r"professions.tsv:4: expected 5 tab-separated fields, found 4",
        ),
        (
            "en/persons.tsv",
            lambda lines: lines.__setitem__(
                12, lines[12].replace("my sister\tsister", "my sister\tsis")
            ),
            r"persons.tsv:13: person word 'sis' is not a word of the phrase 'my sister'",
        ),
        (
            "en/templates.tsv",
            lambda lines: lines.__setitem__(
                2, lines[2].replace("{profession}", "{profession} and {profession}")
            ),
            r"templates.tsv:3: template must contain \{profession\} exactly once",
        ),
    ],
)
def test_bad_lexicon_line_is_named(tmp_path, file, edit, message):
    lexicon = _lexicon_copy(tmp_path)
    path = lexicon / file
    lines = path.read_text(encoding="utf-8").split("\n")
    edit(lines)
    path.write_text("\n".join(lines), encoding="utf-8")
    result = run_cli(
        "curate",
        "becpro",
        "--lang",
        "en",
        "--lexicon",
        lexicon,
        "--out",
        tmp_path / "run",
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: ")
    assert str(path) in result.stderr
    assert re.search(message, result.stderr), result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run").exists()


def test_invalid_language_and_variant_are_explained(tmp_path):
    result = run_cli("curate", "becpro", "--lang", "xx", "--out", tmp_path / "r", check=False)
    assert result.returncode == 2 and "unknown language 'xx'" in result.stderr
    result = run_cli(
        "curate",
        "becpro",
        "--lang",
        "en",
        "--variant",
        "with_articles",
        "--out",
        tmp_path / "r",
        check=False,
    )
    assert result.returncode == 2 and "has no variant 'with_articles'" in result.stderr


def test_written_files_follow_the_umask_like_a_plain_write(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        curate(Options(lang="en"), tmp_path / "run")
    finally:
        os.umask(old)
    assert (tmp_path / "run").stat().st_mode & 0o777 == 0o755
    for name in ("report.md", "stats.json", "manifest.json"):
        assert (tmp_path / "run" / name).stat().st_mode & 0o777 == 0o644, name
