"""A release refuses what breaks the family's contract: wrong values, wrong types, a manifest
that does not cover the files. Each refusal is one line naming the record and column."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tests.conftest import one_error_line, run_cli, write_unchecked_run


@pytest.fixture(scope="module")
def becpro_rows(tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("becpro") / "run"
    run_cli("curate", "becpro", "--lang", "en", "--out", out)
    return pq.read_table(out / "candidates.parquet").slice(0, 40).to_pylist()


def _release(tmp_path, run):
    return run_cli(
        "export", "release", run, "--name", "b", "--version", "1.0.0", "--unreviewed",
        "--out", tmp_path / "releases", check=False,
    )  # fmt: skip


def test_a_gender_outside_the_allowed_values_is_refused(tmp_path, becpro_rows):
    rows = [dict(r, gender="robot") if i % 2 else r for i, r in enumerate(becpro_rows)]
    line = one_error_line(_release(tmp_path, write_unchecked_run(tmp_path / "run", rows, "becpro")))
    assert f"(record {rows[1]['id']})" in line
    assert "column gender" in line and "'robot'" in line and "male, female" in line
    assert not (tmp_path / "releases" / "b").exists()


def test_a_profession_group_outside_the_allowed_values_is_refused(tmp_path, becpro_rows):
    rows = [dict(becpro_rows[0], profession_group="neutral"), *becpro_rows[1:]]
    line = one_error_line(_release(tmp_path, write_unchecked_run(tmp_path / "run", rows, "becpro")))
    assert f"(record {rows[0]['id']})" in line and "column profession_group" in line


def test_a_numeric_column_holding_text_is_refused(tmp_path, becpro_rows):
    run = write_unchecked_run(tmp_path / "run", becpro_rows, "becpro")
    table = pq.read_table(run / "candidates.parquet")
    text = table.column("pct_women").cast("string")
    table = table.set_column(table.schema.get_field_index("pct_women"), "pct_women", text)
    pq.write_table(table, run / "candidates.parquet")
    manifest = json.loads((run / "manifest.json").read_text())
    from biasforge.files import sha256_file

    manifest["files"]["candidates.parquet"] = sha256_file(run / "candidates.parquet")
    (run / "manifest.json").write_text(json.dumps(manifest))
    line = one_error_line(_release(tmp_path, run))
    assert "column pct_women" in line and "type string, expected double" in line
    assert f"(record {becpro_rows[0]['id']})" in line


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda files: files.clear(), "lists no files"),
        (lambda files: files.pop("candidates.parquet"), "candidates.parquet: not listed"),
        (lambda files: files.pop("stats.json"), "stats.json: not listed"),
    ],
)
def test_a_manifest_with_an_empty_or_incomplete_file_list_is_refused(
    tmp_path, becpro_rows, edit, expected
):
    run = write_unchecked_run(tmp_path / "run", becpro_rows, "becpro")
    manifest = json.loads((run / "manifest.json").read_text())
    edit(manifest["files"])
    (run / "manifest.json").write_text(json.dumps(manifest))
    line = one_error_line(_release(tmp_path, run))
    assert expected in line


def test_an_edited_sentence_with_an_emptied_file_list_is_not_released(tmp_path, becpro_rows):
    rows = [
        dict(becpro_rows[0], sentence=becpro_rows[0]["sentence"] + " TAMPERED"),
        *becpro_rows[1:],
    ]
    run = write_unchecked_run(tmp_path / "run", rows, "becpro")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["files"] = {}
    (run / "manifest.json").write_text(json.dumps(manifest))
    one_error_line(_release(tmp_path, run))
    assert not (tmp_path / "releases" / "b").exists()
