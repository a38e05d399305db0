"""The dataset reader accepts a release folder, a config folder, a run folder or one file, each
verified through the contract."""

from __future__ import annotations

import pytest

from biasforge.errors import InputError
from biasforge.scoring.data import load_items
from tests.conftest import write_unchecked_run
from tests.scoring.conftest import stereoset_items, stereoset_release


def test_release_config_run_and_file_layouts(tmp_path):
    items = stereoset_items()
    release = stereoset_release(items, tmp_path)
    assert len(load_items(str(release), "stereoset")) == 8
    assert set(load_items(str(release / "intrasentence"), "stereoset")["split"]) == {
        "intrasentence"
    }
    assert len(load_items(str(release / "intersentence" / "test.parquet"), "stereoset")) == 3
    run = write_unchecked_run(tmp_path / "run", items.to_dict(orient="records"), "stereoset")
    assert len(load_items(str(run), "stereoset")) == 8


def test_wrong_family_duplicates_and_empty_folder(tmp_path):
    items = stereoset_items()
    path = tmp_path / "x.parquet"
    items.to_parquet(path, index=False)
    with pytest.raises(InputError, match="missing columns"):
        load_items(str(path), "becpro")
    dup = tmp_path / "dup.parquet"
    items.assign(id="same").to_parquet(dup, index=False)
    with pytest.raises(InputError, match="duplicate item id"):
        load_items(str(dup), "stereoset")
    (tmp_path / "empty").mkdir()  # a folder without a manifest is no biasforge folder
    with pytest.raises(InputError, match=r"manifest.json is missing"):
        load_items(str(tmp_path / "empty"), "stereoset")
