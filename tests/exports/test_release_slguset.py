"""SlguSet releases: one `default` config, keyword spans checked, licence stated as 'other'."""

from __future__ import annotations

import pandas as pd
import pytest

from biasforge import families
from biasforge.contract.rundir import write_run
from biasforge.errors import InputError
from biasforge.exports.release import make_release
from tests.conftest import run_cli, write_unchecked_run
from tests.helpers import slguset_rows

SENTENCES = [  # (sentence, keyword, gender, counterpart)
    ("重庆女足在运动会上击败了山东队取得了第二名的成绩。", "女", "female", "男"),
    ("这位男老师每天很早就来到学校。", "男", "male", "女"),
    ("她的儿子今年考上了大学。", "儿子", "male", "女儿"),
    ("女儿在电话里说一切都好。", "女儿", "female", "儿子"),
    ("村里的男青年都外出打工了。", "男", "male", "女"),
]


def rows(sentences=SENTENCES) -> list[dict]:
    return [
        {**row, "needs_review": False, "review_reasons": []}
        for row in slguset_rows(sentences, ids="zh{:04d}", sources="news:{}")
    ]


def slguset_run(path, items):
    return write_run(
        path,
        candidates=pd.DataFrame(items),
        rejected=pd.DataFrame(columns=list(rows()[0])),  # the same columns, no rows
        schema=families.get("slguset").schema,
        stats={"family": "slguset", "items": len(items), "kept": len(items), "rejected": 0},
        report_md="# slguset test run\n",
        inputs=[],
        config={"family": "slguset", "language": "zh"},
    ).path


def test_slguset_release(tmp_path):
    from datasets import load_dataset
    from huggingface_hub import DatasetCard

    run = slguset_run(tmp_path / "run", rows())
    out = tmp_path / "releases"
    run_cli(
        "export",
        "release",
        run,
        "--name",
        "slguset",
        "--version",
        "0.1.0",
        "--out",
        out,
        "--unreviewed",
    )
    path = out / "slguset" / "0.1.0"
    ds = load_dataset(str(path), name="default", split="test", cache_dir=str(tmp_path / "cache"))
    assert ds["sentence"] == [s for s, *_ in SENTENCES]
    assert all(r["sentence"][r["keyword_start"] : r["keyword_end"]] == r["keyword"] for r in ds)
    card = DatasetCard.load(path / "README.md")
    assert card.data.license == "other" and card.data.language == ["zh"]
    assert "| 男 | 0 | 2 | 2 |" in card.text  # keyword x gender: 男 twice, both male


def test_keyword_span_must_cover_the_keyword(tmp_path):
    items = rows()
    items[2]["keyword_start"] += 1
    items[2]["keyword_end"] += 1
    run = write_unchecked_run(tmp_path / "run", items, "slguset")
    with pytest.raises(InputError) as err:
        make_release([run], name="s", version="1.0.0", out=tmp_path / "rel", unreviewed=True)
    assert err.value.record == "zh0002" and "not '儿子'" in str(err.value)
