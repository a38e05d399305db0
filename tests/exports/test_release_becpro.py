"""Releasing the bundled BEC-Pro runs (en + es + eu) as one dataset with one config each."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.conftest import run_cli


@pytest.fixture(scope="module")
def becpro_release(tmp_path_factory, becpro_runs):
    out = tmp_path_factory.mktemp("rel") / "releases"
    runs = list(becpro_runs.values())
    result = run_cli(
        "export", "release", *runs, "--name", "becpro", "--version", "1.0.0", "--out", out,
        "--unreviewed",
    )  # fmt: skip
    return out / "becpro" / "1.0.0", result


def test_runs_need_an_explicit_unreviewed(becpro_runs, tmp_path):
    result = run_cli(
        "export", "release", becpro_runs["en_default"], "--name", "b", "--version", "1.0.0",
        "--out", tmp_path, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "--unreviewed" in result.stderr and "not reviewed" in result.stderr
    assert not any(tmp_path.iterdir())


def test_one_config_per_language_and_variant(becpro_release, becpro_runs, tmp_path):
    from datasets import load_dataset

    path, result = becpro_release
    assert "released becpro 1.0.0" in result.stdout
    for config, run in becpro_runs.items():
        ds = load_dataset(str(path), name=config, split="test", cache_dir=str(tmp_path / config))
        import pyarrow.parquet as pq

        source = pq.read_table(run / "candidates.parquet")
        assert ds.num_rows == source.num_rows == 5400
        assert ds["id"] == source.column("id").to_pylist()  # same records, same order
        assert ds.features["person_span"]["start"].dtype == "int32"  # types kept


def test_release_keeps_the_published_tsv(becpro_release, becpro_runs, tmp_path):
    """The English config of the release converts to the same bytes as the run it came from."""
    path, _ = becpro_release
    from_run, from_release = tmp_path / "run.tsv", tmp_path / "release.tsv"
    run_cli(
        "export", "convert", becpro_runs["en_default"], "--format", "becpro-tsv", "--out", from_run
    )
    run_cli(
        "export", "convert", path / "en_default", "--format", "becpro-tsv", "--out", from_release
    )
    assert from_run.read_bytes() == from_release.read_bytes()


def test_card_and_manifest(becpro_release):
    from huggingface_hub import DatasetCard

    path, _ = becpro_release
    card = DatasetCard.load(path / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "cc-by-4.0"
    assert data["language"] == ["en", "es", "eu"]
    assert data["size_categories"] == ["10K<n<100K"]
    assert [c["config_name"] for c in data["configs"]] == [
        "en_default",
        "es_with_articles",
        "eu_default",
    ]
    # 5 templates x 20 professions x 9 person words per group and gender
    assert card.text.count("| male | 900 | 900 | 1800 |") == 3
    assert "not** reviewed" in card.text and "@inproceedings{bartl-etal-2020-unmasking" in card.text
    manifest = json.loads((path / "manifest.json").read_text())
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((path / rel).read_bytes()).hexdigest() == digest
    assert {i["manifest"]["config"]["language"] for i in manifest["inputs"]} == {"en", "es", "eu"}
    assert all(i["kind"] == "run" and i["rows_released"] == 5400 for i in manifest["inputs"])
