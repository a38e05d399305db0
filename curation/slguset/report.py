"""``report.md`` of a SlguSet run: funnel, keyword pairs, rules, timings, name-filter quality."""

from __future__ import annotations

from typing import Any

from biasforge.contract.markdown import md_table
from biasforge.curation.checks import CheckStats
from biasforge.curation.report import rules_md
from biasforge.curation.slguset.lexicon import Lexicon
from biasforge.curation.slguset.output import Tally

RULES_TEXT = """Every candidate carries each rule's verdict (`checks`). `reject` rules drop the sentence into
`rejected.parquet` with its reasons; `review` rules keep it and flag it for annotators (the
paper's criteria 1–3 are decided by people)."""

EVAL_TEXT = (
    "Sentence-level precision/recall on `{file}` (gold person names), with Wilson 95 % "
    "intervals. The file is cut into 5 parts by a hash of each id; the shipped model was "
    "chosen by 4-fold cross-validation over parts 1-4 and fitted on them plus the PKU People's "
    "Daily 1998-01 corpus (43k sentences), part 0 (`heldout`) was held out and measured once "
    "per shipped model: `heldout` and the cross-validated figures are the "
    "honest ones, `cv`/`all` include the sentences the model was fitted on. The PKU row: each "
    "quarter of that month of news predicted by a model fitted without it, text no feature was "
    "designed against (the largest sample). Sentence positive = at "
    "least one gold name; flagged = the filter found one. Targets on unseen data: recall ≥ "
    "0.96, precision ≥ 0.80.\n\n"
)


EXTRA_PART = "PKU 1998-01, 4 quarters (recorded)"


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def per_keyword(tally: Tally, lexicon: Lexicon) -> list[dict[str, Any]]:
    """Per keyword pair: kept candidates (by gender and form), their share of all kept, how
    many are flagged for review, and the rejected rows whose keyword is in the pair."""
    counts, dropped, flagged = tally.kept_keywords, tally.rejected_keywords, tally.flagged_keywords
    rows = []
    for pair in lexicon.pairs:
        forms = [f for f in lexicon.forms.values() if f.pair == pair]
        male = sum(counts[f.text] for f in forms if f.gender == "male")
        female = sum(counts[f.text] for f in forms if f.gender == "female")
        pair_flagged = sum(flagged[f.text] for f in forms)
        detail = ", ".join(f"{f.text} {counts[f.text]}" for f in forms if counts[f.text])
        rows.append(
            {
                "pair": pair,
                "kept": male + female,
                "share": _share(male + female, tally.kept),
                "male": male,
                "female": female,
                "flagged": pair_flagged,
                "flagged_share": _share(pair_flagged, male + female),
                "rejected": sum(dropped[f.text] for f in forms),
                "forms": detail,
            }
        )
    return rows


def per_form(tally: Tally, lexicon: Lexicon, include_collective: bool) -> list[dict[str, Any]]:
    """Per form of the lexicon: the same counts as :func:`per_keyword`, the form's collective
    decision (``exclude``, ``exclude (included)``, ``flag`` or empty) and the rejected rows
    that the ``collective_form`` rule dropped."""
    counts, dropped, flagged = tally.kept_keywords, tally.rejected_keywords, tally.flagged_keywords
    as_collective = tally.collective_keywords
    rows = []
    for form in lexicon.forms.values():
        decision = ""
        if form.text in lexicon.collective:
            decision = lexicon.collective[form.text].decision
            if decision == "exclude" and include_collective:
                decision = "exclude (included)"
        rows.append(
            {
                "form": form.text,
                "pair": form.pair,
                "gender": form.gender,
                "collective": decision,
                "kept": counts[form.text],
                "share": _share(counts[form.text], tally.kept),
                "flagged": flagged[form.text],
                "flagged_share": _share(flagged[form.text], counts[form.text]),
                "rejected": dropped[form.text],
                "rejected_as_collective": as_collective[form.text],
            }
        )
    return rows


def rejections(tally: Tally) -> dict[str, int]:
    """Rejected rows by the rule that dropped them (in the order the rules were first met)."""
    return dict(tally.rejections)


def _funnel(stats: dict[str, Any]) -> str:
    return md_table(
        ["stage", "count"],
        [
            ["documents (lines/records)", stats["documents"]],
            ["raw characters", stats["raw_chars"]],
            ["undecodable lines skipped", stats["bad_lines_skipped"]],
            [
                "documents without any gender form (regex prefilter)",
                stats["documents_without_keyword"],
            ],
            ["sentences in documents with a form", stats["sentences_seen"]],
            ["… without a gender form (regex prefilter)", stats["sentences_without_keyword"]],
            ["exact duplicates dropped", stats["duplicates"]],
            ["quote repairs", stats["quote_repairs"]],
            ["rejected by a rule (rejected.parquet)", stats["rejected"]],
            ["kept candidates", stats["kept"]],
            ["… flagged for review", stats["needs_review"]],
        ],
    )


