"""The dataset card's section on adapting the items to the target culture (issue 44).

For a family that translates, every released item carries ``adaptation`` (transferred,
modified, removed, native), ``adaptation_note`` and ``origin``
(:mod:`biasforge.contract.adaptation`). The card counts the categories per domain (bias
type), beside the label-preservation figures of the same domains, lists why items were
removed and what replaced the target of modified ones, and says how many items had no
decision and count as transferred.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa

from biasforge.contract.adaptation import (
    ADAPTATION,
    ADAPTATION_NOTE,
    ADAPTATIONS,
    MODIFIED,
    ORIGIN,
    REMOVED,
    SOURCE,
)
from biasforge.contract.markdown import excerpt, md_table
from biasforge.exports.inputs import ReleaseInput
from biasforge.exports.parallel import is_shared
from biasforge.exports.quality_card import share_text
from biasforge.families import Family

INTRO = (
    "Each translated item was asked SHADES' question, *is this stereotype recognised where you "
    "live?*, blind (annotators saw neither the source's labels nor each other's answers), and "
    "decided by the review's policy, with adjudication, like its other questions: "
    "`transferred` (recognised as it is), `modified` (recognised, but attached there to another "
    "group or attribute, typed by the reviewers: `adaptation_note`, beside the translated "
    "text), `removed` (not recognised: the reason is in `adaptation_note`; released so the "
    "decision is on record, never scored) or `native` (written in the language). Scores are "
    "given on every item but the removed ones and on the `transferred` items alone."
)


def _preserved(inputs: list[ReleaseInput]) -> dict[str, list[int]]:
    """Per domain, [preserved, items] summed over the reviewed inputs' label preservation."""
    sums: dict[str, list[int]] = {}
    for item in inputs:
        figures = (item.agreement or {}).get("preservation") or {}
        for domain, f in (figures.get("domains") or {}).items():
            got = sums.setdefault(str(domain), [0, 0])
            got[0] += int(f.get("preserved") or 0)
            got[1] += int(f.get("items") or 0)
    return sums


def _preservation_cell(domain: str, sums: dict, inputs: list[ReleaseInput]) -> str:
    """The domain's label preservation: with its Wilson interval when one input gave it."""
    reviewed = [i for i in inputs if (i.agreement or {}).get("preservation")]
    if len(reviewed) == 1:
        figures = reviewed[0].agreement["preservation"]["domains"].get(domain)  # type: ignore[index]
        return share_text(figures) if figures else "–"
    kept, total = sums.get(domain, (0, 0))
    return f"{kept} of {total}" if total else "–"


def _table(rows: list[dict[str, Any]], domain: str, inputs: list[ReleaseInput]) -> str:
    counts = Counter((str(r.get(domain)), r[ADAPTATION]) for r in rows)
    domains = sorted({d for d, _ in counts})
    sums = _preserved(inputs)
    header = [domain, *ADAPTATIONS, "total"]
    with_preservation = bool(sums)
    header += ["labels preserved (blind review)"] if with_preservation else []
    body = []
    for d in [*domains, "total"]:
        cells = [counts[(d, c)] for c in ADAPTATIONS] if d != "total" else [
            sum(n for (_, c2), n in counts.items() if c2 == c) for c in ADAPTATIONS
        ]  # fmt: skip
        line: list[object] = [d, *cells, sum(cells)]
        if with_preservation:
            line.append(_preservation_cell(d, sums, inputs) if d != "total" else "")
        body.append(line)
    return md_table(header, body)


def _notes(rows: list[dict[str, Any]], category: str, title: str, domain: str) -> str:
    picked = [r for r in rows if r[ADAPTATION] == category]
    if not picked:
        return ""
    lines = [
        f"- `{r['id']}` ({r.get(domain)}): {excerpt(r.get(ADAPTATION_NOTE) or 'no text given')}"
        for r in picked
    ]
    return f"{title}:\n\n" + "\n".join(lines)


def adaptation_md(
    family: Family, configs: dict[str, pa.Table], inputs: list[ReleaseInput], undecided: int
) -> str:
    """The card's adaptation section ("" for a family that does not translate)."""
    adaptation = family.review.adaptation
    if adaptation is None:
        return ""
    columns = ["id", adaptation.domain, ADAPTATION, ADAPTATION_NOTE, ORIGIN]
    rows = [  # a parallel release's shared config repeats items of the languages' configs
        r
        for name, t in configs.items()
        if not is_shared(name)
        for r in t.select(columns).to_pylist()
    ]
    total = len(rows)
    if rows and all(r[ORIGIN] == SOURCE for r in rows):
        return "The items are in the benchmark's own language, as published: none was adapted."
    parts = [INTRO, _table(rows, adaptation.domain, inputs)]
    if undecided:
        parts.append(
            f"{undecided} of the {total} items carry no adaptation decision (reviewed before "
            "the question was asked, or released unreviewed): they count as `transferred`."
        )
    else:
        parts.append("Every item carries an adaptation decision.")
    parts += [
        _notes(rows, REMOVED, "Why items were removed", adaptation.domain),
        _notes(rows, MODIFIED, "What the modified items target here", adaptation.domain),
    ]
    return "\n\n".join(p for p in parts if p)
