"""The shell blocks of the documentation, as the docs tests run them.

A fenced block with the info string ``bash`` or ``sh`` in README.md, in a page under docs/ or in
a file a page includes (``--8<-- "path"``) is a command a reader is told to run. The tests run
each one from a fresh working folder per page, in the page's order (a block may use what an
earlier block of its page made), unless an HTML comment on the line just above the fence says
why it cannot run here:

    <!-- docs-test: skip REASON -->      not run; REASON is one of SKIP_REASONS
    <!-- docs-test: free-port -->        run, with ``--port 0`` added to ``biasforge annotate
                                         serve`` (the default 6900 may be taken on a test machine)
    <!-- docs-test: also-in PAGE -->     not run here: every command of it is a command of a run
                                         block of PAGE (a short form, e.g. the README's examples)

Skipped blocks are still read: every option of every ``biasforge`` command in them must exist
(``test_options.py``). Output shown to the reader goes in ``text`` blocks, which are not run.
The fences are found by markdown-it-py (CommonMark), the parser of the rich/typer stack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parents[2]
SHELLS = {"bash", "sh"}
SKIP_REASONS = {
    "key": "needs a DeepL key or another secret",
    "gpu": "needs a GPU",
    "network": "needs the network (Hugging Face Hub, PyPI, a remote server)",
    "cluster": "needs a Ray or Slurm cluster",
    "long": "takes minutes, or runs until stopped",
    "answers": "needs annotators' answers given in the browser",
    "address": "needs this machine's network address, a certificate or root",
    "plugin": "needs the tutorial's family installed as a package (tests/toy_family runs it)",
}
MARKER = re.compile(
    r"<!--\s*docs-test:\s*(skip\s+(?P<reason>\S+)|(?P<free>free-port)|also-in\s+(?P<page>\S+))\s*-->"
)
SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$', re.MULTILINE)


@dataclass(frozen=True)
class Block:
    page: str  # path relative to the repository
    line: int  # 1-based line of the opening fence
    code: str
    skip: str | None = None  # a key of SKIP_REASONS
    free_port: bool = False
    also_in: str | None = None  # a page whose run blocks hold every command of this one

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[str]:
    """README.md, every page under docs/ and the files pages include, repository-relative."""
    found = ["README.md"]
    for page in sorted((REPO / "docs").rglob("*.md")):
        found.append(page.relative_to(REPO).as_posix())
    for page in list(found):
        for included in SNIPPET.findall((REPO / page).read_text("utf-8")):
            if included.endswith(".md") and included not in found:
                found.append(included)
    return found


@cache
def blocks_of(page: str) -> tuple[Block, ...]:
    text = (REPO / page).read_text("utf-8")
    lines = text.splitlines()
    found = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence" or token.info.strip().split(" ")[0] not in SHELLS:
            continue
        start = token.map[0]
        above = lines[start - 1] if start > 0 else ""
        marker = MARKER.search(above)
        reason = marker.group("reason") if marker else None
        if reason is not None and reason not in SKIP_REASONS:
            raise ValueError(f"{page}:{start}: unknown docs-test reason {reason!r}")
        free = bool(marker and marker.group("free"))
        also = marker.group("page") if marker else None
        found.append(Block(page, start + 1, token.content, reason, free, also))
    return tuple(found)


def all_blocks() -> list[Block]:
    return [block for page in pages() for block in blocks_of(page)]


def indented_shell_fences(page: str) -> list[int]:
    """Lines of shell fences that CommonMark does not see as fences (indented under a list
    item or an admonition): they would render but never run, so the tests refuse them."""
    collected = {b.line for b in blocks_of(page)}
    text = (REPO / page).read_text("utf-8").splitlines()
    pattern = re.compile(r"^\s+```\s*(bash|sh)\s*$")
    return [n for n, line in enumerate(text, 1) if pattern.match(line) and n not in collected]


def commands(code: str) -> list[str]:
    """A block's command lines (continuations joined, comments and blank lines dropped,
    whitespace collapsed), to compare a short form with the page that runs it."""
    lines = (re.sub(r"\s+#.*$", "", line) for line in code.replace("\\\n", " ").splitlines())
    return [" ".join(line.split()) for line in lines if line.strip() and not line.startswith("#")]
