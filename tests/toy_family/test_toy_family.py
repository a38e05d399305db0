"""Adding a family is one module plus its data: a toy fifth family, installed through the
``biasforge.families`` entry-point group, goes through ``curate toy`` → push (real embedded
server) → pull → ``export release`` → ``export convert --format toy-tsv`` → ``datasets``, with
no line of it outside this folder."""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from biasforge import families
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_run
from biasforge.annotation.review.registry import remember_run
from tests.annotation.test_families import answer_as_owner
from tests.conftest import one_error_line
from tests.toy_family.conftest import run_cli


def test_the_commands_list_the_families_of_the_registry(toy_installed):
    curate = run_cli("curate", "--help").stdout
    for name in ("becpro", "crowspairs", "slguset", "stereoset", "toy"):
        assert name in curate
    assert "one punctuation rule" in run_cli("curate", "toy", "--help").stdout
    convert = run_cli("export", "convert", "--help").stdout
    assert "toy-tsv" in convert and "crows-csv" in convert


def test_a_family_whose_command_cannot_load_breaks_no_other_command(toy_installed):
    info = toy_installed / "biasforge_broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: biasforge-broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[biasforge.families]\nbroken = tests.toy_family.broken:BROKEN\n"
    )
    assert "toy" in run_cli("curate", "--help").stdout
    line = one_error_line(run_cli("curate", "broken", check=False))
    assert "curate broken is unavailable" in line and "no_such_module" in line


def test_a_toy_family_goes_from_curation_to_a_loaded_dataset(server, tmp_path, toy_installed):
    from datasets import load_dataset

    run = tmp_path / "run"
    assert "toy: 4 kept, 1 rejected" in run_cli("curate", "toy", "--out", run).stdout
    candidates = pd.read_parquet(run / "candidates.parquet")
    assert sorted(candidates["id"]) == ["t1", "t2", "t3", "t5"]  # t4 has no final punctuation
    assert list(pd.read_parquet(run / "rejected.parquet")["id"]) == ["t4"]

    connection = find_server(server.data_dir)
    pushed = push_run(run, "toy", connection, min_submitted=1, progress=False)
    assert pushed.created == 4
    remember_run(connection.url, connection.workspace, "toy", run)
    answers = {"t1": "yes", "t2": "yes", "t3": "no", "t5": "yes"}
    answer_as_owner(connection, pushed.dataset_id, {k: {"natural": v} for k, v in answers.items()})

    pull("toy", tmp_path / "reviewed", connection)
    reviewed = pd.read_parquet(tmp_path / "reviewed" / "reviewed.parquet").set_index("id")
    assert reviewed["decision"].to_dict() == {
        "t1": "accept",
        "t2": "accept",
        "t3": "reject",
        "t5": "accept",
    }

    run_cli(
        "export", "release", tmp_path / "reviewed", "--name", "toy", "--version", "1.0.0",
        "--out", tmp_path / "rel",
    )  # fmt: skip
    release = tmp_path / "rel" / "toy" / "1.0.0"
    card = (release / "README.md").read_text()
    assert "Toy requests" in card and "cc0-1.0" in card and "| formal |" in card

    out = tmp_path / "toy.tsv"
    result = run_cli("export", "convert", release, "--format", "toy-tsv", "--out", out)
    assert "wrote 3 toy items" in result.stdout
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows == [
        ["id", "register", "sentence"],
        ["t1", "formal", "Could you please send me the report?"],
        ["t2", "informal", "Send me the report, will you?"],
        ["t5", "formal", "I would be grateful for your reply."],
    ]
    refused = run_cli(
        "export", "convert", release, "--format", "becpro-tsv", "--out", tmp_path / "b.tsv",
        check=False,
    )  # fmt: skip
    assert refused.returncode == 2 and "formats for toy: toy-tsv" in refused.stderr

    # own cache: datasets caches a local folder by its name ("1.0.0") and config
    loaded = load_dataset(
        str(release), name="default", split="test", cache_dir=str(tmp_path / "hf")
    )
    assert sorted(loaded["id"]) == ["t1", "t2", "t5"]
    assert set(loaded["register"]) == {"formal", "informal"}


def test_an_unregistered_family_is_named_in_one_clear_error(tmp_path, toy_installed):
    run = tmp_path / "run"
    run_cli("curate", "toy", "--out", run)
    families.unregister("toy")  # as if the package were uninstalled
    from biasforge.errors import BiasforgeError
    from biasforge.exports.release import make_release

    known = ", ".join(families.names())  # the built-in families, whichever they are
    with pytest.raises(BiasforgeError, match=f"unknown family 'toy'; known: {known}$"):
        make_release([run], name="toy", version="1.0.0", out=tmp_path / "rel", unreviewed=True)
