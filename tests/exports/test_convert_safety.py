"""`export convert` reads only verified folders and never writes over what is not its own
output: formats come from each family (CrowS-Pairs releases give the CrowS-Pairs CSV), the
input and every biasforge folder are off limits, and ``--overwrite`` replaces only an earlier
output of the same format (issue 24 part 1, issue 27 items 3 and 4)."""

from __future__ import annotations

import csv
import json
import shutil

import pandas as pd
import pytest

from tests.conftest import one_error_line, run_cli
from tests.helpers import edit_manifest, snapshot


@pytest.fixture(scope="session")
def crows_release(crowspairs_en):
    """A real CrowS-Pairs English run and its release, made by the commands (shared: read-only)."""
    return crowspairs_en["run"], crowspairs_en["release"]


def test_a_crowspairs_release_converts_to_the_crowspairs_csv(crows_release, tmp_path):
    _, release = crows_release
    out = tmp_path / "pairs.csv"
    result = run_cli("export", "convert", release, "--format", "crows-csv", "--out", out)
    released = pd.concat(pd.read_parquet(p) for p in sorted(release.glob("*/test.parquet")))
    assert f"wrote {len(released)} pairs" in result.stdout
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["", "sent_more", "sent_less", "stereo_antistereo", "bias_type", "id"]
    written = {r[5]: r[1:5] for r in rows[1:]}
    assert len(written) == len(released) > 50
    for item in released.itertuples():
        expected = [item.sent_more, item.sent_less, item.stereo_antistereo, item.bias_type]
        assert written[item.id] == expected
    # the source CSV's own pairs come out unchanged (the English baseline translates nothing)
    assert {"stereo", "antistereo"} == {r[2] for r in written.values()}


def test_convert_never_writes_into_its_input_or_a_biasforge_folder(crows_release, tmp_path):
    run, release = crows_release
    before = {"run": snapshot(run), "release": snapshot(release)}
    for out in (
        run / "candidates.parquet",  # a run's data
        run / "manifest.json",  # a run's manifest
        run / "pairs.csv",  # a new file inside a run
        release / "en" / "pairs.csv",  # inside a release (and inside the input)
    ):
        source = release if "releases" in str(out) else run
        result = run_cli(
            "export", "convert", source, "--format", "crows-csv", "--out", out, "--overwrite",
            check=False,
        )  # fmt: skip
        line = one_error_line(result)
        assert "lies in" in line and str(out) in line
    single = tmp_path / "items.parquet"
    shutil.copy(run / "candidates.parquet", single)
    result = run_cli(
        "export", "convert", single, "--format", "crows-csv", "--out", single, "--overwrite",
        check=False,
    )  # fmt: skip
    assert "lies in the input" in one_error_line(result)
    assert pd.read_parquet(single).shape[0] > 0  # still the parquet file
    assert {"run": snapshot(run), "release": snapshot(release)} == before


def test_overwrite_replaces_only_an_earlier_output_of_the_same_format(crows_release, tmp_path):
    _, release = crows_release
    out = tmp_path / "pairs.csv"
    convert = ("export", "convert", release, "--format", "crows-csv", "--out", out)
    run_cli(*convert)
    first = out.read_bytes()
    assert "already exists" in one_error_line(run_cli(*convert, check=False))
    run_cli(*convert, "--overwrite")  # our own earlier output: replaced
    assert out.read_bytes() == first

    out.write_text(out.read_text() + "my note\n")  # edited by the user: theirs now
    line = one_error_line(run_cli(*convert, "--overwrite", check=False))
    assert "changed since biasforge wrote it" in line
    assert out.read_text().endswith("my note\n")

    mine = tmp_path / "mine.csv"
    mine.write_text("my own file\n")  # never written by biasforge
    result = run_cli(*convert[:-1], mine, "--overwrite", check=False)
    assert "biasforge did not write it" in one_error_line(result)
    assert mine.read_text() == "my own file\n"

    marker = tmp_path / ".pairs.csv.biasforge.json"  # an output of another format
    data = json.loads(marker.read_text())
    out.write_bytes(first)
    marker.write_text(json.dumps({**data, "format": "stereoset-json", "sha256": data["sha256"]}))
    line = one_error_line(run_cli(*convert, "--overwrite", check=False))
    assert "holds 'stereoset-json', not 'crows-csv'" in line


