"""Every shell block of the documentation runs, against the bundled data (see ``blocks.py``).

The blocks of one page share one working folder and one ``BIASFORGE_HOME``: a block may use
what an earlier block of its page made, so a block's test first runs the page's earlier blocks
that have not run yet in this process (none, in file order; some, when a test runner splits the
page across processes). Every server a page started is stopped when the session ends.

A block is run by bash, except one that is nothing but ``biasforge`` commands with nothing for
a shell to do (no pipe, redirection, variable, glob or other shell syntax): its commands run
one after the other through ``run_cli`` (in this process, with the page's environment and
folder), stopping at the first that fails as ``bash -e`` would. A block that starts a server
(``annotate serve``) or forks workers (``--num-proc``) stays a shell.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.docs.blocks import REPO, SKIP_REASONS, Block, all_blocks, blocks_of, commands, pages

BLOCKS = all_blocks()
SERVE = re.compile(r"^(\s*biasforge annotate serve\b.*?)(\s*#.*)?$", re.MULTILINE)
SHELL_SYNTAX = re.compile(
    r"[|&;<>()$`*?\[\]{}~!\\'\"]"
)  # anything bash would do more than split on
OWN_PROCESS = {"serve", "--num-proc"}  # a server outliving the command; workers forked from it


@dataclass
class Page:
    """A page's working folder and how far its blocks have run."""

    folder: Path
    done: set[int] = field(default_factory=set)
    failed: int | None = None

    @property
    def env(self) -> dict[str, str | None]:
        """The environment of the page's commands (None: a variable unset for them)."""
        venv_bin = str(Path(sys.executable).parent)
        unset = {k: None for k in os.environ if k.startswith(("ARGILLA_", "DEEPL_"))}
        env = {k: v for k, v in os.environ.items() if k not in unset}
        return {
            **env,
            **unset,
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
            run_cli("annotate", "stop", check=False, env=state.env, process=True)


def script(block: Block) -> str:
    code = block.code
    if block.free_port:
        code = SERVE.sub(lambda m: f"{m.group(1)} --port 0{m.group(2) or ''}", code)
    return code


def biasforge_commands(block: Block) -> list[list[str]] | None:
    """The argument lists of a block made only of plain ``biasforge`` commands, one a line
    (continuations joined, comments dropped); None for a block a shell must run."""
    argvs = []
    for line in commands(block.code):
        if SHELL_SYNTAX.search(line):
            return None
        words = shlex.split(line)
        if words[0] != "biasforge" or OWN_PROCESS & set(words):
            return None
        argvs.append(words[1:])
    return argvs


def run_shell(block: Block, state: Page) -> subprocess.CompletedProcess:
    env = {k: v for k, v in state.env.items() if v is not None}
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script(block)],
        cwd=state.folder, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def run_commands(argvs: list[list[str]], state: Page) -> subprocess.CompletedProcess:
    """The commands in order, as ``bash -e`` runs them: the first that fails ends the block."""
    out, err = [], []
    for argv in argvs:
        result = run_cli(*argv, check=False, env=state.env, cwd=state.folder)
        out.append(result.stdout)
        err.append(result.stderr)
        if result.returncode != 0:
            break
    return subprocess.CompletedProcess(argvs, result.returncode, "".join(out), "".join(err))


def run_block(block: Block, state: Page) -> None:
    argvs = biasforge_commands(block)
    result = run_shell(block, state) if argvs is None else run_commands(argvs, state)
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
