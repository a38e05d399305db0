"""Adding a family is one module plus its data: a toy fourth family, registered at run time,
goes through curate → push (real embedded server) → pull → release → ``datasets``."""

from __future__ import annotations

import pandas as pd
import pytest

from biasforge import families
from biasforge.annotation.connection import find_server
from biasforge.annotation.pull import pull
from biasforge.annotation.push import push_run
from biasforge.annotation.registry import remember_run
from biasforge.exports.release import make_release
from tests.annotation.test_families import answer_as_owner
from tests.toy_family import FAMILY, Options, curate


@pytest.fixture
def toy_registered():
    families.register(FAMILY)
    yield FAMILY
    families.unregister(FAMILY.name)


def test_a_toy_family_goes_from_curation_to_a_loaded_dataset(server, tmp_path, toy_registered):
    from datasets import load_dataset

    run = curate(Options(), tmp_path / "run").path
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

    release = make_release(
        [tmp_path / "reviewed"], name="toy", version="1.0.0", out=tmp_path / "rel"
    )
    assert release.configs == {"default": 3}
    card = (release.path / "README.md").read_text()
    assert "Toy requests" in card and "cc0-1.0" in card and "| formal |" in card

    # own cache: datasets caches a local folder by its name ("1.0.0") and config
    loaded = load_dataset(
        str(release.path), name="default", split="test", cache_dir=str(tmp_path / "hf")
    )
    assert sorted(loaded["id"]) == ["t1", "t2", "t5"]
    assert set(loaded["register"]) == {"formal", "informal"}


def test_an_unregistered_family_is_named_in_one_clear_error(tmp_path):
    from biasforge.errors import BiasforgeError

    families.register(FAMILY)
    try:
        run = curate(Options(), tmp_path / "run").path
    finally:
        families.unregister(FAMILY.name)
    with pytest.raises(
        BiasforgeError, match="unknown family 'toy'; known: becpro, crowspairs, slguset, stereoset"
    ):
        make_release([run], name="toy", version="1.0.0", out=tmp_path / "rel", unreviewed=True)