def _ci(value: float, ci: list[float] | None) -> str:
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else f"{value:.3f}"


def _pr_row(part: str, label: str, r: dict[str, Any]) -> list[Any]:
    """One row of the evaluation table from a precision/recall summary."""
    return [
        part,
        label,
        r["sentences"],
        r["positives"],
        r["flagged"],
        _ci(r["precision"], r.get("precision_ci95")),
        _ci(r["recall"], r.get("recall_ci95")),
    ]


def _evaluation(evaluation: dict[str, Any] | None) -> str:
    if not evaluation:
        return "_not measured in this run (pass `--name-eval FILE` with gold names)_"
    rows = []
    recorded = evaluation.get("cross_validated") or {}
    for key, part in (("cv", "4-fold CV (parts 1-4)"), ("extra_corpus_cv", EXTRA_PART)):
        if recorded.get(key):
            rows.append(_pr_row(part, f"this filter ({recorded['chosen']})", recorded[key]))
    for part in ("heldout", "cv", "all"):
        for who, label in (("model", "this filter"), ("jieba_nr", "jieba nr* alone")):
            rows.append(_pr_row(part, label, evaluation[part][who]))
    header = ["part", "filter", "sentences", "with names", "flagged", "precision", "recall"]
    table = EVAL_TEXT.format(file=evaluation["file"]) + md_table(header, rows)
    return table + "\n\n" + _candidates(evaluation)


CANDIDATES_TEXT = (
    "What reaches the candidates: among the sentences with a gender form that the name model "
    "lets through, the share that name a person (gold) before and after the second-stage check "
    "(`{check}`), and the share of the clean ones (no gold name) the check drops, with Wilson "
    "95 % intervals. Recorded rows come from `second_stage.json` "
    "(`benchmarks/eval_slguset_second_stage.py`): the check was chosen on the CV parts only; "
    "the PKU quarters and part 0 were never used to choose. Targets on unseen news: ≤ 1.5 % "
    "naming a person, ≤ 5 % of clean candidates lost.\n\n"
)

RECORDED_PARTS = (
    ("cv_parts", "4-fold CV (parts 1-4, recorded)"),
    ("pku_quarters", EXTRA_PART),
    ("heldout_part", "heldout (recorded)"),
)


def _share_cell(s: dict[str, Any]) -> str:
    low, high = s["ci95"]
    return f"{100 * s['share']:.1f} % [{100 * low:.1f}, {100 * high:.1f}] ({s['k']}/{s['n']})"


def _candidates(evaluation: dict[str, Any]) -> str:
    check = evaluation.get("name_check", "lac")
    rows = []
    recorded = evaluation.get("second_stage_recorded") or {}
    for key, part in RECORDED_PARTS:
        figures = (recorded.get(key) or {}).get(check)
        if figures:
            rows.append(
                [
                    part,
                    _share_cell(figures["first_stage_survivors"]),
                    _share_cell(figures["candidates_naming_a_person"]),
                    _share_cell(figures["clean_survivors_lost"]),
                ]
            )
    for part in ("heldout", "cv", "all"):
        c = evaluation[part]["candidates"]
        rows.append(
            [
                part,
                _share_cell(c["named_share_first_stage"]),
                _share_cell(c["named_share"]),
                _share_cell(c["clean_lost"]),
            ]
        )
    header = ["part", "naming a person, name model only", f"after `{check}`", "clean lost"]
    return CANDIDATES_TEXT.format(check=check) + md_table(header, rows)


THROUGHPUT_TEXT = """Each datatrove step's time summed over tasks (CPU-bound, so roughly CPU seconds);
*raw chars/s* = the corpus's raw characters over that step's time: how fast the corpus would go
through if this step were the only work. *items/s* = the sentences (or documents) the step read
per second."""


def _throughput(stats: dict[str, Any]) -> str:
    seconds = stats["seconds"]
    seen = {r["rule"]: r["seen"] for r in stats["rules"]}
    seen["keyword_prefilter (document)"] = stats["documents"]
    seen["keyword_prefilter (sentence)"] = stats["sentences_seen"]
    seen["SlguSet corpus reader"] = stats["documents"]
    seen["jieba segmentation"] = seen.get("non_gender_word", 0)
    skip = {"mining_wall", "merge", "name_filter_eval", "task usage", "datatrove logs"}
    steps = [(k, v) for k, v in seconds.items() if k not in skip and "candidate rows" not in k]
    total = sum(v for _, v in steps) or 1.0
    rows = []
    for name, secs in sorted(steps, key=lambda kv: -kv[1]):
        items = seen.get(name)
        rows.append(
            [
                name,
                f"{secs:.3f}",
                f"{100 * secs / total:.1f} %",
                f"{stats['raw_chars'] / secs:,.0f}" if secs else "—",
                items if items is not None else "—",
                f"{items / secs:,.0f}" if items and secs else "—",
            ]
        )
    table = md_table(["step / rule", "seconds", "share", "raw chars/s", "items", "items/s"], rows)
    stages = "".join(
        _stage_speed(stats, key, rule, label)
        for key, rule, label in (
            ("thulac_chars", "person_name_thulac", "THULAC"),
            ("lac_chars", "person_name_lac", "LAC"),
        )
    )
    return f"{THROUGHPUT_TEXT}\n\n{table}{stages}"


