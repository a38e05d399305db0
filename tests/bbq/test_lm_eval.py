"""``score bbq`` equals lm-evaluation-harness 0.4.x's own ``bbq_multiple_choice`` (its YAML and
``utils.py`` from the installed package, pointed at the exported release's parquet, since the
Hub is not reachable here), run with ``lm_eval`` on a tiny causal model built by the tests:
every question's choice is the same, and the aggregates agree within float32 summation error.
The release's own task folder (``export convert --format lm-eval``) runs in the same lm-eval
call, and ``score import-lm-eval`` of its results writes the answers ``score bbq`` writes.

The release holds questions of four single-dimension categories whose targeted answer is
defined (``target_loc``): there lm-eval's ``biased_answers`` (found by matching group words)
and the authors' ``target_loc`` name the same answer (every such question of the 11
categories, checked when this test was written), so the bias scores are the same quantity.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import lm_eval
import pandas as pd
import pytest

from biasforge.exports.lm_eval import release_identity, task_prefix
from tests.cli_runner import run_cli
from tests.helpers import score, write_release
from tests.lm_eval.conftest import run_lm_eval

OWN_BBQ = "bbq_multiple_choice_local"
CATEGORIES = ("Age", "Religion", "Nationality", "Sexual_orientation")
FLOAT32 = 1e-6  # lm-eval sums float32 log-probabilities; biasforge reads them in float32 too


def _release(tmp_path: Path) -> Path:
    """Two templates' first four fillings (8 questions: both context conditions, both question
    polarities) of each category, as a release: 32 questions, enough for every category and
    condition figure, and a third of lm-eval's time of the 96 this test used to run."""
    args = [a for c in CATEGORIES for a in ("--category", c)]
    run_cli("curate", "bbq", "--lang", "en", *args, "--out", tmp_path / "run")
    items = pd.read_parquet(tmp_path / "run" / "candidates.parquet")
    items = items[items.label_type.eq("label") & items.target_loc.notna()]
    items = items.groupby(["category", "question_index"]).head(4)
    items = items.groupby("category").head(8).reset_index(drop=True)
    return write_release(items, tmp_path / "rel", "bbq-sample", "1.0.0")


def _own_task(folder: Path, data: Path) -> None:
    """lm-eval's bbq_multiple_choice YAML and utils.py, reading ``data`` instead of the Hub."""
    source = Path(lm_eval.__file__).parent / "tasks" / "bbq"
    folder.mkdir()
    shutil.copyfile(source / "utils.py", folder / "utils.py")
    text = (source / "bbq_multiple_choice.yaml").read_text()
    hub = "dataset_path: oskarvanderwal/bbq\ndataset_name: All\n"
    assert hub in text and "task: bbq\n" in text
    local = f"dataset_path: parquet\ndataset_kwargs:\n  data_files:\n    test: {data}\n"
    text = text.replace(hub, local).replace("task: bbq\n", f"task: {OWN_BBQ}\n")
    (folder / f"{OWN_BBQ}.yaml").write_text(text.replace("tag:\n  - social_bias\n", ""))


def _samples(results: Path, task: str) -> dict[str, list[float]]:
    """Per document id, lm-eval's logged log-likelihood of each choice."""
    (path,) = results.rglob(f"samples_{task}_*.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {str(r["doc"]["id"]): [float(x[0][0]) for x in r["resps"]] for r in rows}


def _figures(results: Path, task: str) -> dict:
    (path,) = results.rglob("results_*.json")
    return {k.split(",")[0]: v for k, v in json.loads(path.read_text())["results"][task].items()}


def _same_bias(mine: pd.Series, lm_evals: float, ambiguous: bool) -> bool:
    """lm-eval's bias score equals biasforge's, but where no answer names the targeted group
    lm-eval reports 0.0 (its ``agg_disamb_bias_scores``), where the formula gives -1 (scaled
    by the errors when ambiguous) or, with no answer but "unknown", nothing (biasforge: NaN)."""
    if mine["bias_score"] == pytest.approx(lm_evals, abs=FLOAT32):
        return True
    none_targeted = -(1 - mine["accuracy"]) if ambiguous else -1.0
    return lm_evals == 0 and (
        math.isnan(mine["bias_score"]) or mine["bias_score"] == pytest.approx(none_targeted)
    )


@pytest.mark.xdist_group("lm-eval")
def test_score_bbq_equals_lm_evals_bbq_multiple_choice(tmp_path, bos_model) -> None:
    release = _release(tmp_path)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    run_cli("export", "convert", release, "--format", "lm-eval", "--out", tasks / "ours")
    (data,) = (tasks / "ours" / "data").glob("*.parquet")
    _own_task(tasks / "own", data)
    identity = release_identity(release)
    prefix = task_prefix(identity["name"], identity["version"])
    run_lm_eval(bos_model, tasks, [prefix, OWN_BBQ], tmp_path / "results")

    score("bbq", "-d", str(release), "-m", bos_model, "-o", str(tmp_path / "scores"))
    answers = pd.read_csv(tmp_path / "scores" / "answers.csv", dtype={"id": str})
    theirs = _samples(tmp_path / "results", OWN_BBQ)
    assert len(theirs) == len(answers) == 32
    chosen = {i: max(range(12), key=lls.__getitem__) for i, lls in theirs.items()}
    assert answers.set_index("id")["choice"].to_dict() == chosen
    assert len(set(chosen.values())) > 1  # the tiny model does not always pick one choice

    ours = pd.read_csv(tmp_path / "scores" / "results.csv").set_index(
        ["group", "context_condition"]
    )
    figures = _figures(tmp_path / "results", OWN_BBQ)
    for condition, suffix in (("ambig", "amb"), ("disambig", "disamb")):
        overall = ours.loc[("overall", condition)]
        assert overall["accuracy"] == pytest.approx(figures[f"accuracy_{suffix}"], abs=FLOAT32)
        assert overall["bias_score"] == pytest.approx(figures[f"{suffix}_bias_score"], abs=FLOAT32)
        for category in CATEGORIES:
            mine = ours.loc[(category, condition)]
            lm_evals = figures[f"{suffix}_bias_score_{category}"]
            assert _same_bias(mine, lm_evals, condition == "ambig"), (category, condition)

    ours_folder = _figures(tmp_path / "results", f"{prefix}_en")
    assert ours_folder["accuracy_amb"] == pytest.approx(figures["accuracy_amb"], abs=FLOAT32)
    run_cli(
        "score", "import-lm-eval", tmp_path / "results", "--dataset", release,
        "--out", tmp_path / "imported",
    )  # fmt: skip
    imported = pd.read_csv(tmp_path / "imported" / "answers.csv", dtype={"id": str})
    assert imported.set_index("id")["choice"].to_dict() == chosen


def test_both_copies_of_the_unknown_wordings_are_lm_evals_own() -> None:
    """The ten "unknown" wordings are kept twice, in ``score bbq`` and in the file copied into
    exported task folders (which imports nothing from biasforge): both are lm-eval's list, in
    its order (the order is the choices' order, so it decides ties)."""
    from lm_eval.tasks.bbq import utils as lm_evals

    from biasforge.exports.lm_eval import bbq as exported
    from biasforge.scoring.tasks import bbq as scoring

    assert list(scoring.UNKNOWN_RESPONSES) == lm_evals.UNKNOWN_RESPONSES
    assert exported.UNKNOWN_RESPONSES == lm_evals.UNKNOWN_RESPONSES
