"""Every shell block of the documentation runs, against the bundled data (see ``blocks.py``).

The blocks of one page share one working folder and one ``BIASFORGE_HOME``: a block may use
what an earlier block of its page made, so a block's test first runs the page's earlier blocks
that have not run yet in this process (none, in file order; some, when a test runner splits the
page across processes). Every server a page started is stopped when the session ends.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.docs.blocks import REPO, SKIP_REASONS, Block, all_blocks, blocks_of, commands, pages

BLOCKS = all_blocks()
SERVE = re.compile(r"^(\s*biasforge annotate serve\b.*?)(\s*#.*)?$", re.MULTILINE)


@dataclass
class Page:
    """A page's working folder and how far its blocks have run."""

    folder: Path
    done: set[int] = field(default_factory=set)
    failed: int | None = None

    @property
    def env(self) -> dict[str, str]:
        venv_bin = str(Path(sys.executable).parent)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGILLA_", "DEEPL_"))}
        return {
            **env,
            "PATH": f"{venv_bin}{os.pathsep}{env.get('PATH', '')}",
            "BIASFORGE_HOME": str(self.folder / ".biasforge"),
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(self.folder / ".hf"),
            "CI": "1",  # progress bars as a few plain lines
        }


@pytest.fixture(scope="session")
def page_folders(tmp_path_factory):
    """One working folder per page, laid out as a clone's root for what pages read from it
    (the bundled ``curation/data``, linked); servers the pages left running are stopped."""
    made: dict[str, Page] = {}

    def folder(page: str) -> Page:
        if page not in made:
            root = tmp_path_factory.mktemp(re.sub(r"\W+", "-", page))
            (root / "curation").mkdir()
            (root / "curation" / "data").symlink_to(REPO / "curation" / "data")
            made[page] = Page(root)
        return made[page]

    yield folder
    for state in made.values():
        if (state.folder / ".biasforge" / "argilla" / "server.json").exists():
            subprocess.run(
                [str(Path(sys.executable).with_name("biasforge")), "annotate", "stop"],
                env=state.env, capture_output=True, timeout=120,
            )  # fmt: skip


def script(block: Block) -> str:
    code = block.code
    if block.free_port:
        code = SERVE.sub(lambda m: f"{m.group(1)} --port 0{m.group(2) or ''}", code)
    return code


def run_block(block: Block, state: Page) -> None:
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script(block)],
        cwd=state.folder, env=state.env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    if result.returncode != 0:
        state.failed = block.line
        pytest.fail(
            f"{block.id}: the block exited {result.returncode}\n--- block\n{block.code}"
            f"--- stdout (end)\n{result.stdout[-3000:]}\n--- stderr (end)\n{result.stderr[-3000:]}",
            pytrace=False,
        )
    state.done.add(block.line)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs(block: Block, page_folders):
    if block.skip:
        pytest.skip(f"{block.id}: {SKIP_REASONS[block.skip]}")
    if block.also_in:
        run_there = {c for b in blocks_of(block.also_in) if not b.skip for c in commands(b.code)}
        missing = [c for c in commands(block.code) if c not in run_there]
        assert not missing, f"{block.id}: not run by {block.also_in}: {missing}"
        return
    state = page_folders(block.page)
    for earlier in blocks_of(block.page):
        if earlier.line >= block.line:
            break
        if state.failed is not None:
            pytest.fail(f"{block.page}:{state.failed}, an earlier block, failed", pytrace=False)
        if not (earlier.skip or earlier.also_in) and earlier.line not in state.done:
            run_block(earlier, state)
    run_block(block, state)


@pytest.mark.parametrize("page", pages())
def test_no_shell_block_hides_from_the_tests(page):
    from tests.docs.blocks import indented_shell_fences

    assert not indented_shell_fences(page), f"{page}: shell fences not seen as fences"
