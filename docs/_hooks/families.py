"""MkDocs hook: a family page shows the family as the registry describes it, at build time.

``<!-- family-contract: NAME -->`` becomes what ``biasforge families NAME`` prints (the record
columns with their types and allowed values, the rules, the review questions) and the columns a
reviewed release adds; ``<!-- family-guidelines: NAME -->`` becomes the guidelines annotators
read in Argilla, quoted. The pages therefore cannot drift from the code: a renamed column or
question changes the page, and an unknown family name fails the build.
"""

from __future__ import annotations

import html
import re

from biasforge import families
from biasforge.cli import describe_family
from biasforge.families.base import REVIEW_COLUMNS

MARKER = re.compile(r"<!-- family-(contract|guidelines): ([a-z0-9_-]+) -->")


def contract(name: str) -> str:
    """The registry's description without its title line, and the review columns."""
    lines = describe_family(families.get(name)).splitlines()
    body = "\n".join(lines[1:] if lines and lines[0].startswith("# ") else lines).strip()
    body = html.escape(body, quote=False)  # Arrow types such as list<item: string> are text
    added = "\n".join(f"| {c} | {html.escape(str(kind))} |" for c, kind in REVIEW_COLUMNS)
    return (
        f"{body}\n\nA release made from reviewed records (`annotate pull`) also has the columns "
        f"that say what review changed:\n\n| column | type |\n|---|---|\n{added}\n"
    )


def guidelines(name: str) -> str:
    """The guidelines as annotators read them, in a quote box (headings made bold lines)."""
    text = families.get(name).review.guidelines.strip()
    text = re.sub(r"^#+ (.*)$", r"**\1**", text, flags=re.MULTILINE)
    quoted = "\n".join(f"    {line}" if line else "" for line in text.splitlines())
    return f'!!! quote "The guidelines annotators read (shown in Argilla)"\n\n{quoted}\n'


def on_page_markdown(markdown: str, **_: object) -> str:
    def render(match: re.Match) -> str:
        kind, name = match.groups()
        return contract(name) if kind == "contract" else guidelines(name)

    return MARKER.sub(render, markdown)
