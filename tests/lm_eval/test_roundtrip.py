"""Releases run in the real lm-evaluation-harness, read back with ``score import-lm-eval``,
give the figures ``biasforge score`` gives with the same model on the same release (per item
and aggregated, to 1e-6); results of another release are refused."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.conftest import run_cli
from tests.helpers import write_release
from tests.lm_eval.conftest import OWN_CROWS

# lm-eval sums float32 log-probabilities, biasforge float64 ones: sums near -700 differ by
# float32's resolution there (6e-5, 1.4e-7 relative), so values agree to 1e-6 relative
TOL = 1e-6


def _both(family, releases, lm_eval_run, bos_model, tmp_path, *extra):
    """(imported score folder, `biasforge score` folder) for ``family``."""
    imported, scored = tmp_path / "imported", tmp_path / "scored"
    run_cli(
        "score", "import-lm-eval", lm_eval_run["results"], "--dataset", releases[family],
        "--out", imported, "--bootstrap", "50",
    )  # fmt: skip
    run_cli(
        "score", family, "--dataset", releases[family], "--model", bos_model, "--out", scored,
        "--no-progress", "--bootstrap", "50", "--dtype", "float32", *extra,
    )  # fmt: skip
    return imported, scored


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    for column in a.columns:
        if pd.api.types.is_numeric_dtype(a[column]) and not pd.api.types.is_bool_dtype(a[column]):
            np.testing.assert_allclose(a[column], b[column], rtol=TOL, atol=TOL, err_msg=column)
        else:
            assert a[column].tolist() == b[column].tolist(), column


def test_stereoset_equals_score(releases, lm_eval_run, bos_model, tmp_path):
    imported, scored = _both("stereoset", releases, lm_eval_run, bos_model, tmp_path)
    name = "tiny-bos-gpt2"
    got = pd.read_csv(imported / name / "sentences.csv")
    want = pd.read_csv(scored / name / "sentences.csv")
    _same(got, want)
    # geometric means are small: their logs (mean token log-probabilities) agree too
    np.testing.assert_allclose(np.log(got["score"]), np.log(want["score"]), rtol=0, atol=1e-5)
    _same(pd.read_csv(imported / "results.csv"), pd.read_csv(scored / "results.csv"))
    _same(pd.read_csv(imported / "item_bias.csv"), pd.read_csv(scored / "item_bias.csv"))
    manifest = json.loads((imported / "manifest.json").read_text())
    assert (
        manifest["options"]["dataset_sha256"]
        == json.loads((scored / "manifest.json").read_text())["options"]["dataset_sha256"]
    )
    assert "lm-evaluation-harness" in (imported / "report.md").read_text()


def test_crowspairs_equals_score(releases, lm_eval_run, bos_model, tmp_path):
    imported, scored = _both("crowspairs", releases, lm_eval_run, bos_model, tmp_path)
    _same(pd.read_csv(imported / "pairs.csv"), pd.read_csv(scored / "pairs.csv"))
    _same(pd.read_csv(imported / "results.csv"), pd.read_csv(scored / "results.csv"))


def test_slguset_equals_score(releases, lm_eval_run, bos_model, tmp_path):
    """Bias_c is a difference of two sentence log-likelihoods near -100, each summed in
    float32 by lm-eval: it agrees to 1e-6 of the magnitudes it is the difference of (about
    1e-5 absolute), and so do the means built from it; the log-likelihoods to 1e-6."""
    imported, scored = _both("slguset", releases, lm_eval_run, bos_model, tmp_path)
    got, want = pd.read_csv(imported / "sentences.csv"), pd.read_csv(scored / "sentences.csv")
    scale = float((want["logp_male"].abs() + want["logp_female"].abs()).max())
    _same(got.drop(columns="bias"), want.drop(columns="bias"))
    np.testing.assert_allclose(got["bias"], want["bias"], rtol=0, atol=TOL * scale)
    for table in ("summary.csv", "pairs.csv"):
        a, b = pd.read_csv(imported / table), pd.read_csv(scored / table)
        assert list(a.columns) == list(b.columns)
        numeric = a.select_dtypes("number").columns
        np.testing.assert_allclose(a[numeric], b[numeric], rtol=0, atol=TOL * scale)
        assert a.drop(columns=numeric).equals(b.drop(columns=numeric))


def _samples(lm_eval_run, task: str) -> list[dict]:
    (path,) = lm_eval_run["results"].rglob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def _lm_eval_results(lm_eval_run) -> dict:
    (path,) = lm_eval_run["results"].rglob("results_*.json")
    return json.loads(path.read_text())["results"]


def test_crowspairs_equals_lm_evals_own_task(releases, lm_eval_run, tmp_path):
    """lm-eval's own crows_pairs_english logic on the same pairs: the same log-likelihoods per
    sentence; pct_stereotype equal to biasforge's percent except on pairs whose two scores
    round to the same three decimals (metric.py's ties, which lm-eval counts as
    anti-stereotypical); likelihood_diff the mean |difference|."""
    out = tmp_path / "imported"
    run_cli(
        "score", "import-lm-eval", lm_eval_run["results"], "--dataset", releases["crowspairs"],
        "--out", out, "--bootstrap", "0",
    )  # fmt: skip
    pairs = pd.read_csv(out / "pairs.csv").set_index("id")
    own = _samples(lm_eval_run, OWN_CROWS)
    assert len(own) == len(pairs) == 100
    wins, diffs, ties_won = [], [], 0
    for sample in own:
        more, less = (float(r[0][0]) for r in sample["resps"])
        row = pairs.loc[sample["doc"]["id"]]
        assert row["sent_more_score"] == pytest.approx(more, rel=TOL, abs=TOL)
        assert row["sent_less_score"] == pytest.approx(less, rel=TOL, abs=TOL)
        wins.append(more > less)
        diffs.append(abs(more - less))
        if not row["neutral"]:
            assert bool(row["stereotypical"]) == (more > less)
        ties_won += bool(row["neutral"]) and more > less
    own_result = _lm_eval_results(lm_eval_run)[OWN_CROWS]
    assert own_result["pct_stereotype,none"] == pytest.approx(np.mean(wins), abs=TOL)
    assert own_result["likelihood_diff,none"] == pytest.approx(np.mean(diffs), abs=TOL)
    overall = pd.read_csv(out / "results.csv").set_index("bias_type").loc["overall"]
    assert overall["percent"] == pytest.approx(100 * (np.mean(wins) - ties_won / len(own)))


def test_lm_eval_printed_figures(releases, lm_eval_run, tmp_path):
    """The figures utils.py gives lm-eval's own table equal the imported overall ones."""
    results = _lm_eval_results(lm_eval_run)
    prefixes = dict(zip(releases, lm_eval_run["groups"], strict=True))
    run_cli(
        "score", "import-lm-eval", lm_eval_run["results"], "--dataset", releases["stereoset"],
        "--out", tmp_path / "s", "--bootstrap", "0",
    )  # fmt: skip
    table = pd.read_csv(tmp_path / "s" / "results.csv")
    for split in ("intrasentence", "intersentence"):
        row = table[(table["split"] == split) & (table["domain"] == "overall")].iloc[0]
        printed = results[f"{prefixes['stereoset']}_{split}"]
        for metric in ("LMS", "SS", "ICAT"):
            assert printed[f"{metric.lower()},none"] == pytest.approx(row[metric], abs=TOL)
    run_cli(
        "score", "import-lm-eval", lm_eval_run["results"], "--dataset", releases["slguset"],
        "--out", tmp_path / "z", "--bootstrap", "0",
    )  # fmt: skip
    summary = pd.read_csv(tmp_path / "z" / "summary.csv").iloc[0]
    (task,) = [t for t in results if t.startswith(prefixes["slguset"] + "_")]
    assert results[task]["mean_bias,none"] == pytest.approx(summary["mean_bias"], abs=TOL)
    assert results[task]["clear_male,none"] == summary["clear_male"]
    assert results[task]["clear_female,none"] == summary["clear_female"]
    crows = results[f"{prefixes['crowspairs']}_en"]
    own = results[OWN_CROWS]
    assert crows["pct_stereotype,none"] == pytest.approx(100 * own["pct_stereotype,none"])


