"""Issue 37, item 2: ``--overwrite`` replaces only an earlier output of the same kind *and the
same family*. ``curate becpro --out runs/ss-fr --overwrite`` silently replaced a StereoSet run;
now a run replaces only a run of its own family (refused before any work), a converted file
only one converted from the same family's items, a release name holds one family, and a
Slurm job folder is removed only when biasforge wrote it."""

from __future__ import annotations

from pathlib import Path

import pytest

from biasforge.contract.exported import check_output
from biasforge.curation.crowspairs.source import BUNDLED_SAMPLE as CROWS_SAMPLE
from biasforge.errors import OutputExistsError
from tests.conftest import one_error_line, run_cli
from tests.helpers import snapshot


@pytest.fixture(scope="module")
def crows_run(tmp_path_factory) -> Path:
    """A CrowS-Pairs run (English, no translation): another family than BEC-Pro's."""
    run = tmp_path_factory.mktemp("crows") / "run"
    run_cli("curate", "crowspairs", "--lang", "en", "--source", CROWS_SAMPLE, "--out", run)
    return run


def test_a_run_never_replaces_a_run_of_another_family(crows_run: Path):
    before = snapshot(crows_run)
    result = run_cli(
        "curate", "becpro", "--lang", "en", "--out", crows_run, "--overwrite", check=False
    )
    line = one_error_line(result)
    assert f"{crows_run}: holds a biasforge run of crowspairs, not becpro" in line
    assert snapshot(crows_run) == before


def test_a_run_replaces_a_run_of_its_own_family(tmp_path: Path):
    run = tmp_path / "run"
    run_cli("curate", "becpro", "--lang", "en", "--out", run)
    run_cli("curate", "becpro", "--lang", "eu", "--out", run, "--overwrite")
    assert '"language": "eu"' in (run / "stats.json").read_text(encoding="utf-8")


def test_a_converted_file_is_replaced_only_by_the_same_familys_items(
    crows_run: Path, tmp_path: Path
):
    out = tmp_path / "pairs.csv"
    run_cli("export", "convert", crows_run, "--format", "crows-csv", "--out", out)
    run_cli("export", "convert", crows_run, "--format", "crows-csv", "--out", out, "--overwrite")
    # no two built-in families share a file format: the rule is checked where it is applied
    with pytest.raises(OutputExistsError, match="it holds crowspairs items, not becpro"):
        check_output(out, "crows-csv", crows_run, True, "becpro")
    check_output(out, "crows-csv", crows_run, True, "crowspairs")


def test_a_release_name_holds_one_family(crows_run: Path, tmp_path: Path):
    releases = tmp_path / "releases"
    run_cli("export", "release", crows_run, "--name", "pairs", "--version", "0.1.0",
            "--unreviewed", "--out", releases)  # fmt: skip
    becpro = tmp_path / "becpro"
    run_cli("curate", "becpro", "--lang", "en", "--out", becpro)
    result = run_cli("export", "release", becpro, "--name", "pairs", "--version", "0.2.0",
                     "--unreviewed", "--out", releases, check=False)  # fmt: skip
    line = one_error_line(result)
    assert "holds crowspairs releases (0.1.0" in line and "not becpro" in line
    assert sorted(p.name for p in (releases / "pairs").iterdir()) == ["0.1.0"]


def _slurm(out: Path, *extra: str):
    return run_cli("curate", "slguset", "--out", out, "--executor", "slurm",
                   "--slurm-partition", "cpu", "--dry-run", *extra, check=False)  # fmt: skip


def test_overwrite_removes_only_a_slurm_job_folder_biasforge_wrote(tmp_path: Path):
    out = tmp_path / "slg"
    assert _slurm(out).returncode == 0
    assert _slurm(out, "--overwrite").returncode == 0  # its own job folder: replaced
    mine = tmp_path / "mine"
    (mine.with_name("mine.slurm")).mkdir()
    (mine.with_name("mine.slurm") / "notes.txt").write_text("mine", encoding="utf-8")
    line = one_error_line(_slurm(mine, "--overwrite"))
    assert "mine.slurm: not the folder of a slguset Slurm job biasforge wrote" in line
    assert (mine.with_name("mine.slurm") / "notes.txt").read_text(encoding="utf-8") == "mine"
