"""The dataset card (README.md): the Hub's YAML header and a body a researcher can trust.

The header is built with ``huggingface_hub.DatasetCardData`` (configs with their data files,
licence, languages, task categories, size category, pretty name, version), so the Hub and
``datasets.load_dataset(folder, name=config)`` read the same configs we wrote. The body says
where every item came from: sources and their checksums, translation engines, each rule and
how many items it removed or flagged, the review and its agreement figures, statistics
tables, known limits from the source papers, and their citations.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa

from biasforge.contract.markdown import md_table
from biasforge.exports.adaptation_card import adaptation_md
from biasforge.exports.configs import SPLIT
from biasforge.exports.inputs import ReleaseInput
from biasforge.exports.lineup_card import lineup_md
from biasforge.exports.quality_card import quality_parts
from biasforge.families import Family


def size_category(n: int) -> str:
    """The Hub's size bucket for ``n`` records."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")]
    bounds += [(1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")]
    return next((label for bound, label in bounds if n < bound), "n>10M")


def card_data(
    name: str, version: str, family: Family, configs: dict[str, pa.Table], license: str
) -> Any:
    from huggingface_hub import DatasetCardData

    languages = sorted(
        {str(lang) for table in configs.values() for lang in table.column("language").to_pylist()}
    )
    total = sum(t.num_rows for t in configs.values())
    extra: dict[str, Any] = {}
    if license == "other":
        extra["license_name"] = f"{family.name}-source-terms"
    return DatasetCardData(
        language=languages,
        license=license,
        pretty_name=f"{family.card.pretty_name} ({'/'.join(languages)}) — {name}",
        size_categories=[size_category(total)],
        task_categories=list(family.card.task_categories),
        multilinguality="multilingual" if len(languages) > 1 else "monolingual",
        tags=["bias-evaluation", "stereotypes", "fairness", family.name, "biasforge"],
        configs=[
            {
                "config_name": config,
                "data_files": [{"split": SPLIT, "path": f"{config}/{SPLIT}.parquet"}],
            }
            for config in configs
        ],
        version=version,
        **extra,
    )


# ---------------------------------------------------------------- statistics tables


def statistics_md(family: Family, configs: dict[str, pa.Table]) -> str:
    counts = md_table(
        ["config", "split", "records", "file"],
        [[c, SPLIT, t.num_rows, f"`{c}/{SPLIT}.parquet`"] for c, t in configs.items()],
    )
    detail = family.card.statistics(configs)
    return f"{counts}\n\n{detail}"


# ---------------------------------------------------------------- provenance


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        out = []
        for key, sub in value.items():
            out += _flatten(sub, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [(prefix, f"{len(value)} entries")]
    if isinstance(value, float):
        return [(prefix, f"{value:.4f}")]
    return [(prefix, value)]


def translation_md(table: pa.Table) -> str:
    if "translation" not in table.column_names:
        return ""
    engines: Counter[str] = Counter()
    hits = 0
    rows = table.column("translation").to_pylist()
    for t in rows:
        if not t:
            continue
        engines[f"{t.get('engine')} ({t.get('source_lang')}→{t.get('target_lang')})"] += 1
        hits += bool(t.get("cache_hit"))
    if not engines:
        return ""
    lines = ", ".join(f"{engine}: {n} items" for engine, n in engines.most_common())
    return f"Translation: {lines}; {hits} served from the translation memory."


def rules_md(stats: dict[str, Any]) -> str:
    rules = stats.get("rules")
    if not isinstance(rules, list) or not rules:
        return ""
    rows = []
    for r in rules:
        if not isinstance(r, dict):
            continue
        effect = "removed" if r.get("severity") == "reject" else "flagged for review"
        rows.append(
            [
                r.get("rule", r.get("name", "?")),
                r.get("severity", ""),
                r.get("description", ""),
                r.get("seen", ""),
                f"{r.get('failed', 0)} {effect}",
            ]
        )
    return md_table(["rule", "severity", "what it checks", "items seen", "effect"], rows)


def input_md(index: int, item: ReleaseInput) -> str:
    run_manifest = item.curation_manifest()
    config = run_manifest.get("config", {})
    lines = [f"### Input {index}: `{item.path.name}` ({item.kind})", ""]
    if config:
        lines.append(
            "Pipeline configuration: " + ", ".join(f"{k}={v}" for k, v in config.items()) + "."
        )
        lines.append("")
    summary = {
        k: item.stats[k] for k in ("items", "kept", "rejected", "needs_review") if k in item.stats
    }
    if summary:
        lines += [md_table(list(summary), [list(summary.values())]), ""]
    sources = run_manifest.get("inputs") or []
    if isinstance(sources, list) and sources:
        lines.append("Sources:")
        lines.append("")
        for s in sources:
            if isinstance(s, dict):
                name = str(s.get("path", "?")).rsplit("/", 1)[-1]
                sha = str(s.get("sha256", ""))[:12]
                lines.append(f"- {s.get('role', 'input')}: `{name}` (sha256 {sha}…)")
        lines.append("")
    translation = translation_md(item.table)
    if translation:
        lines += [translation, ""]
    for key, title in (
        ("translation", "Translation run"),
        ("structure", "Structure of intrasentence items after uniformisation"),
    ):
        if isinstance(item.stats.get(key), dict) and item.stats[key]:
            rows = [[k, v] for k, v in _flatten(item.stats[key]) if not isinstance(v, list)]
            lines += [f"{title}:", "", md_table(["", "count"], rows), ""]
    rules = rules_md(item.stats)
    if rules:
        lines += ["Rules (each item records every verdict in its `checks` column):", "", rules, ""]
    if item.kind == "reviewed":
        decisions = ", ".join(f"{k}: {v}" for k, v in item.decisions.items())
        lines += [f"Review decisions: {decisions}. Only accepted records are released.", ""]
    else:
        lines += [
            "**Not reviewed by annotators**: released with `--unreviewed`, every candidate "
            "that passed the rules is included, flagged ones too (`needs_review`).",
            "",
        ]
    return "\n".join(lines)


def _figure(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _counted(figure: str, items: Any) -> str:
    """``figure`` with the number of items it used, when the agreement file gives it."""
    return f"{figure} ({items})" if isinstance(items, int) else figure


def agreement_md(agreement: dict[str, Any]) -> str:
    """Agreement figures as `annotate pull` writes them (one entry per question), or any other
    JSON flattened to measure/value rows. Per-annotator figures stay out of the public card."""
    questions = agreement.get("questions")
    if not isinstance(questions, dict):
        rows = [[k, v] for k, v in _flatten(agreement) if not isinstance(v, list)]
        return md_table(["measure", "value"], rows)
    lines = []
    policy = agreement.get("policy")
    if policy:
        minimum = agreement.get("min_submitted")
        lines.append(
            f"Decision policy: {policy}"
            + (f", at least {minimum} answers per record" if minimum else "")
            + "."
        )
    decisions = agreement.get("decisions")
    if isinstance(decisions, dict) and decisions:
        lines.append(
            "Decisions: " + ", ".join(f"{k}: {v}" for k, v in sorted(decisions.items())) + "."
        )
    rows = [
        [
            question,
            _figure(q.get("items")),
            _figure(q.get("annotators")),
            _counted(_figure(q.get("krippendorff_alpha")), q.get("rated_items")),
            _counted(_figure(q.get("fleiss_kappa")), q.get("fleiss_items")),
            _counted(_figure(q.get("percent_unanimous"), 1), q.get("rated_items")),
        ]
        for question, q in questions.items()
        if isinstance(q, dict)
    ]
    header = ["question", "items answered", "annotators", "Krippendorff's α (items)",
              "Fleiss' κ (items)", "% unanimous (items)"]  # fmt: skip
    lines += ["", md_table(header, rows)]
    lines.append(
        "\nEach figure is followed by the number of items it was computed on: α and % unanimous "
        "use the items with two or more answers, Fleiss' κ only those with the most common "
        "number of answers (it needs the same number for every item)."
    )
    notes = [
        f"- `{question}`: {note}"
        for question, q in questions.items()
        if isinstance(q, dict)
        for note in q.get("notes") or []
    ]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def seen_md(shown: dict[str, Any]) -> str:
    """What annotators saw, as ``annotate pull`` read it from the dataset's settings."""
    fields = ", ".join(f"*{t}*" for t in shown.get("fields") or []) or "none"
    filters = ", ".join(f"*{t}*" for t in shown.get("filters") or []) or "none"
    hidden = ", ".join(f"`{n}`" for n in shown.get("hidden") or [])
    kept = f"; kept from them: {hidden}" if hidden else ""
    note = "".join(f" {shown[k]}" for k in ("note", "legacy") if shown.get(k))
    return f"Annotators saw the fields {fields} and the filters {filters}{kept}.{note}"


def review_md(agreement: dict[str, Any]) -> str:
    """How the review was run: suggestions, discards, corrections and who adjudicated."""
    lines = []
    suggested = agreement.get("suggestions")
    if isinstance(suggested, dict) and suggested:
        where = ", ".join(f"`{q}` ({n} records)" for q, n in sorted(suggested.items()))
        lines.append(
            f"**Suggested answers were shown to annotators** for judged questions ({where}): "
            "pre-selected answers anchor annotators and can inflate the agreement figures below."
        )
    elif isinstance(suggested, dict):
        lines.append("Judged questions started empty: annotators saw no suggested answers.")
    shown = agreement.get("shown")
    if isinstance(shown, dict):
        lines.append(seen_md(shown))
    if agreement.get("corrected") is not None:
        lines.append(
            f"Records corrected by reviewers: {agreement['corrected']} (each keeps its id; "
            "`original_text` and `corrected_by` say what changed and who proposed it)."
        )
    if agreement.get("discarded_answers") is not None:
        lines.append(f"Answers discarded as *cannot judge*: {agreement['discarded_answers']}.")
    by = agreement.get("adjudicated_by")
    if isinstance(by, dict):
        who = ", ".join(f"{name} ({n})" for name, n in sorted(by.items())) or "nobody"
        lines.append(
            f"Adjudicated records by adjudicator: {who}; an adjudicator never settles a record "
            "they annotated (`adjudicated_by` names them per record)."
        )
    return "\n".join(f"- {line}" for line in lines)


def annotation_md(inputs: list[ReleaseInput]) -> str:
    reviewed = [i for i in inputs if i.kind == "reviewed"]
    if not reviewed:
        return (
            "These records were **not** reviewed by annotators (released with `--unreviewed`). "
            "Use them for development, not for published measurements."
        )
    parts = [
        "Candidates were reviewed on Argilla by several annotators per record (each saw the "
        "item with what to judge highlighted, its English source and the failed rule checks, "
        "and could correct the text in place). Discards counted as *cannot judge*; "
        "disagreements, discards and corrections without agreement went to adjudicators who "
        "had not answered the record. Only records decided `accept` are released."
    ]
    for item in reviewed:
        if item.agreement:
            summary = review_md(item.agreement)
            parts.append(
                f"Agreement for `{item.path.name}`:\n\n"
                + (summary + "\n\n" if summary else "")
                + agreement_md(item.agreement)
            )
            parts += quality_parts(item.agreement, item.excluded_changed)
        else:
            parts.append(f"`{item.path.name}`: no agreement.json was provided.")
    return "\n\n".join(parts)


def card_body(
    name: str,
    version: str,
    family: Family,
    configs: dict[str, pa.Table],
    inputs: list[ReleaseInput],
    previous: str | None,
    skipped: int,
    hub_repo: str | None = None,
    parallel: dict[str, Any] | None = None,
    undecided: int = 0,
) -> str:
    total = sum(t.num_rows for t in configs.values())
    first = next(iter(configs))
    repo = hub_repo or "OWNER/REPO"
    loading = "\n".join(
        [
            "```python",
            "import tempfile",
            "",
            "from datasets import load_dataset",
            "",
            "# a local copy of this folder (datasets caches a local folder by its name and",
            "# config, so a fresh cache_dir keeps two different copies of one version apart)",
            f'ds = load_dataset("releases/{name}/{version}", name="{first}", split="{SPLIT}",',
            "                  cache_dir=tempfile.mkdtemp())",
            "# the Hub (each version is a tag)",
            f'ds = load_dataset("{repo}", name="{first}", split="{SPLIT}", revision="{version}")',
            "```",
            "",
            f"Configs: {', '.join(f'`{c}`' for c in configs)}.",
        ]
    )
    provenance = "\n".join(input_md(i, item) for i, item in enumerate(inputs, 1))
    skipped_md = (
        f"\n\n{skipped} records failed the release's schema checks and were left out "
        "(`--skip-invalid`); they are listed in `manifest.json`."
        if skipped
        else ""
    )
    lineup = lineup_md(configs, inputs, parallel)
    lineup = f"\n\n## Languages and native items\n\n{lineup}" if lineup else ""
    citations = "\n\n".join(f"```bibtex\n{c}\n```" for c in family.card.citations)
    limits = "\n".join(f"- {limit}" for limit in family.card.limitations)
    adapted = adaptation_md(family, configs, inputs, undecided)
    adapted = f"\n\n## Adaptation to the target culture\n\n{adapted}" if adapted else ""
    return f"""# {family.card.pretty_name} — {name} {version}

{family.card.description}

This release holds {total} records in {len(configs)} config(s), each with one split
(`{SPLIT}`). {"Previous version: " + previous + "; see `CHANGELOG.md`." if previous else "First release."}
`manifest.json` lists the sha256 of every file and the provenance of every input.

{loading}

## Licence

{family.card.license_note}

## How the items were made

{provenance}{skipped_md}{lineup}

## Annotation

{annotation_md(inputs)}{adapted}

## Statistics

{statistics_md(family, configs)}

## Known limits

{limits}

## Citation

{citations}
"""


def build_card(
    name: str,
    version: str,
    family: Family,
    configs: dict[str, pa.Table],
    inputs: list[ReleaseInput],
    *,
    previous: str | None = None,
    license: str | None = None,
    skipped: int = 0,
    hub_repo: str | None = None,
    parallel: dict[str, Any] | None = None,
    undecided: int = 0,
) -> str:
    """The README.md text: DatasetCardData's YAML header, then the body; ``undecided``: items
    of a family that translates that had no adaptation decision (counted as transferred)."""
    from huggingface_hub import DatasetCard

    data = card_data(name, version, family, configs, license or family.card.license)
    body = card_body(
        name, version, family, configs, inputs, previous, skipped, hub_repo,
        parallel=parallel, undecided=undecided,
    )  # fmt: skip
    card = DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body}")
    return str(card)
