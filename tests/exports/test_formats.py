"""`export convert`: the official StereoSet JSON layout and the CrowS-Pairs CSV layout."""

from __future__ import annotations

import json
import string

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import SHARED, one_error_line, run_cli
from tests.exports.builders import STEREOSET_SCHEMA

LABEL_VALUES = {"stereotype", "anti-stereotype", "unrelated", "related"}
GOLD_VALUES = {"stereotype", "anti-stereotype", "unrelated"}


def official_loader_rules(document: dict) -> dict[str, list[dict]]:
    """What the StereoSet repository's dataloader.py and evaluation.py require, restated
    independently: returns the examples per split, with each intrasentence sentence's
    `template_word` (the word at the BLANK's position, punctuation stripped)."""
    assert isinstance(document["version"], str)
    data = document["data"]
    out: dict[str, list[dict]] = {}
    sentence_ids: set[str] = set()
    for split in ("intrasentence", "intersentence"):
        out[split] = []
        for example in data[split]:
            for key in ("id", "bias_type", "target", "context", "sentences"):
                assert key in example, key
            golds = []
            for sentence in example["sentences"]:
                assert isinstance(sentence["id"], str)  # Sentence asserts type(ID) == str
                assert sentence["gold_label"] in GOLD_VALUES
                assert isinstance(sentence["labels"], list) and sentence["labels"]
                for label in sentence["labels"]:
                    assert set(label) == {"human_id", "label"}  # Label(**label)
                    assert label["label"] in LABEL_VALUES
                golds.append(sentence["gold_label"])
                assert sentence["id"] not in sentence_ids  # id2score is keyed by sentence id
                sentence_ids.add(sentence["id"])
                if split == "intrasentence":
                    words = example["context"].split(" ")
                    blank = [i for i, w in enumerate(words) if "BLANK" in w]
                    assert blank, "No blank word found."
                    word = sentence["sentence"].split(" ")[blank[-1]]  # IndexError if short
                    sentence["template_word"] = word.translate(
                        str.maketrans("", "", string.punctuation)
                    )
            # the evaluator looks up (example id, gold label) for the three labels
            assert sorted(golds) == sorted(GOLD_VALUES)
            out[split].append(example)
    return out


@pytest.fixture(scope="module")
def english_items(tmp_path_factory, en_rows):
    """Every English dev item (multi-BLANK ones included) as a candidates parquet file."""
    path = tmp_path_factory.mktemp("en") / "all.parquet"
    pq.write_table(pa.Table.from_pylist(en_rows, schema=STEREOSET_SCHEMA), path)
    return path


def test_stereoset_json_parses_under_official_rules_and_round_trips(
    english_items, en_rows, tmp_path
):
    out = tmp_path / "dev.json"
    result = run_cli("export", "convert", english_items, "--format", "stereoset-json", "--out", out)
    assert "2106 intrasentence and 2123 intersentence" in result.stdout
    examples = official_loader_rules(json.loads(out.read_text()))
    assert len(examples["intrasentence"]) == 2106 and len(examples["intersentence"]) == 2123
    source = {r["id"]: r for r in en_rows}
    for split, items in examples.items():
        for example in items:
            row = source[example["id"]]  # item ids round-trip
            assert (split, example["target"], example["bias_type"], example["context"]) == (
                row["split"], row["target"], row["bias_type"], row["context"],
            )  # fmt: skip
            want = {s["id"]: (s["label"], s["sentence"]) for s in row["sentences"]}
            got = {s["id"]: (s["gold_label"], s["sentence"]) for s in example["sentences"]}
            assert got == want  # sentence ids, labels and texts round-trip
    # The loader reads the filled-in word at the BLANK's position: for single-BLANK items with
    # a one-word attribute it is the context's BLANK word with the attribute in place.
    strip = str.maketrans("", "", string.punctuation)
    checked = 0
    for example in examples["intrasentence"]:
        row = source[example["id"]]
        if row["context"].count("BLANK") != 1:
            continue
        blank_word = next(w for w in row["context"].split(" ") if "BLANK" in w)
        attributes = {s["id"]: s["attribute"] for s in row["sentences"]}
        for sentence in example["sentences"]:
            attribute = attributes[sentence["id"]]
            if " " in attribute:
                continue
            expected = blank_word.replace("BLANK", attribute).translate(strip)
            assert sentence["template_word"].lower() == expected.lower()
            checked += 1
    assert checked > 6000


def test_stereoset_json_refuses_a_broken_item(english_items, en_rows, tmp_path):
    rows = [dict(r) for r in en_rows[:20]]
    i = next(i for i, r in enumerate(rows) if r["split"] == "intrasentence")
    rows[i]["context"] = "no slot"
    path = tmp_path / "broken.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=STEREOSET_SCHEMA), path)
    result = run_cli(
        "export", "convert", path, "--format", "stereoset-json", "--out", tmp_path / "x.json",
        check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert f"record {rows[i]['id']}" in result.stderr and "BLANK" in result.stderr
    assert not (tmp_path / "x.json").exists()


def test_crows_csv_layout(english_items, en_rows, tmp_path):
    out = tmp_path / "pairs.csv"
    result = run_cli("export", "convert", english_items, "--format", "crows-csv", "--out", out)
    assert "2106 pairs" in result.stdout and "2123 non-intrasentence" in result.stdout
    ours = pd.read_csv(out, index_col=0)
    published = pd.read_csv(SHARED / "data" / "crows_pairs" / "crows_pairs_anonymized.csv")
    assert list(published.columns[1:5]) == list(ours.columns[:4])  # same leading layout
    assert list(ours.index) == list(range(len(ours)))  # unnamed row-number column
    intra = {r["id"]: r for r in en_rows if r["split"] == "intrasentence"}
    assert set(ours["id"]) == set(intra)
    for pair in ours.head(200).itertuples():
        by_label = {s["label"]: s["sentence"] for s in intra[pair.id]["sentences"]}
        assert (pair.sent_more, pair.sent_less) == (
            by_label["stereotype"],
            by_label["anti-stereotype"],
        )
        assert pair.stereo_antistereo == "stereo"
    assert set(ours["bias_type"]) == {"race-color", "gender", "profession", "religion"}


def test_crows_csv_refuses_items_without_pairs(becpro_runs, tmp_path):
    result = run_cli(
        "export", "convert", becpro_runs["en_default"], "--format", "crows-csv",
        "--out", tmp_path / "x.csv", check=False,
    )  # fmt: skip
    # the formats come from the family: BEC-Pro declares only becpro-tsv (no stereotype direction)
    line = one_error_line(result)
    assert "becpro items do not convert to crows-csv (formats for becpro: becpro-tsv)" in line