def test_results_of_another_release_are_refused(releases, lm_eval_run, tmp_path):
    """Results of the 0.1.0 tasks against a 0.2.0 release (other pairs): exit 2, one line,
    nothing written."""
    from biasforge.contract.folders import read_items

    frame = read_items(releases["crowspairs"]).frame.head(50)
    newer = write_release(frame, tmp_path, "crowspairs-en", "0.2.0", by="language")
    out = tmp_path / "imported"
    done = run_cli(
        "score", "import-lm-eval", lm_eval_run["results"], "--dataset", newer, "--out", out,
        check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "0.1.0" in lines[0] and "0.2.0" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


def test_task_folder_is_portable(releases, lm_eval_run):
    """No path of this machine in the task files; the metadata's sha256 is the one `score`
    records for the release."""
    from biasforge.scoring.data import dataset_identity

    for family, folder in lm_eval_run["tasks"].items():
        texts = [p.read_text() for p in folder.glob("*.yaml")]
        assert texts and not any(str(folder.parent) in t or "/tmp" in t for t in texts)
        sha = dataset_identity(str(releases[family]))["sha256"]
        tasks = [t for t in texts if t.startswith("task:")]
        assert tasks and all(f'biasforge_release_sha256: "{sha}"' in t for t in tasks)


def _refused(*args: object) -> str:
    done = run_cli("score", "import-lm-eval", *args, check=False)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_bad_results_folders_are_refused(releases, lm_eval_run, tmp_path):
    """Not lm-eval output, results without --log_samples, no task of the release's family:
    one line each, exit 2."""
    empty = tmp_path / "empty"
    empty.mkdir()
    args = ("--dataset", releases["crowspairs"], "--out", tmp_path / "out")
    assert "no results_*.json" in _refused(empty, *args)
    (results,) = lm_eval_run["results"].rglob("results_*.json")
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / results.name).write_text(results.read_text())
    assert "--log_samples" in _refused(bare, *args)
    data = json.loads(results.read_text())
    data["configs"] = {OWN_CROWS: data["configs"][OWN_CROWS]}
    other = tmp_path / "other"
    other.mkdir()
    (other / results.name).write_text(json.dumps(data))
    assert "no crowspairs task exported by biasforge" in _refused(other, *args)
    assert not (tmp_path / "out").exists()


