"""A toy fifth family, written the way a maintainer adds one: this module plus ``items.tsv``.

It describes the family once (schema with value rules, review task, card, its ``curate toy``
command, its ``toy-tsv`` export format, its scoring task and how it runs in lm-evaluation-harness) and is installed through the ``biasforge.families``
entry-point group (see ``conftest.py`` here), never by a line elsewhere. One rule (a sentence
must end with punctuation) rejects items; one question (is it natural?) decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import pandas as pd
import pyarrow as pa
import typer

from biasforge.contract.markdown import crosstab_md
from biasforge.contract.rundir import RunResult, input_entry, write_run
from biasforge.contract.schema import Column, FamilySchema
from biasforge.curation import options as common
from biasforge.families import Card, ExportFormat, Family, LmEval, Review
from biasforge.families.base import YES_NO
from biasforge.files import write_text_atomic

ITEMS = Path(__file__).with_name("items.tsv")
REGISTERS = ("formal", "informal")

SCHEMA = FamilySchema(
    family="toy",
    columns=(
        Column("sentence", pa.string(), nonempty=True),
        Column("register", pa.string(), allowed=REGISTERS),
    ),
)

REVIEW = Review(
    guidelines="# Toy review\n\nAnswer *Yes* when the sentence is natural English.\n",
    fields=[("sentence", "Sentence", False)],
    criteria={"natural": ("Is the sentence natural?", YES_NO, "")},
    metadata={"register": "Register"},
    to_record=lambda row: {
        "fields": {"sentence": row["sentence"]},
        "metadata": {"register": row["register"]},
        "suggestions": {},
    },
    accepts=lambda decided: decided.get("natural") == "yes",
)

CARD = Card(
    pretty_name="Toy requests",
    license="cc0-1.0",
    license_note="Written for the test suite.",
    task_categories=("text-classification",),
    description="Polite and casual requests.",
    limitations=("Five sentences.",),
    citations=(),
    statistics=lambda configs: "\n\n".join(
        crosstab_md(t.to_pandas(), "register", "language") for t in configs.values()
    ),
)

FAMILY = Family(
    schema=SCHEMA,
    review=REVIEW,
    card=CARD,
    curation="tests.toy_family:curate_command",
    formats=(ExportFormat("toy-tsv", "tests.toy_family:write_tsv", "id, register, sentence"),),
    scoring_tasks=("tests.toy_family.scoring:TASK",),
    lm_eval=LmEval("tests.toy_family.lm_eval_tasks"),
)


@dataclass(frozen=True)
class Options:
    """The run's options; the ``typer.Option`` of a field makes it an option of the command."""

    items: Annotated[Path, typer.Option(help="TSV id, register, sentence")] = ITEMS


def _verdict(sentence: str) -> dict:
    passed = sentence.rstrip()[-1:] in ".?!"
    detail = "ends with punctuation" if passed else "no final punctuation"
    return {"rule": "final_punctuation", "passed": passed, "severity": "reject", "detail": detail}


def curate(options: Options, out: Path, *, overwrite: bool = False) -> RunResult:
    frame = pd.read_csv(options.items, sep="\t", dtype=str)
    checks = [[_verdict(s)] for s in frame["sentence"]]
    rows = frame.assign(
        family="toy", language="en", source_id=frame["id"], source_language="en",
        source_text=frame["sentence"], checks=checks, needs_review=False,
        review_reasons=[[] for _ in checks],
    )  # fmt: skip
    kept = rows[[c[0]["passed"] for c in checks]]
    rejected = rows[[not c[0]["passed"] for c in checks]]
    rejected = rejected.assign(reasons=[["final_punctuation"]] * len(rejected))
    stats = {"family": "toy", "kept": len(kept), "rejected": len(rejected)}
    return write_run(
        out, schema=SCHEMA, candidates=kept, rejected=rejected, stats=stats,
        report_md=f"# Toy run\n\n{len(kept)} kept, {len(rejected)} rejected.\n",
        inputs=[input_entry(options.items, "items")], config={"family": "toy"},
        overwrite=overwrite,
    )  # fmt: skip


def run(options: Options, out: common.Out, overwrite: common.Overwrite = False) -> None:
    """Toy requests: one punctuation rule, one review question."""
    stats = curate(options, out, overwrite=overwrite).stats
    typer.echo(f"toy: {stats['kept']} kept, {stats['rejected']} rejected -> {out}")


curate_command = common.curate_command(Options, run)


def write_tsv(items: pd.DataFrame, out: Path) -> str:
    """``export convert --format toy-tsv``."""
    frame = items[["id", "register", "sentence"]].sort_values("id")
    write_text_atomic(out, frame.to_csv(sep="\t", index=False, lineterminator="\n"))
    return f"wrote {len(frame)} toy items to {out}"
