"""Issue 37, item 5: every value that reaches a generated Slurm job script is one Slurm
accepts for it. ``--slurm-time`` with a newline wrote ``#SBATCH --evil`` into the launch
script and ``"1 --wrap=evil"`` was accepted; now each is one line naming the option, exit 2,
and no job folder is written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from biasforge.curation.slguset import Options
from biasforge.curation.slguset.pipeline import submit_slurm
from biasforge.errors import BiasforgeError
from tests.conftest import one_error_line, run_cli


def _dry_run(out: Path, *extra: str):
    return run_cli("curate", "slguset", "--out", out, "--executor", "slurm",
                   "--slurm-partition", "cpu", "--dry-run", *extra, check=False)  # fmt: skip


@pytest.mark.parametrize(
    "value",
    ["1\n#SBATCH --evil", "1 --wrap=evil", "24:00:00 ", "1:2:3:4", "1-2-3", "abc", "", "-1",
     "1d", "2-", "1234567"],
)  # fmt: skip
def test_a_time_slurm_does_not_accept_is_one_line_and_writes_nothing(tmp_path, value):
    out = tmp_path / "slg"
    line = one_error_line(_dry_run(out, "--slurm-time", value))
    assert line.startswith("error: --slurm-time ") and "days-hours:minutes:seconds" in line
    assert not out.with_name("slg.slurm").exists()


@pytest.mark.parametrize("value", ["90", "90:30", "24:00:00", "2-12", "2-12:30", "2-12:30:15"])
def test_each_of_slurms_time_formats_is_written_as_given(tmp_path, value):
    result = _dry_run(tmp_path / "slg", "--slurm-time", value)
    assert result.returncode == 0, result.stderr
    scripts = re.findall(r"<<'EOF'\n(.*?)EOF\n", result.stdout, flags=re.S)
    assert scripts and all(f"\n#SBATCH --time={value}\n" in s for s in scripts)


@pytest.mark.parametrize("folder", ["a b", "a\nb", "a%j", "a;b", "a'b", "a$b"])
def test_an_out_path_the_scripts_would_misread_is_one_line(tmp_path, folder):
    out = tmp_path / folder
    line = one_error_line(_dry_run(out))
    assert line.startswith("error: --out: ") and "named unquoted in the Slurm job scripts" in line
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"slurm_partition": "cpu\n#SBATCH --evil"}, "--slurm-partition"),
        ({"slurm_time": "1 --wrap=evil"}, "--slurm-time"),
        ({"slurm_sbatch_args": {"wrap": "rm -rf x"}}, "slurm_sbatch_args: --wrap"),
        ({"slurm_sbatch_args": {"x\n#SBATCH --evil": "1"}}, "slurm_sbatch_args:"),
        ({"slurm_env_command": "source a\n#SBATCH --evil"}, "slurm_env_command"),
    ],
)
def test_the_api_checks_the_same_values(tmp_path, options, named):
    """Options reach submit_slurm without the command line's checks."""
    settings = {"executor": "slurm", "slurm_partition": "cpu", **options}
    with pytest.raises(BiasforgeError, match=re.escape(named)):
        submit_slurm(Options(**settings), tmp_path / "slg", dry_run=True)
    assert not list(tmp_path.iterdir())