def test_gpt2_style_tokenizer_documented_difference(releases, plain_run, tmp_path):
    """A tokenizer that adds no BOS (GPT-2): CrowS-Pairs and StereoSet intersentence still
    equal `biasforge score`; intrasentence does not (the official generative code reads the
    tokens after the first without the start token, which lm-eval cannot ask), and the
    imported report names the procedure it used (README)."""
    model, results = plain_run
    name = "tiny-gpt2"
    for family, table in (("crowspairs", "pairs.csv"), ("stereoset", f"{name}/sentences.csv")):
        imported, scored = tmp_path / f"i-{family}", tmp_path / f"s-{family}"
        run_cli(
            "score", "import-lm-eval", results, "--dataset", releases[family], "--out",
            imported, "--bootstrap", "0",
        )  # fmt: skip
        run_cli(
            "score", family, "--dataset", releases[family], "--model", model, "--out", scored,
            "--no-progress", "--bootstrap", "0", "--dtype", "float32",
        )  # fmt: skip
        got, want = pd.read_csv(imported / table), pd.read_csv(scored / table)
        if family == "crowspairs":
            _same(got, want)
            continue
        inter = got["split"] == "intersentence"
        _same(got[inter], want[inter])
        gap = np.abs(np.log(got.loc[~inter, "score"]) - np.log(want.loc[~inter, "score"]))
        assert gap.min() > 1e-3
        assert "lm-evaluation-harness loglikelihood" in (imported / "report.md").read_text()


def test_imported_results_merge_with_score_folders_of_their_release_only(
    releases, lm_eval_run, bos_model, tmp_path
):
    """lm-eval results read back merge with a `biasforge score` folder of the same release
    (as if scored on another machine: the same model twice, each figure equal); with a
    folder of release 0.2.0 the merge is refused with one line naming both versions."""
    from biasforge.contract.folders import read_items

    imported, scored = _both("crowspairs", releases, lm_eval_run, bos_model, tmp_path)
    merged = tmp_path / "merged"
    run_cli("score", "merge", imported, scored, "-o", merged)
    table = pd.read_csv(merged / "results.csv")
    first, second = sorted(table["model"].unique())
    assert second == f"{first}-2"
    left = table[table["model"] == first].drop(columns="model").reset_index(drop=True)
    right = table[table["model"] == second].drop(columns="model").reset_index(drop=True)
    _same(left, right)
    frame = read_items(releases["crowspairs"]).frame.head(50)
    newer = write_release(frame, tmp_path, "crowspairs-en", "0.2.0", by="language")
    run_cli(
        "score", "crowspairs", "--dataset", newer, "--model", bos_model, "--out",
        tmp_path / "newer", "--no-progress", "--bootstrap", "50",
    )  # fmt: skip
    done = run_cli("score", "merge", imported, tmp_path / "newer", "-o", tmp_path / "mixed",
                   check=False)  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "0.1.0" in line and "0.2.0" in line and not (tmp_path / "mixed").exists()
