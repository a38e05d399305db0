"""Schema checks run before anything is written, and name the offending record."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biasforge.errors import BiasforgeError, InputError
from biasforge.exports.release import make_release
from tests.exports.builders import write_reviewed


def _edit(table: pa.Table, index: int, **changes) -> tuple[pa.Table, str]:
    rows = table.to_pylist()
    rows[index] = {**rows[index], **changes}
    return pa.Table.from_pylist(rows, schema=table.schema), rows[index]["id"]


def _first(table: pa.Table, split: str) -> int:
    return table.column("split").to_pylist().index(split)


def _release(tmp_path, table, name="bad", **kwargs):
    reviewed = write_reviewed(tmp_path / f"in-{name}", table, ["accept"] * table.num_rows)
    return make_release([reviewed], name=name, version="1.0.0", out=tmp_path / "rel", **kwargs)


def test_two_stereotypes_name_the_record(tmp_path, stereoset_candidates):
    i = _first(stereoset_candidates, "intrasentence")
    sentences = [dict(s) for s in stereoset_candidates.column("sentences")[i].as_py()]
    sentences[2]["label"] = "stereotype"
    table, rid = _edit(stereoset_candidates, i, sentences=sentences)
    with pytest.raises(InputError) as err:
        _release(tmp_path, table)
    assert err.value.record == rid and "exactly one stereotype" in str(err.value)
    assert not (tmp_path / "rel" / "bad").exists()  # nothing written


def test_sentence_differing_outside_the_attribute(tmp_path, stereoset_candidates):
    i = _first(stereoset_candidates, "intrasentence")
    sentences = [dict(s) for s in stereoset_candidates.column("sentences")[i].as_py()]
    sentences[0]["sentence"] = "Honestly, " + sentences[0]["sentence"]
    table, rid = _edit(stereoset_candidates, i, sentences=sentences)
    with pytest.raises(InputError) as err:
        _release(tmp_path, table)
    assert err.value.record == rid and "differ only at the attribute" in str(err.value)


def test_span_outside_its_sentence(tmp_path, becpro_runs):
    table = pq.read_table(becpro_runs["eu_default"] / "candidates.parquet")
    row = table.slice(7, 1).to_pylist()[0]
    end = len(row["sentence"]) + 3
    table, rid = _edit(table, 7, profession_span={"start": 0, "end": end})
    with pytest.raises(InputError) as err:
        _release(tmp_path, table)
    assert err.value.record == rid and "outside the sentence" in str(err.value)


def test_duplicate_ids_across_inputs(tmp_path, stereoset_candidates):
    a = write_reviewed(tmp_path / "a", stereoset_candidates.slice(0, 30), ["accept"] * 30)
    b = write_reviewed(tmp_path / "b", stereoset_candidates.slice(20, 30), ["accept"] * 30)
    with pytest.raises(InputError) as err:
        make_release([a, b], name="dup", version="1.0.0", out=tmp_path / "rel")
    assert err.value.record == stereoset_candidates.column("id")[20].as_py()
    assert "duplicate id" in str(err.value)


def test_skip_invalid_leaves_out_and_lists(tmp_path, stereoset_candidates):
    i = _first(stereoset_candidates, "intrasentence")
    table, rid = _edit(stereoset_candidates, i, context="no slot here")
    result = _release(tmp_path, table, name="skip", skip_invalid=True)
    manifest = json.loads((result.path / "manifest.json").read_text())
    assert [s["record"] for s in manifest["skipped"]] == [rid] * len(manifest["skipped"])
    assert "exactly one BLANK" in manifest["skipped"][0]["problem"]
    released = pq.read_table(result.path / "intrasentence" / "test.parquet").column("id")
    assert rid not in released.to_pylist()
    assert sum(result.configs.values()) == stereoset_candidates.num_rows - 1
    assert "1 records failed the release's schema checks" in (result.path / "README.md").read_text()


def test_one_family_per_release(tmp_path, stereoset_candidates, becpro_runs):
    a = write_reviewed(tmp_path / "a", stereoset_candidates.slice(0, 5), ["accept"] * 5)
    with pytest.raises(BiasforgeError, match="one family"):
        make_release(
            [a, becpro_runs["en_default"]],
            name="mix",
            version="1.0.0",
            out=tmp_path / "rel",
            unreviewed=True,
        )
