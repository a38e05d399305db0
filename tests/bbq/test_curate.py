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
        args = ("--category", "Religion", "--seed", seed)  # (the intersectional generator's
        # seed: tests/bbq/test_intersectional.py)
        run_cli("curate", "bbq", "--lang", "en", *args, "--out", tmp_path / name)
        return (tmp_path / name / CANDIDATES).read_bytes()

    assert curate("a", 4) == curate("b", 4) != curate("c", 5)


def test_what_other_languages_cannot_build_is_refused_naming_the_option(tmp_path: Path) -> None:
    """The intersectional templates are English only so far, and a language needs its own first
    names for the proper-name templates: each refused in one line, before anything is written
    or sent."""
    crossed = ("--lang", "fr", "--category", "Race_x_SES", "--out", tmp_path / "a")
    no_names = ("--lang", "de", "--category", "Religion", "--out", tmp_path / "b")
    for args, said in ((crossed, "--category Race_x_SES"), (no_names, "names_de.csv")):
        result = run_cli("curate", "bbq", *args, check=False)
        assert result.returncode == 2, result.stderr
        assert said in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
