"""Issue 37, items 6 and 7 (scoring): the last two scoring tracebacks become one line naming
the file — a release whose ``context`` column was dropped from one config (manifest re-hashed),
a GBK-encoded ``--nsp-corpus`` — and SlguSet scored with a model whose vocabulary has no
Chinese says so: a warning on stderr, kept in ``models.json`` and the report.

Why a warning and not a refusal: models are loaded and scored one at a time, so a refusal at
the second model of a run would throw away the first one's work; a vocabulary that knows some
keywords still measures those pairs (the per-pair table shows which); and the figures stay
reproducible. The warning names the share of the release's keyword words the tokenizer reads
as its unknown token and those words, so a reader of the report knows which Bias_c compare
unknown tokens rather than words."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import one_error_line, run_cli
from tests.helpers import remanifest, write_release
from tests.scoring.conftest import (  # noqa: F401  (zh_bert: a fixture)
    stereoset_items,
    stereoset_release,
    zh_bert,
)
from tests.scoring.test_slguset_becpro import slguset_items


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return stereoset_release(stereoset_items(), tmp_path_factory.mktemp("ss"))


def _edited(release: Path, folder: Path, edit) -> Path:
    copy = Path(shutil.copytree(release, folder / "edited"))
    path = copy / "intrasentence" / "test.parquet"
    pq.write_table(edit(pq.read_table(path)), path)
    remanifest(copy)  # checksums agree: only the reader's checks can see it
    return copy


def _no_context(table: pa.Table) -> pa.Table:
    return table.drop_columns(["context"])


def _null_context(table: pa.Table) -> pa.Table:
    contexts = table.column("context").to_pylist()
    contexts[1] = None
    index = table.schema.get_field_index("context")
    return table.set_column(index, "context", pa.array(contexts, pa.string()))


@pytest.mark.parametrize(
    ("edit", "expect"),
    [
        (_no_context, "intrasentence/test.parquet: not a stereoset dataset: missing columns "),
        (_null_context, "(record intra1): intrasentence context has no BLANK"),
    ],
    ids=["column-dropped-from-one-config", "one-context-null"],
)
@pytest.mark.parametrize("dataset", ["release", "config"])
def test_a_release_without_contexts_is_one_line(
    release,
    tiny_models,
    tmp_path,
    edit,
    expect,
    dataset,
):
    edited = _edited(release, tmp_path, edit)
    given = edited if dataset == "release" else edited / "intrasentence"
    out = tmp_path / "scores"
    result = run_cli("score", "stereoset", "--dataset", given, "--model", tiny_models["masked"],
                     "--out", out, "--no-progress", check=False)  # fmt: skip
    line = one_error_line(result)
    assert expect in line, line
    if edit is _no_context:
        assert f"{edited}/intrasentence/test.parquet" in line and line.endswith("context")
    assert not out.exists()


# ------------------------------------------------------------------ NSP corpus encoding

GBK_CORPUS = "他是一个好人。\n她也是。\n\n今天天气很好。\n我们去公园。\n"


def _nsp(release: Path, model: str, corpus: Path, out: Path, *extra: str):
    return run_cli("score", "stereoset", "--dataset", release, "--model", model, "--out", out,
                   "--split", "intersentence", "--nsp-train", "head", "--nsp-corpus", corpus,
                   "--nsp-steps", "5", "--bootstrap", "0", "--no-progress", *extra,
                   check=False)  # fmt: skip


def test_a_gbk_nsp_corpus_is_one_line_with_the_encoding_option(
    release,
    tiny_models,
    tmp_path,
):
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(("first line\n" + GBK_CORPUS).encode("gbk"))
    out = tmp_path / "scores"
    line = one_error_line(_nsp(release, tiny_models["causal"], corpus, out))
    assert f"{corpus}:2: not valid utf-8 at byte 11" in line
    assert "pass --nsp-encoding with the file's encoding" in line
    assert not out.exists()
    done = _nsp(release, tiny_models["causal"], corpus, out, "--nsp-encoding", "gbk")
    assert done.returncode == 0, done.stderr
    assert (out / "tiny-gpt2" / "nsp_head.pt").is_file()


@pytest.mark.parametrize(
    ("make", "expect"),
    [
        (lambda d: d, "a folder, not a file"),
        (lambda d: d / "nowhere.txt", "no such file"),
        (
            lambda d: d / "empty.txt",
            "NSP corpus needs documents with at least two consecutive sentences",
        ),
    ],
    ids=["folder", "missing", "empty"],
)
def test_a_bad_nsp_corpus_is_refused_before_any_model_is_loaded(release, tmp_path, make, expect):
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    corpus = make(tmp_path)
    out = tmp_path / "scores"
    line = one_error_line(_nsp(release, "no-such-model-is-loaded", corpus, out))
    assert f"{corpus}: {expect}" in line
    assert not out.exists()


def test_an_unknown_nsp_encoding_is_one_line(release, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(GBK_CORPUS, encoding="utf-8")
    result = _nsp(release, "unloaded", corpus, tmp_path / "o", "--nsp-encoding", "klingon")
    assert "--nsp-encoding: unknown encoding 'klingon'" in one_error_line(result)


# ------------------------------------------------------------------ SlguSet vocabulary


@pytest.fixture(scope="module")
def slguset_release(tmp_path_factory) -> Path:
    return write_release(slguset_items(), tmp_path_factory.mktemp("slg"), "slg", "1.0.0",
                         by="language")  # fmt: skip


def test_slguset_with_a_vocabulary_without_chinese_warns_and_records_it(
    slguset_release,
    tiny_models,
    zh_bert,  # noqa: F811
    tmp_path,
):
    out = tmp_path / "scores"
    result = run_cli("score", "slguset", "--dataset", slguset_release, "--model",
                     tiny_models["masked"], "--model", zh_bert, "--out", out, "--no-progress",
                     "--bootstrap", "10")  # fmt: skip
    words = "丈夫, 他, 女, 她, 妻子, 母亲, 父亲, 男"
    warning = (
        f"warning: tiny-bert: 8 of 8 keyword words ({words}) are unknown to the tokenizer: "
        "Bias_c of their sentences compares unknown tokens, not the words"
    )
    assert [line for line in result.stderr.splitlines() if "warning" in line] == [
        warning + " (a vocabulary without Chinese?)"
    ]
    models = {m["name"]: m for m in json.loads((out / "models.json").read_text("utf-8"))}
    assert models["tiny-bert"]["unknown_keywords"].startswith("8 of 8 keyword words")
    assert "unknown_keywords" not in models["zh-bert"]  # its vocabulary holds every keyword
    # what the warning says: with every keyword unknown, Bias_c is 0 whatever the model
    rows = pd.read_csv(out / "sentences.csv")
    assert (rows.loc[rows["model"] == "tiny-bert", "bias"] == 0).all()
    assert (rows.loc[rows["model"] == "zh-bert", "bias"] != 0).all()
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "**Warning** — `tiny-bert`: 8 of 8 keyword words" in report
    assert "`zh-bert`: " not in report.split("## ")[0]
