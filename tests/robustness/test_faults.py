"""kill -9 in the middle of a release: nothing half-visible, the re-run completes, nothing left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import run_cli


def _biasforge(*args: object) -> list[str]:
    return [os.path.join(os.path.dirname(sys.executable), "biasforge"), *map(str, args)]


def test_release_killed_midway_leaves_nothing_visible_and_reruns_cleanly(tmp_path: Path):
    runs = []
    for lang, variant in (("es", "with_articles"), ("es", "without_articles"), ("eu", None)):
        out = tmp_path / f"becpro-{lang}-{variant}"
        run_cli("curate", "becpro", "--lang", lang, *(["--variant", variant] if variant else []),
                "--out", out)  # fmt: skip
        runs.append(out)
    releases = tmp_path / "releases"
    args = ["export", "release", *runs, "--name", "b", "--version", "1.0.0", "--unreviewed",
            "--out", releases]  # fmt: skip
    proc = subprocess.Popen(_biasforge(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    staging = []
    while time.monotonic() < deadline and proc.poll() is None and not staging:
        staging = (
            list((releases / "b").glob(".1.0.0.partial-*")) if (releases / "b").is_dir() else []
        )
        time.sleep(0.01)
    assert staging, "the release finished before it could be killed: make the input larger"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert not (releases / "b" / "1.0.0").exists()  # nothing half-written in view
    run_cli(*args)
    assert (releases / "b" / "1.0.0" / "manifest.json").is_file()
    leftovers = [p.name for p in (releases / "b").iterdir() if ".partial-" in p.name]
    assert leftovers == []  # the killed writer's staging folder was cleaned
    run_cli("export", "convert", releases / "b" / "1.0.0", "--format", "becpro-tsv",
            "--out", tmp_path / "check.tsv")  # fmt: skip  # the release verifies
