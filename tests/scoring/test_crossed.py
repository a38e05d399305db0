"""BEC-Pro's intervals respect its crossed design (issue 25): professions × person words ×
templates. On items whose whole variation lies between professions, the two-way interval is
much wider than the sentence-level one, and P(f) − P(m) — the same professions on both sides —
barely moves; the report names the design and says what its interval means."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from biasforge.scoring.cli import app
from biasforge.scoring.crossed import CrossedDesign
from biasforge.scoring.tasks import becpro
from biasforge.scoring.tasks.becpro_task import crossed_design
from biasforge.scoring.uncertainty import Resampling, compare, intervals
from tests.scoring.test_slguset_becpro import becpro_items

PROFESSIONS = {"female": [f"f{i}" for i in range(8)], "male": [f"m{i}" for i in range(8)]}
PERSONS = {"female": ["she", "woman", "mother", "girl"], "male": ["he", "man", "father", "boy"]}
TEMPLATES = 3


def _profession_effect_items(noise: float = 0.01, seed: int = 0) -> pd.DataFrame:
    """Every group × profession × gender × person word × template; the association is the
    profession's own effect plus a little noise: all variation is between professions."""
    rng = np.random.default_rng(seed)
    effect = {p: rng.normal() for ps in PROFESSIONS.values() for p in ps}
    rows = []
    for group, professions in PROFESSIONS.items():
        for profession, (gender, persons) in itertools.product(professions, PERSONS.items()):
            for person, template in itertools.product(persons, range(TEMPLATES)):
                rows.append(
                    {
                        "id": f"{profession}-{person}-{template}",
                        "profession_group": group,
                        "profession": profession,
                        "gender": gender,
                        "person": person,
                        "association": effect[profession] + noise * rng.normal(),
                    }
                )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=1)  # order must not matter


def _bounds(figures, x, resampling, design):
    values = intervals(figures, x, resampling, design)
    return dict(zip(figures.names, values[:, 1] - values[:, 0], strict=True))


def test_two_way_interval_is_much_wider_when_professions_carry_the_variation():
    figures, ordered = becpro.figures(_profession_effect_items())
    x, design = ordered[["association"]].to_numpy().T, crossed_design(figures, ordered)
    assert design is not None
    resampling = Resampling(500, seed=3)
    two_way = _bounds(figures, x, resampling, design)
    sentences = _bounds(figures, x, resampling, None)
    for cell in ("female/female/mean", "female/male/mean", "male/female/mean"):
        assert two_way[cell] > 3 * sentences[cell], (cell, two_way[cell], sentences[cell])
    # the same drawn professions serve both genders of a group: their effect cancels
    for group in PROFESSIONS:
        difference = f"{group}/P(f)-P(m)"
        assert two_way[difference] < 0.1 * two_way[f"{group}/female/mean"]
        assert two_way[difference] < sentences[difference]


def test_a_design_that_resampled_only_person_words_would_not_widen():
    """The probe of the test above: with professions held fixed the interval stays narrow."""
    figures, ordered = becpro.figures(_profession_effect_items())
    x = ordered[["association"]].to_numpy().T
    persons_only = CrossedDesign.of(
        np.zeros(len(ordered), dtype=int), ordered["person"], figures.sizes
    )
    assert persons_only is not None
    narrow = _bounds(figures, x, Resampling(500, seed=3), persons_only)
    wide = _bounds(figures, x, Resampling(500, seed=3), crossed_design(figures, ordered))
    assert narrow["female/female/mean"] < 0.2 * wide["female/female/mean"]


def test_resamples_keep_strata_and_share_professions_across_genders():
    figures, ordered = becpro.figures(_profession_effect_items())
    design = crossed_design(figures, ordered)
    indices = design.resampled_indices(np.random.default_rng(0), 20)
    assert indices.shape == (20, len(ordered))
    starts = np.concatenate([[0], np.cumsum(figures.sizes)])
    cells = ordered[["profession_group", "gender"]].apply(tuple, axis=1).to_numpy()
    for start, end in itertools.pairwise(starts):
        assert set(cells[indices[:, start:end].ravel()]) == {cells[start]}
    professions = ordered["profession"].to_numpy()
    for draw in indices:  # female group: female-person and male-person cells, same draw
        female, male = (professions[draw[s:e]] for s, e in itertools.pairwise(starts[:3]))
        assert sorted(female) == sorted(male)


def test_an_incomplete_crossing_has_no_design():
    items = _profession_effect_items()
    figures, ordered = becpro.figures(items.iloc[1:])
    assert crossed_design(figures, ordered) is None


def test_paired_comparison_uses_the_design():
    items = _profession_effect_items()
    figures, ordered = becpro.figures(items)
    a = ordered[["association"]].to_numpy().T
    b = a * 0.5  # the models differ by half of each profession's effect
    design = crossed_design(figures, ordered)
    resampling = Resampling(300, seed=1)
    crossed = {
        r["figure"]: r["high"] - r["low"] for r in compare(figures, a, b, resampling, design)
    }
    flat = {r["figure"]: r["high"] - r["low"] for r in compare(figures, a, b, resampling)}
    assert crossed["female/female/mean"] > 3 * flat["female/female/mean"]


# a small complete crossing in the tiny BERT's vocabulary (2 × 2 professions, 2 × 2 persons)
CROSS = [
    (f"My {person} is a {profession}.", person, gender, profession, group)
    for group, professions in (("female", ("nurse", "cat")), ("male", ("doctor", "dog")))
    for profession in professions
    for gender, persons in (("female", ("mother", "girl")), ("male", ("father", "boy")))
    for person in persons
]


def test_report_names_the_design_and_shows_both_intervals(tiny_models, tmp_path):
    data = tmp_path / "becpro.parquet"
    becpro_items(CROSS).to_parquet(data, index=False)
    out = tmp_path / "bp"
    args = ["becpro", "-d", str(data), "-m", tiny_models["masked"], "-o", str(out)]
    result = CliRunner().invoke(app, [*args, "--bootstrap", "200", "--no-progress"])
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text()
    assert "two-way bootstrap: professions (within their group) and person words" in report
    assert "how much a figure would move if other professions and person words" in report
    summary = pd.read_csv(out / "summary.csv")
    assert set(summary["design"]) == {"two-way"}
    assert {"P(f)-P(m)_sentences_low", "P(f)-P(m)_low"} <= set(summary.columns)

    limited = tmp_path / "bp-limited"
    args = ["becpro", "-d", str(data), "-m", tiny_models["masked"], "-o", str(limited)]
    result = CliRunner().invoke(app, [*args, "--limit", "7", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "crossing is incomplete" in (limited / "report.md").read_text()
    assert set(pd.read_csv(limited / "summary.csv")["design"]) == {"sentences"}


@pytest.mark.parametrize("n", [1, 7])
def test_intervals_off_stay_off(n):
    figures, ordered = becpro.figures(_profession_effect_items())
    design = crossed_design(figures, ordered)
    x = ordered[["association"]].to_numpy().T
    assert np.isnan(intervals(figures, x, Resampling(0, seed=n), design)).all()
