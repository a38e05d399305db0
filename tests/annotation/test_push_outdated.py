"""A push never rewrites a record annotators may have answered, but it says how many of the
records already there show other text than the run it pushes (a maintainer who re-curated
after a fix and pushed into the same dataset got "0 created, N already there" and reviewed the
old text without a word).

On the real embedded server: the same run pushed twice counts nothing as outdated (each
family's fields are rebuilt exactly as pushed: StereoSet's keyed option order, CrowS-Pairs'
highlight markup, BEC-Pro's spans); the same ids with one sentence changed count one, and
``annotate push`` says so in one line.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review.push import push_run
from tests.conftest import run_cli, write_unchecked_run

ROWS = 12


def run_of(given) -> Path:
    """The run of a session fixture (``crowspairs_en`` gives its run and its release)."""
    return given["run"] if isinstance(given, dict) else given


def first_rows(run: Path) -> list[dict]:
    return pq.read_table(run / "candidates.parquet").slice(0, ROWS).to_pylist()


@pytest.mark.parametrize("fixture", ["becpro_run", "stereoset_fr_run", "crowspairs_en"])
def test_the_same_run_pushed_again_is_not_outdated(fixture, request, server, tmp_path):
    given = run_of(request.getfixturevalue(fixture))
    rows = first_rows(given)
    run = write_unchecked_run(tmp_path / "run", rows, rows[0]["family"])
    connection = find_server(server.data_dir)
    dataset = f"outdated-same-{fixture.replace('_', '-')}"
    first = push_run(run, dataset, connection, progress=False)
    again = push_run(run, dataset, connection, progress=False)
    assert (first.created, first.outdated) == (ROWS, 0)
    assert (again.created, again.already_present, again.outdated) == (0, ROWS, 0)


def test_changed_text_under_the_same_ids_is_counted_and_said(becpro_run, server, tmp_path):
    rows = first_rows(becpro_run)
    connection = find_server(server.data_dir)
    dataset = "outdated-changed"
    before = write_unchecked_run(tmp_path / "before", rows, "becpro")
    assert push_run(before, dataset, connection, progress=False).created == ROWS
    changed = [dict(row) for row in rows]
    changed[3]["sentence"] = changed[3]["sentence"].replace(".", "!")
    assert changed[3]["sentence"] != rows[3]["sentence"]
    after = write_unchecked_run(tmp_path / "after", changed, "becpro")
    said = run_cli("annotate", "push", after, "--dataset", dataset, "--data-dir", server.data_dir)
    lines = said.stdout.splitlines()
    assert lines[0].startswith(f"{dataset}: 0 records created, {ROWS} already there")
    assert lines[1] == (
        f"{dataset}: 1 of the records already there show other text than this run's items "
        "(pushed from an earlier run); they are left as they are, since annotators may have "
        "answered them: push the run to a new --dataset to review its text"
    )