def _stage_speed(stats: dict[str, Any], key: str, rule: str, label: str) -> str:
    """How fast a second-stage tagger went over the few sentences it read."""
    if not stats.get(key):
        return ""
    secs = stats["seconds"].get(rule, 0.0)
    speed = f"{stats[key] / secs:,.0f}" if secs else "—"
    return (
        f"\n\n{label} (second stage) read {stats[key]:,} characters of the sentences every "
        f"other rule kept in {secs:.1f} s: {speed} characters/s."
    )


def _percent(share: float) -> str:
    return f"{100 * share:.1f} %"


def _kept_cells(r: dict[str, Any]) -> list[Any]:
    """A keyword's (or form's) kept, share of kept, flagged and share flagged cells."""
    return [r["kept"], _percent(r["share"]), r["flagged"], _percent(r["flagged_share"])]


def _per_pair(stats: dict[str, Any]) -> str:
    rows = [
        [r["pair"], *_kept_cells(r), r["male"], r["female"], r["rejected"]]
        for r in stats["per_keyword"]
    ]
    rows.append(
        [
            "**all**",
            stats["kept"],
            _percent(1.0 if stats["kept"] else 0.0),
            stats["needs_review"],
            _percent(stats["needs_review"] / stats["kept"] if stats["kept"] else 0.0),
            sum(r["male"] for r in stats["per_keyword"]),
            sum(r["female"] for r in stats["per_keyword"]),
            stats["rejected"],
        ]
    )
    header = ["pair", "kept", "share of kept", "flagged", "share flagged", "male", "female"]
    return md_table([*header, "rejected"], rows)


def _per_form(stats: dict[str, Any]) -> str:
    rows = [[r["form"], r["pair"], r["gender"], r["collective"] or "—", *_kept_cells(r),
             r["rejected"], r["rejected_as_collective"]]
            for r in stats.get("per_form", []) if r["kept"] or r["rejected"] or r["collective"]]  # fmt: skip
    header = ["form", "pair", "gender", "collective", "kept", "share of kept", "flagged"]
    return md_table([*header, "share flagged", "rejected", "… as collective form"], rows)


PER_KEYWORD_TEXT = """Share of kept = the pair's (form's) part of all kept candidates; share flagged = the part of
its kept candidates flagged for review; rejected = rows of `rejected.parquet` with that keyword.
Collective forms (`collective_forms.tsv`, see the lexicon README): `exclude` forms are never a
keyword unless the run passes `--include-collective`, `flag` forms are kept and always flagged."""


def render_report(stats: dict[str, Any], tally: Tally) -> str:
    rules = [
        CheckStats(r["rule"], r["severity"], r["description"], r["seen"], r["failed"], r["seconds"])
        for r in stats["rules"]
    ]
    included = (
        "included (kept, flagged)" if stats.get("include_collective") else "excluded (default)"
    )
    timings = md_table(
        ["stage", "seconds"], [[k, f"{v:.3f}"] for k, v in sorted(stats["seconds"].items())]
    )
    rejected_by = md_table(
        ["rule (first failed)", "rows"], sorted(stats["rejections_per_rule"].items())
    )
    corpus = ", ".join(f"`{c}`" for c in stats["corpus"])
    return f"""# SlguSet run

Corpus: {corpus} — {stats["num_proc"]} process(es),
name tagger `{stats["tagger"]}`, {stats["raw_chars_per_second"]:,} raw characters/s overall.

## Funnel

{_funnel(stats)}

## Kept candidates per keyword pair

Collective forms of the `exclude` kind: {included}. {PER_KEYWORD_TEXT}

{_per_pair(stats)}

## Kept candidates per form

{_per_form(stats)}

## Rules

{RULES_TEXT}

{rules_md(rules)}

Rejected rows by the rule that dropped them:

{rejected_by}

## Timings

Seconds per datatrove step (summed over tasks), the mining wall clock and the merge.

{timings}

## Throughput per rule

{_throughput(stats)}

## Person-name filter quality

{_evaluation(stats.get("name_filter_eval"))}

## Flagged for review (examples)

{tally.review_examples.markdown()}

## Rejected (examples)

{tally.reject_examples.markdown()}
"""
