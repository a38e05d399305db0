"""The same datatrove pipeline under datatrove's Ray and Slurm executors gives the local
executor's run: the same candidates in the same order, the same rejected rows and counts.

Ray: a real local Ray cluster with 2 CPUs, started by ``--executor ray``. Slurm: no cluster
here, so ``sbatch``, ``srun`` and ``scontrol`` are stubs on PATH — ``sbatch`` records each
script and its arguments and answers a job id, as Slurm does; the recorded scripts are then
run the way Slurm would run them (``bash`` with ``SLURM_ARRAY_TASK_ID`` set for every array
index, the merge job after the mining job), so the test checks the scripts datatrove wrote, not
only their text.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from biasforge.contract.rundir import read_run
from biasforge.curation.slguset.sample import BUNDLED_SAMPLE
from tests.conftest import run_cli

COUNTS = (
    "documents", "raw_chars", "sentences_seen", "sentences_without_keyword", "duplicates",
    "quote_repairs", "kept", "rejected", "needs_review", "rejections_per_rule", "per_keyword",
    "per_form",
)  # fmt: skip

SBATCH = r"""#!/bin/bash
# records the script (last argument) and the other arguments, answers like sbatch
log="$STUB_LOG"; n=$(ls "$log" | grep -c '\.sh$')
printf '%s\n' "${@:1:$#-1}" > "$log/$n.args"
cat "${@: -1}" > "$log/$n.sh"
echo "Submitted batch job $((4200 + n))"
"""
SRUN = r"""#!/bin/bash
while [ $# -gt 0 ]; do case "$1" in -l) shift;; -n) shift 2;; -*) shift;; *) break;; esac; done
exec "$@"
"""
SCONTROL = r"""#!/bin/bash
[ "$1 $2" = "show hostnames" ] && echo "$3"
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text(BUNDLED_SAMPLE.read_text(encoding="utf-8") * 8, encoding="utf-8")  # > 1 MB
    return path


@pytest.fixture(scope="module")
def local_run(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "run"
    # a process of its own: the local executor forks its workers from the command's process
    run_cli("curate", "slguset", "--corpus", corpus, "--out", out, "--num-proc", "2",
            process=True)  # fmt: skip
    return read_run(out)


def same_run(a, b) -> None:
    pd.testing.assert_frame_equal(a.candidates, b.candidates)
    pd.testing.assert_frame_equal(a.rejected, b.rejected)
    for key in COUNTS:
        assert a.stats[key] == b.stats[key], key


def test_ray_executor_on_a_local_cluster_gives_the_local_run(corpus, local_run, tmp_path):
    out = tmp_path / "ray"
    result = run_cli(
        "curate",
        "slguset",
        "--corpus",
        corpus,
        "--out",
        out,
        "--executor",
        "ray",
        "--num-proc",
        "2",
        process=True,  # Ray: a head and workers that must end with the command's process
    )  # a local Ray cluster with 2 CPUs, started and stopped by the command
    assert "candidates kept" in result.stdout
    ray_run = read_run(out)
    assert ray_run.stats["executor"] == "ray" and ray_run.manifest["config"]["executor"] == "ray"
    assert ray_run.stats["task_cpu_seconds"].keys() == {"0", "1"}
    same_run(local_run, ray_run)


@pytest.fixture
def slurm_stubs(tmp_path):
    """A PATH with stub sbatch/srun/scontrol and the folder where sbatch records."""
    bin_dir, log = tmp_path / "bin", tmp_path / "sbatch-log"
    bin_dir.mkdir()
    log.mkdir()
    for name, text in (("sbatch", SBATCH), ("srun", SRUN), ("scontrol", SCONTROL)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", STUB_LOG=str(log))
    return env, log


def recorded(log: Path) -> list[tuple[list[str], str]]:
    calls = sorted(log.glob("*.sh"), key=lambda p: int(p.stem))
    return [(p.with_suffix(".args").read_text().split(), p.read_text()) for p in calls]


def check_sbatch_script(script: str, partition: str) -> dict[str, str]:
    """A script sbatch accepts: shebang, then only #SBATCH lines until the first command,
    valid bash; returns its directives."""
    lines = script.splitlines()
    assert lines[0] == "#!/bin/bash"
    directives = {}
    for line in lines[1:]:
        if not line.startswith("#SBATCH"):
            break
        match = re.fullmatch(r"#SBATCH --([a-z-]+)(?:=(\S+))?", line)
        assert match, line
        directives[match[1]] = match[2] or ""
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0
    assert directives["partition"] == partition
    for key in ("job-name", "time", "output", "array", "cpus-per-task"):
        assert key in directives
    return directives


def test_slurm_dry_run_prints_valid_sbatch_scripts_and_submits_nothing(
    corpus, slurm_stubs, tmp_path
):
    env, log = slurm_stubs
    out = tmp_path / "runs" / "slg"
    result = run_cli(
        "curate", "slguset", "--corpus", corpus, "--out", out, "--num-proc", "2",
        "--executor", "slurm", "--slurm-partition", "cpu-small", "--dry-run", env=env,
    )  # fmt: skip
    assert recorded(log) == []  # nothing went to sbatch
    scripts = re.findall(r"<<'EOF'\n(.*?)EOF\n", result.stdout, flags=re.S)
    assert len(scripts) == 4  # mining array, its stats merge, the merge job, its stats merge
    mine, _, merge, _ = (check_sbatch_script(s, "cpu-small") for s in scripts)
    assert mine["array"] == "0-1" and mine["job-name"] == "slguset-mine"
    assert merge["array"] == "0-0" and merge["job-name"] == "slguset-merge"
    assert "launch_pickled_pipeline" in scripts[0] and "executor.pik" in scripts[0]
    assert (tmp_path / "runs" / "slg.slurm" / "logs" / "mine" / "executor.pik").is_file()
    assert "--dependency=afterok:dry-run-1" in result.stdout
    assert not out.exists()


def test_slurm_jobs_run_as_slurm_runs_them_give_the_local_run(
    corpus, local_run, slurm_stubs, tmp_path
):
    env, log = slurm_stubs
    out = tmp_path / "runs" / "slg"
    result = run_cli(
        "curate", "slguset", "--corpus", corpus, "--out", out, "--num-proc", "2",
        "--executor", "slurm", "--slurm-partition", "cpu", env=env,
    )  # fmt: skip
    assert "submitted Slurm job 4200" in result.stdout
    calls = recorded(log)
    assert len(calls) == 4
    (mine_args, mine), (_, mine_stats), (merge_args, merge), _ = calls
    assert mine_args == ["--export=ALL,RUN_OFFSET=0"]
    directives = check_sbatch_script(mine, "cpu")
    assert directives["array"] == "0-1"
    assert "--dependency=afterok:4200" in merge_args  # the merge waits for the mining array
    assert check_sbatch_script(mine_stats, "cpu")["dependency"] == "afterok:4200"
    assert not out.exists()  # nothing ran yet

    def run_job(script: str, task: int) -> None:
        job_env = dict(env, SLURM_ARRAY_TASK_ID=str(task), RUN_OFFSET="0")
        job_env["SLURM_NODELIST"] = "node1"
        done = subprocess.run(
            ["bash", "-c", script], env=job_env, capture_output=True, text=True, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr[-3000:]

    for task in (0, 1):  # the array's tasks, in any order
        run_job(mine, 1 - task)
    run_job(merge, 0)
    slurm_run = read_run(out)
    assert slurm_run.stats["executor"] == "slurm"
    same_run(local_run, slurm_run)
    assert not (tmp_path / "runs" / "slg.slurm" / "parts").exists()  # rows merged, removed


def test_executor_options_are_checked_before_any_work(tmp_path):
    for args, message in [
        (["--executor", "spark"], "unknown --executor"),
        (["--executor", "slurm"], "needs --slurm-partition"),
        (["--dry-run"], "--dry-run goes with --executor slurm"),
        (["--ray-address", "auto"], "--ray-address goes with --executor ray"),
    ]:
        result = run_cli("curate", "slguset", "--out", tmp_path / "r", *args, check=False)
        assert result.returncode != 0
        assert message in result.stderr, result.stderr
    assert not (tmp_path / "r").exists()


def test_python_api_refuses_slurm_in_curate(tmp_path):
    from biasforge.curation.slguset import Options, curate
    from biasforge.errors import BiasforgeError

    with pytest.raises(BiasforgeError, match="submit_slurm"):
        curate(Options(executor="slurm", slurm_partition="cpu"), tmp_path / "r")
