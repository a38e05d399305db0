"""``biasforge curate bbq``, the family registered as every built-in one is (a module of
``biasforge.families``): all 11 categories, one seed one run."""

from __future__ import annotations

from pathlib import Path

from biasforge.contract.rundir import CANDIDATES, read_run
from biasforge.families.bbq import FAMILY
from tests.cli_runner import run_cli

#: the authors' published line counts of data/*.jsonl
COUNTS = {
    "Age": 3680,
    "Disability_status": 1556,
    "Gender_identity": 5672,
    "Nationality": 3080,
    "Physical_appearance": 1576,
    "Race_ethnicity": 6880,
    "Race_x_SES": 11160,
    "Race_x_gender": 15960,
    "Religion": 1200,
    "SES": 6864,
    "Sexual_orientation": 864,
}


def test_curate_builds_all_eleven_categories(tmp_path: Path) -> None:
    run_cli("curate", "bbq", "--lang", "en", "--out", tmp_path / "run")
    run = read_run(tmp_path / "run", "bbq")
    table = run.table.to_pandas()
    assert table.groupby("category").size().to_dict() == COUNTS
    assert len(table) == sum(COUNTS.values()) == 58492
    assert FAMILY.schema.check(run.table) == []
    single = table[~table.category.str.contains("_x_")]
    assert single.target_loc.notna().mean() > 0.99
    crossed = table[table.category.str.contains("_x_")]  # all but template 21's 44
    assert crossed.target_loc.isna().sum() == 44
    assert set(crossed.label_type) == {"name", "label"}


def test_a_seed_gives_a_byte_identical_run(tmp_path: Path) -> None:
    def curate(name: str, seed: int) -> bytes:
        args = ("--category", "Religion", "--category", "Race_x_SES", "--seed", seed)
        run_cli("curate", "bbq", "--lang", "en", *args, "--out", tmp_path / name)
        return (tmp_path / name / CANDIDATES).read_bytes()

    assert curate("a", 4) == curate("b", 4) != curate("c", 5)


def test_other_languages_are_refused_naming_the_option(tmp_path: Path) -> None:
    result = run_cli("curate", "bbq", "--lang", "fr", "--out", tmp_path / "r", check=False)
    assert result.returncode == 2
    assert "--lang" in result.stderr + result.stdout
    assert not (tmp_path / "r").exists()
