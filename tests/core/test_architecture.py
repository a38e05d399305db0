"""The architecture's promise, by grep: a family is its own modules plus data, and no other file
of the repository names it (``docs/architecture.md``: no ``if family == ...``, no table keyed by
family names outside a family's own module).

A family's own files are those with a path component named after it (``families/NAME.py``,
``curation/NAME/``, ``curation/commands/NAME.py``, ``scoring/tasks/NAME_task.py``,
``exports/lm_eval/NAME.py``, ``tests/NAME/``, ``docs/families/NAME.md``, its guidelines in
``families/data/NAME_guidelines.md``...). The pages that list the families for readers
(the families' overview, the tutorial's real examples, the site's navigation) and the family's
citation are the only others allowed to name it. Checked for the families registered since the
rule was written; the four older ones are still named by the commands that predate the registry
(``score stereoset-eval``, ``score distances``).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from biasforge import families

ROOT = Path(__file__).resolve().parents[2]
#: families held to the rule (a family added since is added here)
CHECKED = ("bbq",)
#: files that list the families for readers
LISTINGS = {
    "docs/add-a-family.md",
    "docs/families/index.md",
    "mkdocs.yml",
    "docs/adapting-to-a-culture.md",
}  # cites KoBBQ and MBBQ as the practice followed
CITATIONS = {"bbq": "biasforge/families/data/citations/parrish2022.bib"}


def own(path: str, name: str) -> bool:
    """Whether ``path`` is one of family ``name``'s own files (a component named after it)."""
    return any(re.fullmatch(rf"{name}(_\w+)?(\.\w+)*", part) for part in Path(path).parts)


def naming(name: str, root: Path = ROOT) -> list[str]:
    """The tracked files outside the family's own that name it (as a word, any case)."""
    found = subprocess.run(
        ["git", "grep", "-l", "-i", "-I", "-w", name],
        cwd=root, capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip
    allowed = LISTINGS | {CITATIONS.get(name, ""), str(Path(__file__).relative_to(ROOT))}
    return sorted(p for p in found if not own(p, name) and p not in allowed)


@pytest.mark.parametrize("name", CHECKED)
def test_no_file_outside_a_family_names_it(name: str) -> None:
    assert name in families.names()
    assert naming(name) == []


def test_the_grep_sees_a_name_outside_the_family(tmp_path: Path) -> None:
    """The check can fail: a stage file naming the family is found, its own files are not."""
    files = {
        "scoring/runner.py": 'if family == "BBQ":\n',
        "scoring/tasks/bbq_task.py": 'name = "bbq"\n',
        "curation/bbq/generate.py": "bbq\n",
        "docs/add-a-family.md": "- BBQ\n",
        "exports/release.py": "bbqs are not named\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    assert naming("bbq", tmp_path) == ["scoring/runner.py"]
