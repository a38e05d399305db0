"""``--nsp-train finetune``: a tiny GPT-2 fine-tuned with an NSP head on a corpus built to be
learnable scores intersentence LMS far above chance, and its other scores stay untouched."""

from __future__ import annotations

import json

import pandas as pd
import torch
from typer.testing import CliRunner

from biasforge.scoring.cli import app
from biasforge.scoring.interface import NSPTraining
from biasforge.scoring.models import ModelOptions, load_model
from biasforge.scoring.tasks.nsp import finetune

PEOPLE = ["The nurse", "The doctor", "My mother", "The boy", "The girl", "My professor"]
PRONOUN = {"The nurse": "She", "The doctor": "He", "My mother": "She", "The boy": "He"}
PRONOUN |= {"The girl": "She", "My professor": "He"}
TRAITS = ["kind", "strong", "smart", "lazy", "good", "weak", "cruel"]
ANIMALS = ["The fox is a cat.", "The dog was good.", "Cats live in the country.", "A dog is a fox."]


def learnable_corpus() -> str:
    """Documents about a person whose next sentence takes up the person with a pronoun, and
    one-line documents about animals: a true continuation is always about the same person,
    a random sentence of another document is often about animals."""
    documents = []
    for person in PEOPLE:
        for trait in TRAITS:
            documents.append(f"{person} was here.\n{PRONOUN[person]} is {trait}.")
    documents += ANIMALS * 6
    return "\n\n".join(documents) + "\n"


def intersentence_items() -> pd.DataFrame:
    """Contexts about a person; the (anti-)stereotype continues with the pronoun, the
    unrelated option is about animals — an NSP model that learned the corpus ranks them."""
    rows = []
    labels = ("stereotype", "anti-stereotype", "unrelated")
    for n, person in enumerate(PEOPLE * 2):
        he = PRONOUN[person]
        options = (f"{he} is {TRAITS[n % 7]}.", f"{he} is {TRAITS[(n + 3) % 7]}.")
        options += (ANIMALS[n % len(ANIMALS)],)
        rows.append(
            {
                "id": f"inter{n}",
                "split": "intersentence",
                "bias_type": "gender" if n % 2 else "profession",
                "target": person.split()[-1],
                "context": f"{person} was here.",
                "sentences": [
                    {"id": f"inter{n}-{label}", "label": label, "sentence": text, "attribute": text}
                    for label, text in zip(labels, options, strict=True)
                ],
            }
        )
    return pd.DataFrame(rows)


ARGS = ["--nsp-steps", "40", "--nsp-batch", "16", "--nsp-lr", "1e-3", "--nsp-head-lr", "1e-2"]


def test_finetuned_nsp_lifts_intersentence_lms_above_chance(tiny_models, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(learnable_corpus(), encoding="utf-8")
    data = tmp_path / "inter.parquet"
    intersentence_items().to_parquet(data, index=False)
    out = tmp_path / "out"
    args = ["stereoset", "-d", str(data), "-m", tiny_models["causal"], "-o", str(out)]
    args += ["--nsp-train", "finetune", "--nsp-corpus", str(corpus), *ARGS]
    args += ["--bootstrap", "500", "--seed", "3", "--no-progress"]
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    results = pd.read_csv(out / "results.csv").set_index(["split", "domain"])
    overall = results.loc[("intersentence", "overall")]
    assert overall["LMS"] >= 80, overall
    assert overall["LMS_low"] > 50  # above chance beyond the bootstrap interval
    official = json.loads((out / "tiny-gpt2" / "results.json").read_text())
    assert official["intersentence"]["overall"]["LM Score"] == overall["LMS"]
    assert "fine-tuned with an NSP head on corpus.txt (40 steps)" in (out / "report.md").read_text()
    assert not (out / "tiny-gpt2" / "nsp_head.pt").exists()  # nothing to reuse: the model changed


def test_finetuning_works_on_a_copy(tiny_models, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(learnable_corpus(), encoding="utf-8")
    lm = load_model(tiny_models["causal"], ModelOptions(progress=False))
    before = {k: v.clone() for k, v in lm.model.state_dict().items()}
    training = NSPTraining(steps=5, batch_size=8, core_lr=1e-3, head_lr=1e-2, seed=1)
    pairs = [("The nurse was here.", "She is kind."), ("The nurse was here.", "The dog was good.")]
    first = finetune(lm, corpus, training)(pairs)
    again = finetune(lm, corpus, training)(pairs)
    assert first == again  # seeded
    assert all(torch.equal(before[k], v) for k, v in lm.model.state_dict().items())


def test_a_corpus_edited_between_two_runs_in_one_process_is_read_again(tmp_path):
    from biasforge.scoring.tasks.nsp import read_corpus

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("A one.\nA two.\n\nB one.\nB two.\n", encoding="utf-8")
    assert read_corpus(corpus)[0] == ("A one.", "A two.")
    corpus.write_text("C one.\nC two.\n\nD one.\nD two.\nD three.\n", encoding="utf-8")
    assert read_corpus(corpus) == (("C one.", "C two."), ("D one.", "D two.", "D three."))
