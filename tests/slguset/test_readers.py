"""Corpus readers on real files: encodings, error locations, byte-range shards, datasets."""

import json

import pytest

from biasforge.curation.slguset.readers import ReadStats, plan_units, read_unit, units_for_rank
from biasforge.errors import InputError


def _read_all(units, **kwargs):
    records = []
    for unit in units:
        records += list(read_unit(unit, **kwargs))
    return records


def test_gb18030_file_reads_with_encoding(tmp_path):
    path = tmp_path / "gb.txt"
    path.write_bytes("他是老师。\n她是医生。\n".encode("gb18030"))
    records = _read_all(plan_units([str(path)]), encoding="gb18030")
    assert [(r.text, r.line) for r in records] == [("他是老师。", 1), ("她是医生。", 2)]


def test_undecodable_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes("好的。\n还行。\n".encode() + "坏的。\n".encode("gbk") + "好。\n".encode())
    with pytest.raises(InputError) as info:
        _read_all(plan_units([str(path)]))
    assert info.value.path == str(path)
    assert info.value.line == 3
    assert "gb18030" in str(info.value)


def test_undecodable_lines_skipped_and_counted_when_asked(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes("好的。\n".encode() + "坏的。\n".encode("gbk") + "好。\n".encode())
    stats = ReadStats()
    records = _read_all(plan_units([str(path)]), skip_bad_lines=True, stats=stats)
    assert [r.line for r in records] == [1, 3]
    assert stats.bad_lines == 1


def test_byte_range_shards_cover_every_line_once_with_true_line_numbers(tmp_path):
    path = tmp_path / "big.txt"
    lines = [f"第{i}行，他说{'长' * (i % 37)}。" for i in range(60000)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    units = plan_units([str(path)], world_size=3, chunk_bytes=200_000)
    assert len(units) > 3 and all(u.end > u.start for u in units)
    seen = []
    for rank in range(3):
        seen += _read_all(units_for_rank(units, rank, 3))
    by_line = sorted((r.line, r.text) for r in seen)
    assert by_line == [(i + 1, text) for i, text in enumerate(lines)]


def test_error_line_number_is_exact_inside_a_later_shard(tmp_path):
    path = tmp_path / "big.txt"
    good = "他在家里看书。\n".encode()
    data = good * 100000 + "坏的。\n".encode("gbk") + good * 10
    path.write_bytes(data)
    units = plan_units([str(path)], world_size=2, chunk_bytes=300_000)
    with pytest.raises(InputError) as info:
        _read_all(units[-2:])
    assert info.value.line == 100001


def test_jsonl_text_field_and_malformed_line(tmp_path):
    path = tmp_path / "c.jsonl"
    rows = [{"body": "他来了。"}, {"body": "她走了。"}]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n{oops\n")
    with pytest.raises(InputError) as info:
        _read_all(plan_units([str(path)]), text_field="body")
    assert info.value.line == 3
    records = _read_all(plan_units([str(path)]), text_field="body", skip_bad_lines=True)
    assert [r.text for r in records] == ["他来了。", "她走了。"]


def test_hugging_face_dataset_from_disk_sharded(tmp_path):
    import datasets

    texts = [f"第{i}句，他来了。" for i in range(25)]
    datasets.Dataset.from_dict({"text": texts}).save_to_disk(str(tmp_path / "ds"))
    units = plan_units([f"hf:{tmp_path / 'ds'}"], world_size=2)
    assert [u.shard for u in units] == [0, 1]
    records = _read_all(units)
    assert [r.text for r in records] == texts
    assert [r.line for r in records] == list(range(1, 26))


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError):
        plan_units([str(tmp_path / "nope.txt")])


def test_folder_corpus_expands_to_its_files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "1.txt").write_text("他来了。\n", encoding="utf-8")
    (tmp_path / "2.jsonl").write_text('{"text": "她走了。"}\n', encoding="utf-8")
    (tmp_path / "notes.md").write_text("ignored\n", encoding="utf-8")
    records = _read_all(plan_units([str(tmp_path)]))
    assert [r.text for r in records] == ["她走了。", "他来了。"]
    with pytest.raises(InputError):
        plan_units([str(_empty(tmp_path))])


def _empty(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    return folder


def test_encodings_that_break_line_splitting_are_refused(tmp_path):
    from biasforge.errors import BiasforgeError

    path = tmp_path / "u16.txt"
    path.write_text("他来了。\n", encoding="utf-16")
    with pytest.raises(BiasforgeError, match="ASCII-compatible"):
        _read_all(plan_units([str(path)]), encoding="utf-16")
    with pytest.raises(BiasforgeError, match="unknown encoding"):
        _read_all(plan_units([str(path)]), encoding="klingon")


def test_hugging_face_parquet_file(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "news.parquet"
    pq.write_table(pa.table({"body": ["他来了。", "她走了。"]}), path)
    records = _read_all(plan_units([f"hf:{path}"]), text_field="body")
    assert [(r.text, r.line) for r in records] == [("他来了。", 1), ("她走了。", 2)]


def test_a_line_longer_than_the_read_limit_is_streamed_in_sentence_pieces(tmp_path, monkeypatch):
    from biasforge.curation.slguset import readers

    monkeypatch.setattr(readers, "MAX_LINE_BYTES", 64)
    path = tmp_path / "one_line.txt"
    sentences = [f"他第{i}次说了一句很长的话。" for i in range(30)]
    path.write_bytes(("".join(sentences) + "\n第二行。\n").encode("gb18030"))
    records = _read_all(plan_units([str(path)]), encoding="gb18030")
    first = [r for r in records if r.line == 1]
    assert len(first) > 3 and [r.piece for r in first] == list(range(len(first)))
    assert "".join(r.text for r in first) == "".join(sentences)
    assert all(r.text.endswith("。") for r in first)
    assert [(r.text, r.line, r.piece) for r in records if r.line == 2] == [("第二行。", 2, 0)]
