"""What ``mkdocs build --strict`` cannot see: the README's links (the README is not a page of
the site) and the origin of the annotators' guide's pictures."""

from __future__ import annotations

import re

from tests.docs.blocks import REPO

LINK = re.compile(r"\]\(([^)\s]+)\)")
PICTURE = re.compile(r"!\[[^\]]*\]\(\.\./screenshots/([\w-]+)\.png\)")
TAKEN = re.compile(r'docs="([\w-]+)"')


def test_the_readme_links_to_files_that_exist():
    text = (REPO / "README.md").read_text("utf-8")
    targets = [t for t in LINK.findall(text) if "://" not in t and not t.startswith("#")]
    assert targets, "the README links to the documentation"
    missing = [t for t in targets if not (REPO / t.split("#")[0]).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_the_annotators_guide_shows_pictures_the_browser_tests_take():
    guide = (REPO / "docs" / "guides" / "annotators.md").read_text("utf-8")
    shown = set(PICTURE.findall(guide))
    taken = {
        name
        for test in (REPO / "tests" / "annotation").glob("test_*.py")
        for name in TAKEN.findall(test.read_text("utf-8"))
    }
    assert shown, "the guide shows screenshots"
    assert shown <= taken, f"pictures no browser test takes: {sorted(shown - taken)}"
    assert taken <= shown, f"pictures taken for the guide but not shown: {sorted(taken - shown)}"
    # each picture's size is checked where the browser test takes it (helpers.screenshot), and
    # ./dev test builds the site strictly after the tests, so a picture not taken fails there
