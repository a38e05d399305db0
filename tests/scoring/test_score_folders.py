"""Score folders read back (issues 25-27): ``score compare`` names the procedure each model
was scored with, from the folders; reports name models by identity, never by a path of this
machine."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from biasforge.scoring.cli import app
from biasforge.scoring.compare import CROWS_BY_KIND, STEREOSET_BY_KIND
from biasforge.scoring.tasks.crowspairs import LOGLIKELIHOOD, METRIC_PY
from tests.helpers import score
from tests.scoring.conftest import stereoset_items, stereoset_release


def crows_pairs() -> pd.DataFrame:
    """Four CrowS-Pairs pairs in the tiny models' vocabulary, as a bare parquet file's rows."""
    pairs = [
        ("The nurse was kind.", "The doctor was kind.", "gender"),
        ("The girl was lazy.", "The boy was lazy.", "gender"),
        ("The asian man is smart.", "The hispanic man is smart.", "race-color"),
        ("My mother is weak.", "My father is weak.", "gender"),
    ]
    from biasforge.families.crowspairs import differing_spans

    spans = [differing_spans(a, b) for a, b, _ in pairs]
    return pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(len(pairs))],
            "family": "crowspairs",
            "language": "en",
            "sent_more": [a for a, _, _ in pairs],
            "sent_less": [b for _, b, _ in pairs],
            "stereo_antistereo": "stereo",
            "bias_type": [t for *_, t in pairs],
            "more_spans": [[{"start": s, "end": e} for s, e in m] for m, _ in spans],
            "less_spans": [[{"start": s, "end": e} for s, e in n] for _, n in spans],
        }
    )


def _score(*args: str) -> None:
    score(*args, "--bootstrap", "50")


def test_compare_names_each_models_procedure(tiny_models, tmp_path):
    models = ["-m", tiny_models["masked"], "-m", tiny_models["causal"]]
    data = tmp_path / "crows.parquet"
    crows_pairs().to_parquet(data, index=False)
    _score("crowspairs", "-d", str(data), *models, "-o", str(tmp_path / "crows"))
    release = stereoset_release(stereoset_items(), tmp_path)
    _score("stereoset", "-d", str(release), *models, "-o", str(tmp_path / "ss"))
    result = CliRunner().invoke(
        app,
        ["compare", "--stereoset", str(tmp_path / "ss"), "--crowspairs", str(tmp_path / "crows")],
    )
    assert result.exit_code == 0, result.output
    lines = {
        line.split("`")[1]: line for line in result.output.splitlines() if line.startswith("- `")
    }
    masked, causal = lines["tiny-bert"], lines["tiny-gpt2"]
    assert METRIC_PY in masked and LOGLIKELIHOOD not in masked
    assert LOGLIKELIHOOD in causal and METRIC_PY not in causal
    assert STEREOSET_BY_KIND["masked"] in masked and STEREOSET_BY_KIND["causal"] in causal
    assert "pseudo-likelihood" not in causal and "pseudo-log-likelihood" not in causal
    assert CROWS_BY_KIND["causal"] != CROWS_BY_KIND["masked"]


def test_reports_name_models_by_identity_never_by_path(tiny_models, tmp_path):
    data = tmp_path / "crows.parquet"
    crows_pairs().to_parquet(data, index=False)
    out = tmp_path / "crows"
    model = Path(tiny_models["masked"])
    _score("crowspairs", "-d", str(data), "-m", str(model), "-o", str(out))
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_bytes()
            assert str(model).encode() not in text, path.name
            assert str(model.parent).encode() not in text, path.name
    (identity,) = json.loads((out / "models.json").read_text())
    assert identity["source"] == f"local folder {model.name}"
    assert len(identity["sha256"]) == 64 and identity["sha256_of"] == "model.safetensors"
    import hashlib

    digest = hashlib.sha256((model / "model.safetensors").read_bytes()).hexdigest()
    assert identity["sha256"] == digest
    assert digest in (out / "report.md").read_text()


def _no_path_in(folder: Path, *paths: str) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            for text in paths:
                assert text.encode() not in path.read_bytes(), (path.name, text)


def test_compare_takes_several_folders_per_side_of_one_release(tiny_models, tmp_path):
    data = tmp_path / "crows.parquet"
    crows_pairs().to_parquet(data, index=False)
    models = ["-m", tiny_models["masked"], "-m", tiny_models["causal"]]
    _score("crowspairs", "-d", str(data), *models, "-o", str(tmp_path / "crows"))
    release = stereoset_release(stereoset_items(), tmp_path)
    _score("stereoset", "-d", str(release), "-m", tiny_models["masked"], "-o", str(tmp_path / "a"))
    _score("stereoset", "-d", str(release), "-m", tiny_models["causal"], "-o", str(tmp_path / "b"))
    _no_path_in(tmp_path / "a", tiny_models["masked"], str(Path(tiny_models["masked"]).parent))
    sides = ["--stereoset", str(tmp_path / "a"), "--stereoset", str(tmp_path / "b")]
    result = CliRunner().invoke(app, ["compare", *sides, "--crowspairs", str(tmp_path / "crows")])
    assert result.exit_code == 0, result.output
    assert "| tiny-bert |" in result.output and "| tiny-gpt2 |" in result.output
    merged = CliRunner().invoke(app, ["merge", *sides[1::2], "-o", str(tmp_path / "ab")])
    assert merged.exit_code == 0, merged.output
    crows = ["--crowspairs", str(tmp_path / "crows")]
    from_merged = CliRunner().invoke(app, ["compare", "--stereoset", str(tmp_path / "ab"), *crows])
    assert from_merged.exit_code == 0 and from_merged.output == result.output

    other = tmp_path / "crows-other.parquet"
    crows_pairs().iloc[:3].to_parquet(other, index=False)
    _score("crowspairs", "-d", str(other), *models[:2], "-o", str(tmp_path / "crows-other"))
    crows = ["--crowspairs", str(tmp_path / "crows"), "--crowspairs", str(tmp_path / "crows-other")]
    result = CliRunner().invoke(app, ["compare", *sides, *crows])
    assert result.exit_code != 0
    assert "results of different dataset versions are not combined" in str(result.exception)