def _copy(folder, tmp_path, name):
    target = tmp_path / name
    shutil.copytree(folder, target)
    return target


@pytest.mark.parametrize(
    ("what", "damage", "expected"),
    [
        ("release", lambda d: (d / "manifest.json").unlink(), "manifest.json is missing"),
        ("release", lambda d: _edit_parquet(next(d.glob("*/test.parquet"))), "checksum differs"),
        ("run", lambda d: _flip_byte(d / "candidates.parquet"), "checksum differs"),
        ("run", lambda d: (d / "manifest.json").unlink(), "manifest.json is missing"),
        (
            "run",
            lambda d: edit_manifest(d, lambda m: m.update(kind="score")),
            "kind 'score' holds no items",
        ),
        (
            "run",
            lambda d: edit_manifest(d, lambda m: m.update(family="nosuch")),
            "unknown family 'nosuch'",
        ),
        (
            "run",
            lambda d: edit_manifest(d, lambda m: m["files"].update({"../outside.txt": "0" * 64})),
            "a path outside the folder",
        ),
    ],
)
def test_convert_and_scoring_verify_what_they_read(crows_release, tmp_path, what, damage, expected):
    from biasforge.errors import InputError
    from biasforge.scoring.data import dataset_identity, load_items

    source = dict(zip(("run", "release"), crows_release, strict=True))[what]
    folder = _copy(source, tmp_path, what)
    damage(folder)
    result = run_cli(
        "export", "convert", folder, "--format", "crows-csv", "--out", tmp_path / "x.csv",
        check=False,
    )  # fmt: skip
    assert expected in one_error_line(result)
    assert not (tmp_path / "x.csv").exists()
    with pytest.raises(InputError, match=expected):
        load_items(str(folder), "crowspairs")
    with pytest.raises(InputError, match=expected):
        dataset_identity(str(folder))
    result = run_cli(
        "score", "crowspairs", "--dataset", folder, "--model", tmp_path / "no-model",
        "--out", tmp_path / "scores", check=False,
    )  # fmt: skip
    assert expected in one_error_line(result)


def test_a_reader_of_one_kind_refuses_a_manifest_of_another(crows_release, tmp_path):
    run = _copy(crows_release[0], tmp_path, "run")
    edit_manifest(run, lambda m: m.update(kind="release"))
    result = run_cli(
        "export", "release", run, "--unreviewed", "--name", "x", "--version", "1.0.0",
        "--out", tmp_path / "rel", check=False,
    )  # fmt: skip
    assert "kind is 'release', expected 'run'" in one_error_line(result)


def test_scoring_reads_a_verified_release_and_names_it(crows_release):
    from biasforge.errors import InputError
    from biasforge.scoring.data import dataset_identity, load_items

    _, release = crows_release
    released = pd.concat(pd.read_parquet(p) for p in sorted(release.glob("*/test.parquet")))
    assert sorted(load_items(str(release), "crowspairs")["id"]) == sorted(released["id"])
    with pytest.raises(InputError, match="holds crowspairs records, not stereoset"):
        load_items(str(release), "stereoset")
    identity = dataset_identity(str(release))
    assert (identity["name"], identity["version"], identity["kind"]) == (
        "crowspairs-en",
        "0.1.0",
        "release",
    )
    manifest = json.loads((release / "manifest.json").read_text())
    assert identity["files"] == {
        name: digest for name, digest in manifest["files"].items() if name.endswith(".parquet")
    }


def _edit_parquet(path):
    pd.read_parquet(path).assign(sent_more="edited").to_parquet(path)


def _flip_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_format_option_goes_to_its_own_format_only(crows_release, becpro_run, tmp_path):
    """Issue 46, item 2: --masking is BEC-Pro's TSV option, declared by that format; another
    format refuses it in one line, before anything is read or written."""
    _, release = crows_release
    out = tmp_path / "pairs.csv"
    refused = run_cli(
        "export", "convert", release, "--format", "crows-csv", "--masking", "spans", "--out", out,
        check=False,
    )  # fmt: skip
    assert one_error_line(refused) == "error: --masking is not an option of --format crows-csv"
    assert not out.exists()
    spans = run_cli("export", "convert", becpro_run, "--format", "becpro-tsv",
                    "--masking", "spans", "--out", tmp_path / "spans.tsv")  # fmt: skip
    assert "(spans masking;" in spans.stdout
