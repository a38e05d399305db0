"""The self-contained HTML rendering of a score report (``report.html``).

One file a researcher can open or mail: styles inline, every figure embedded as a base64 PNG
``data:`` URI, no script, no server, no network. It renders the same ``Document`` as
``report.md`` through a jinja2 template (``scoring/data/report.html.j2``). Table cells that
show a figure carry ``data-figure`` (its id) and ``data-value`` (the exact number), so a test —
or a reader's script — can check the page against ``results.json``.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

from biasforge.contract.markdown import fmt
from biasforge.resources import package_path
from biasforge.scoring.document import Document, Figure, Heading, Paragraph, Table

TEMPLATE = "report.html.j2"


def _inline(text: str) -> str:
    """Escaped text with markdown's inline ``code`` and **bold**."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", escaped)


def _table(block: Table) -> dict:
    """Header and cells (text, optional figure id and exact value) of a table block."""
    rows = []
    for position, record in enumerate(block.frame.to_dict("records")):
        cells = []
        for column, value in record.items():
            figure, exact = block.marks.get((position, column), (None, None))
            cells.append(
                {
                    "text": fmt(value, block.digits),
                    "figure": figure,
                    "value": None if exact is None else repr(exact),
                    "numeric": isinstance(value, int | float) or figure is not None,
                }
            )
        rows.append(cells)
    return {"kind": "table", "header": [str(c) for c in block.frame.columns], "rows": rows}


def _figure(block: Figure, folder: Path) -> dict:
    data = base64.b64encode((folder / block.file).read_bytes()).decode("ascii")
    return {"kind": "figure", "src": f"data:image/png;base64,{data}", "caption": block.caption}


def _blocks(document: Document, folder: Path) -> list[dict]:
    out = []
    for block in document.blocks:
        if isinstance(block, Heading):
            out.append({"kind": "heading", "level": block.level, "text": block.text})
        elif isinstance(block, Paragraph):
            out.append({"kind": "paragraph", "html": _inline(block.text)})
        elif isinstance(block, Table):
            out.append(_table(block))
        else:
            out.append(_figure(block, folder))
    return out


def to_html(document: Document, folder: Path) -> str:
    """The document as one HTML page; figures are read from ``folder`` and embedded."""
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(package_path("biasforge.scoring", "data")),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
    )
    template = environment.get_template(TEMPLATE)
    return template.render(title=document.title, blocks=_blocks(document, folder))
