"""``--overwrite`` and a user's symlink inside a run (issue 27, item 10): whatever the link
points at (a folder of theirs, a file, nowhere) and wherever it sits (top level or in a
subfolder), the run is not replaced: exit 2, one line naming the link, the link and its target
untouched. An empty folder the user made inside the run counts the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import curate_becpro_en, one_error_line
from tests.helpers import snapshot


def _link_to_folder(run: Path, mine: Path) -> Path:
    (mine / "data").mkdir()
    (mine / "data" / "thesis.tex").write_text("chapter 1")
    (run / "my-data").symlink_to(mine / "data", target_is_directory=True)
    return run / "my-data"


def _link_to_file(run: Path, mine: Path) -> Path:
    (mine / "notes.md").write_text("notes")
    (run / "notes.md").symlink_to(mine / "notes.md")
    return run / "notes.md"


def _dangling_link(run: Path, mine: Path) -> Path:
    (run / "later").symlink_to(mine / "not-yet")
    return run / "later"


def _nested_link(run: Path, mine: Path) -> Path:
    (mine / "data").mkdir()
    (mine / "data" / "thesis.tex").write_text("chapter 1")
    (run / "extra").mkdir()
    (run / "extra" / "link").symlink_to(mine / "data", target_is_directory=True)
    return run / "extra" / "link"


def _empty_folder(run: Path, mine: Path) -> Path:
    (run / "figures").mkdir()
    return run / "figures"


CASES: list[tuple[str, Callable[[Path, Path], Path]]] = [
    ("link to a folder", _link_to_folder),
    ("link to a file", _link_to_file),
    ("dangling link", _dangling_link),
    ("link in a subfolder", _nested_link),
    ("empty folder", _empty_folder),
]


@pytest.mark.parametrize("make", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_a_users_link_inside_a_run_stops_overwrite(tmp_path, make):
    run, mine = tmp_path / "run", tmp_path / "mine"
    mine.mkdir()
    curate_becpro_en(run).check_returncode()
    made = make(run, mine)
    before = snapshot(tmp_path)
    line = one_error_line(curate_becpro_en(run, "--overwrite"))
    assert made.relative_to(run).as_posix() in line and "biasforge did not write" in line, line
    assert snapshot(tmp_path) == before


def test_without_the_link_the_run_is_replaced(tmp_path):
    """The same run without the user's addition is replaced (the refusal above is the link's)."""
    run, mine = tmp_path / "run", tmp_path / "mine"
    mine.mkdir()
    curate_becpro_en(run).check_returncode()
    made = _link_to_folder(run, mine)
    made.unlink()
    curate_becpro_en(run, "--overwrite").check_returncode()
    assert (mine / "data" / "thesis.tex").read_text() == "chapter 1"
