"""Releasing reviewed StereoSet records: round-trip through `datasets`, card, changelog."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pytest

from tests.conftest import run_cli
from tests.exports.builders import write_reviewed

AGREEMENT = {  # as `annotate pull` writes it
    "dataset": "stereoset-en",
    "policy": "majority",
    "min_submitted": 3,
    "questions": {
        "valid": {
            "items": 4000,
            "answers": 12000,
            "annotators": 3,
            "krippendorff_alpha": 0.7123,
            "fleiss_kappa": 0.6891,
            "fleiss_items": 4000,
            "percent_unanimous": 81.25,
            "rated_items": 4000,
            "per_annotator": {"alice": {"items": 4000, "pairwise_agreement": 0.9}},
        }
    },
    "decisions": {"accept": 3500, "reject": 400, "pending": 329},
}


def decisions_for(n: int) -> list[str]:
    """A fixed mix of decisions: every 10th item rejected, every 17th left pending."""
    return ["reject" if i % 10 == 3 else "pending" if i % 17 == 5 else "accept" for i in range(n)]


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def first_release(tmp_path_factory, stereoset_candidates, stereoset_run):
    root = tmp_path_factory.mktemp("rel")
    decisions = decisions_for(stereoset_candidates.num_rows)
    reviewed = write_reviewed(
        root / "reviewed-v1", stereoset_candidates, decisions, AGREEMENT, run=stereoset_run
    )
    out = root / "releases"
    result = run_cli(
        "export", "release", reviewed, "--name", "stereoset-en", "--version", "1.0.0", "--out", out
    )
    return {
        "root": root,
        "out": out,
        "path": out / "stereoset-en" / "1.0.0",
        "decisions": decisions,
        "stdout": result.stdout,
    }


def accepted(candidates: pa.Table, decisions: list[str]) -> list[dict]:
    return [r for r, d in zip(candidates.to_pylist(), decisions, strict=True) if d == "accept"]


def test_release_round_trips_through_datasets(first_release, stereoset_candidates, tmp_path):
    from datasets import load_dataset

    path = first_release["path"]
    assert sorted(p.name for p in path.iterdir()) == [
        "CHANGELOG.md",
        "README.md",
        "intersentence",
        "intrasentence",
        "manifest.json",
    ]
    want = accepted(stereoset_candidates, first_release["decisions"])
    want_by_split = defaultdict(dict)
    for row in want:
        want_by_split[row["split"]][row["id"]] = row
    for split in ("intrasentence", "intersentence"):
        by_files = load_dataset(
            "parquet",
            data_files={"test": str(path / split / "test.parquet")},
            split="test",
            cache_dir=str(tmp_path / "cache"),
        )
        by_card = load_dataset(str(path), name=split, split="test", cache_dir=str(tmp_path / "c2"))
        for ds in (by_files, by_card):
            rows = {r["id"]: r for r in ds}
            assert set(rows) == set(want_by_split[split])  # exactly the accepted records
            assert len(rows) == ds.num_rows  # no duplicates
        sample = next(iter(want_by_split[split]))
        got = {r["id"]: r for r in by_card}[sample]
        expected = want_by_split[split][sample]
        assert got["sentences"] == expected["sentences"]
        assert got["context"] == expected["context"] and "decision" not in got


def test_manifest_checksums_every_file(first_release):
    path = first_release["path"]
    manifest = json.loads((path / "manifest.json").read_text())
    on_disk = {k: v for k, v in tree_digest(path).items() if k != "manifest.json"}
    assert manifest["files"] == on_disk
    assert manifest["version"] == "1.0.0" and manifest["previous_version"] is None
    (source,) = manifest["inputs"]
    assert source["kind"] == "reviewed"
    assert source["decisions"] == {
        d: first_release["decisions"].count(d) for d in ("accept", "pending", "reject")
    }
    assert source["manifest"]["dataset"] == "reviewed-v1"  # the input's own manifest


def test_card_yaml_parses_and_states_the_facts(first_release, stereoset_candidates):
    from huggingface_hub import DatasetCard

    path = first_release["path"]
    card = DatasetCard.load(path / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "cc-by-sa-4.0"
    assert data["language"] == ["en"]
    assert data["version"] == "1.0.0"
    assert data["size_categories"] == ["1K<n<10K"]
    assert "StereoSet" in data["pretty_name"] and data["task_categories"]
    assert data["configs"] == [
        {
            "config_name": split,
            "data_files": [{"split": "test", "path": f"{split}/test.parquet"}],
        }
        for split in ("intrasentence", "intersentence")
    ]
    # Table 1 of the French paper, recomputed here from the accepted rows.
    want = accepted(stereoset_candidates, first_release["decisions"])
    for domain in ("gender", "profession", "race", "religion"):
        cells = []
        for split in ("intrasentence", "intersentence"):
            rows = [r for r in want if r["split"] == split and r["bias_type"] == domain]
            cells += [len({r["target"] for r in rows}), len(rows)]
        assert f"| {domain} | {' | '.join(map(str, cells))} |" in card.text
    # agreement figures, each with the items it used
    assert "| valid | 4000 | 3 | 0.712 (4000) | 0.689 (4000) | 81.2 (4000) |" in card.text
    assert "Decision policy: majority, at least 3 answers per record." in card.text
    assert "alice" not in card.text  # per-annotator figures stay private
    assert "| one_blank | reject | exactly one BLANK | 4229 | 2 removed |" in card.text
    assert "| identical_but_attribute | 2104 |" in card.text  # the run's structure counts
    assert "stereoset_dev_en.jsonl" in card.text  # the source, from the run's manifest
    assert "@inproceedings{nadeem-etal-2021-stereoset" in card.text
    assert "## Known limits" in card.text


def test_same_version_twice_fails_cleanly(first_release):
    path = first_release["path"]
    before = tree_digest(path.parent)
    result = run_cli(
        "export", "release", first_release["root"] / "reviewed-v1",
        "--name", "stereoset-en", "--version", "1.0.0", "--out", first_release["out"],
        check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "already exists" in result.stderr and "Traceback" not in result.stderr
    assert tree_digest(path.parent) == before  # nothing touched, no staging folder left


def test_exist_ok_accepts_only_the_identical_release(first_release, stereoset_candidates):
    path = first_release["path"]
    before = tree_digest(path.parent)
    same = run_cli(
        "export", "release", first_release["root"] / "reviewed-v1",
        "--name", "stereoset-en", "--version", "1.0.0", "--out", first_release["out"],
        "--exist-ok",
    )  # fmt: skip
    assert "already released with these records" in same.stdout
    decisions = ["accept"] * 5 + ["reject"] * (stereoset_candidates.num_rows - 5)
    other = write_reviewed(
        first_release["root"] / "reviewed-other", stereoset_candidates, decisions
    )
    different = run_cli(
        "export", "release", other, "--name", "stereoset-en", "--version", "1.0.0",
        "--out", first_release["out"], "--exist-ok", check=False,
    )  # fmt: skip
    assert different.returncode == 2 and "different records" in different.stderr
    assert tree_digest(path.parent) == before


@pytest.mark.parametrize("bad", ["1.0", "v1.0.0", "1.0.0+build", "01.0.0"])
def test_invalid_versions_are_refused(first_release, bad, tmp_path):
    result = run_cli(
        "export", "release", first_release["root"] / "reviewed-v1",
        "--name", "x", "--version", bad, "--out", tmp_path, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "invalid version" in result.stderr
    assert not any(tmp_path.iterdir())


def _section(text: str, title: str) -> set[str]:
    body = text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^- `([0-9a-f]+)`", body, flags=re.M))


def test_second_version_changelog_lists_exactly_the_changes(first_release, stereoset_candidates):
    rows = stereoset_candidates.to_pylist()
    decisions = list(first_release["decisions"])
    accepted_idx = [i for i, d in enumerate(decisions) if d == "accept"]
    pending_idx = [i for i, d in enumerate(decisions) if d == "pending"]
    removed = [accepted_idx[0], accepted_idx[50], accepted_idx[-1]]
    added = pending_idx[:2]
    changed = [accepted_idx[10], accepted_idx[1000]]
    for i in removed:
        decisions[i] = "reject"
    for i in added:
        decisions[i] = "accept"
    for i in changed:  # a reviewer corrected the unrelated option
        sentences = [dict(s) for s in rows[i]["sentences"]]
        for s in sentences:
            if s["label"] == "unrelated":
                prefix, _, suffix = rows[i]["context"].partition("BLANK")
                word = "teapot"
                s["attribute"] = (
                    word if rows[i]["split"] == "intrasentence" else s["sentence"] + "!"
                )
                s["sentence"] = (
                    prefix + word + suffix
                    if rows[i]["split"] == "intrasentence"
                    else s["attribute"]
                )
        rows[i] = dict(rows[i], sentences=sentences)
    table = pa.Table.from_pylist(rows, schema=stereoset_candidates.schema)
    reviewed2 = write_reviewed(first_release["root"] / "reviewed-v2", table, decisions, AGREEMENT)
    run_cli(
        "export", "release", reviewed2, "--name", "stereoset-en", "--version", "1.1.0",
        "--out", first_release["out"],
    )  # fmt: skip
    path = first_release["out"] / "stereoset-en" / "1.1.0"
    text = (path / "CHANGELOG.md").read_text()
    ids = [r["id"] for r in rows]
    assert _section(text, "Added") == {ids[i] for i in added}
    assert _section(text, "Removed") == {ids[i] for i in removed}
    assert _section(text, "Changed") == {ids[i] for i in changed}
    n_new = decisions.count("accept")
    assert (
        f"Changes from 1.0.0 to 1.1.0: 2 added, 3 removed, 2 changed, {n_new - 4} unchanged."
        in text
    )
    assert "| sentences | 2 |" in text  # the field that changed
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["previous_version"] == "1.0.0"
    assert manifest["changes"] == {
        "added": 2, "removed": 3, "changed": 2, "unchanged": n_new - 4,
    }  # fmt: skip


def test_convert_a_release_to_stereoset_json(first_release, stereoset_candidates, tmp_path):
    out = tmp_path / "release.json"
    run_cli("export", "convert", first_release["path"], "--format", "stereoset-json", "--out", out)
    document = json.loads(out.read_text())
    assert document["version"] == "stereoset-en-1.0.0"
    ids = {e["id"] for split in document["data"].values() for e in split}
    assert ids == {r["id"] for r in accepted(stereoset_candidates, first_release["decisions"])}


def test_convert_refuses_a_tampered_release(first_release, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(first_release["path"], copy)
    (copy / "CHANGELOG.md").write_text("edited\n")
    result = run_cli(
        "export", "convert", copy, "--format", "stereoset-json", "--out", tmp_path / "x.json",
        check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "checksum differs" in result.stderr
