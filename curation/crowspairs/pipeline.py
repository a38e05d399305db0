"""``biasforge curate crowspairs``: CSV → audit → translation (memory first) → alignment →
flags → run directory.

The same translation layer as StereoSet (:mod:`biasforge.curation.translation`: DeepL, the translation
memory, retries, per-item failures) translates both sentences of each pair with their
differing words tagged, so the pair can be checked to differ only there afterwards
(:mod:`biasforge.curation.crowspairs.align`). With ``lang`` equal to the source language nothing is
translated: no engine, no key, no memory — the English baseline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Unpack

import pandas as pd

from biasforge.contract.rundir import RunResult, input_entry, write_run
from biasforge.curation.checks import CheckResult, run_checks
from biasforge.curation.crowspairs import align, audit
from biasforge.curation.crowspairs.checks import post_translation_checks
from biasforge.curation.crowspairs.options import Options
from biasforge.curation.crowspairs.report import render_report
from biasforge.curation.crowspairs.source import BUNDLED_SAMPLE, read_pairs
from biasforge.curation.language_pack import PACK_FILE, load_pack, target_pack
from biasforge.curation.translation.base import Translator
from biasforge.curation.translation.native import with_native
from biasforge.curation.translation.runner import (
    Outcome,
    RunStats,
    Unit,
)
from biasforge.curation.translation.settings import Engine
from biasforge.errors import BiasforgeError
from biasforge.families.crowspairs import SCHEMA, as_spans, differing_spans
from biasforge.files import stable_id
from biasforge.textfiles import encoding_for

FAMILY = "crowspairs"
COLUMNS = SCHEMA.names


def group_words_path(options: Options) -> Path | None:
    """The group words of a run: ``--group-words``, else those of the source language's pack
    (the audit reads the source pairs)."""
    return options.group_words or load_pack(options.source_lang).group_words


def _units(kept: pd.DataFrame) -> list[tuple[Unit, Unit, int, int]]:
    """Per pair: the two tagged sentences to translate and how many tags each holds."""
    out = []
    for more, less in zip(kept["sent_more"], kept["sent_less"], strict=True):
        spans_more, spans_less = differing_spans(more, less)
        out.append(
            (
                Unit(align.tagged(more, spans_more), xml=True),
                Unit(align.tagged(less, spans_less), xml=True),
                len(spans_more),
                len(spans_less),
            )
        )
    return out


def _pair(row: Any, got: tuple[Outcome, Outcome], tags: tuple[int, int], preferred: dict) -> dict:
    """The translated pair of ``row`` with its private check columns."""
    errors = [o.error for o in got if o.error]
    if errors:
        return {"_error": "; ".join(dict.fromkeys(errors)), "_status": "broken",
                "_detail": "not translated", "sent_more": "", "sent_less": ""}  # fmt: skip
    result = align.align_pair(got[0].text, got[1].text, *tags)
    more, less, status, detail = result.sent_more, result.sent_less, result.status, result.detail
    if row.sent_more in preferred or row.sent_less in preferred:
        more = preferred[row.sent_more].text if row.sent_more in preferred else more
        less = preferred[row.sent_less].text if row.sent_less in preferred else less
        status, detail = "identical", f"{detail}; reviewer's preferred translation used"
    return {"_error": None, "_status": status, "_detail": detail,
            "sent_more": more, "sent_less": less}  # fmt: skip


def _envelope(row: Any, langs: tuple[str, str], more: str, less: str) -> dict[str, Any]:
    """The columns a candidate and a rejected pair share: ids, languages, the source, labels,
    and the spans where ``more`` and ``less`` (the pair as it will be stored) differ."""
    source_lang, lang = langs
    spans_more, spans_less = differing_spans(more, less)
    return {
        "id": stable_id(FAMILY, lang, row.source_id),
        "family": FAMILY,
        "language": lang,
        "source_id": row.source_id,
        "source_language": source_lang,
        "source_text": row.sent_more,
        "stereo_antistereo": row.stereo_antistereo,
        "bias_type": row.bias_type,
        "more_spans": as_spans(spans_more),
        "less_spans": as_spans(spans_less),
    }


def _rows(
    kept: pd.DataFrame,
    outcomes: dict[Unit, Outcome],
    units: list[tuple[Unit, Unit, int, int]],
    preferred: dict,
    translation: dict | None,
    langs: tuple[str, str],
) -> pd.DataFrame:
    """Candidate rows (translated, or the source itself when ``translation`` is None)."""
    rows = []
    for row, (u_more, u_less, n_more, n_less) in zip(
        kept.itertuples(index=False), units, strict=True
    ):
        got = (outcomes[u_more], outcomes[u_less])
        if translation is None:
            pair = {"_error": None, "_status": "n/a", "_detail": "source language",
                    "sent_more": row.sent_more, "sent_less": row.sent_less}  # fmt: skip
        else:
            pair = _pair(row, got, (n_more, n_less), preferred)
        rows.append(
            {
                **_envelope(row, langs, pair["sent_more"], pair["sent_less"]),
                "source_sent_more": row.sent_more if translation else None,
                "source_sent_less": row.sent_less if translation else None,
                "translation": {**translation, "cache_hit": all(o.cache_hit for o in got)}
                if translation
                else None,
                **pair,
            }
        )
    return pd.DataFrame(rows)


def _source_rows(rejected: pd.DataFrame, langs: tuple[str, str]) -> pd.DataFrame:
    """Pairs the audit rejected, in the candidate columns (source texts)."""
    rows = [
        {
            **_envelope(row, langs, row.sent_more, row.sent_less),
            "sent_more": row.sent_more,
            "sent_less": row.sent_less,
            "checks": row.checks,
            "needs_review": row.needs_review,
            "review_reasons": row.review_reasons,
            "source_sent_more": None,
            "source_sent_less": None,
            "translation": None,
            "reasons": row.reasons,
        }
        for row in rejected.itertuples(index=False)
    ]
    return pd.DataFrame(rows, columns=[*COLUMNS, "reasons"])


@with_native
def curate(
    options: Options, out: str | Path, *, overwrite: bool = False, **engine: Unpack[Engine]
) -> RunResult:
    """Curate CrowS-Pairs in ``options.lang`` into the run directory ``out``."""
    pairs = read_pairs(
        options.source, encoding_for(options.source, BUNDLED_SAMPLE, options.encoding)
    )
    if options.limit is not None:
        pairs = pairs.head(options.limit)
    target_pack(options.lang, options.language_pack)  # none, or a broken one: stop here
    group_words = group_words_path(options)
    words = audit.read_group_words(
        group_words, options.encoding if options.group_words else "utf-8"
    )
    audited = run_checks(pairs, audit.audit_checks(words))
    langs = (options.source_lang, options.lang)
    with options.engine(**engine) as (translator, memory):
        units = _units(audited.kept)
        outcomes, tstats = options.translate(
            [u for four in units for u in four[:2]], translator, memory, progress=options.progress
        )
        if tstats.fatal:
            raise BiasforgeError(f"{tstats.fatal.splitlines()[0]}; no run was written")
        sources = [*audited.kept["sent_more"], *audited.kept["sent_less"]]
        preferred = memory.preferred_many(sources, *langs) if memory else {}
        translation = (
            {
                "engine": translator.engine_id,
                "source_lang": langs[0],
                "target_lang": langs[1],
                "glossary": translator.options_key().get("glossary"),
            }
            if memory
            else None
        )
        rows = _rows(audited.kept, outcomes, units, preferred, translation, langs)
    post = run_checks(rows, post_translation_checks()) if len(rows) else None
    result = _combine(audited, post, langs)
    config = _config(options, translator)
    stats = _stats(config, pairs, result, tstats)
    return write_run(
        out,
        candidates=result.kept[COLUMNS] if len(result.kept) else pd.DataFrame(columns=COLUMNS),
        rejected=result.rejected,
        schema=SCHEMA,
        stats=stats,
        report_md=render_report(config, stats, result),
        inputs=_inputs(options),
        config=config,
        overwrite=overwrite,
    )


def _combine(audited: CheckResult, post: CheckResult | None, langs: tuple[str, str]) -> CheckResult:
    """Translated pairs carry the audit's verdicts before their own."""
    source = _source_rows(audited.rejected, langs)
    if post is None:
        return CheckResult(audited.kept.iloc[0:0], source, audited.stats)
    before = dict(zip(audited.kept["source_id"], audited.kept["checks"], strict=True))
    reasons = dict(zip(audited.kept["source_id"], audited.kept["review_reasons"], strict=True))

    def merge(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.copy()
        frame["checks"] = [
            before[i] + list(c) for i, c in zip(frame["source_id"], frame["checks"], strict=True)
        ]
        frame["review_reasons"] = [
            list(reasons[i]) + list(r)
            for i, r in zip(frame["source_id"], frame["review_reasons"], strict=True)
        ]
        frame["needs_review"] = frame["review_reasons"].map(bool)
        return frame

    rejected = merge(post.rejected)
    frames = [source, rejected[[*COLUMNS, "reasons"]]] if len(rejected) else [source]
    return CheckResult(
        merge(post.kept), pd.concat(frames, ignore_index=True), [*audited.stats, *post.stats]
    )


def _config(options: Options, translator: Translator) -> dict[str, Any]:
    from biasforge.contract.redact import public_path

    return {
        "family": FAMILY,
        "language": options.lang,
        "source_language": options.source_lang,
        "source": public_path(options.source),
        "engine": translator.engine_id,
        "translator_options": translator.options_key(),
        "group_words": public_path(words) if (words := group_words_path(options)) else None,
        "limit": options.limit,
        # a user's pack only: a bundled one is named by the language
        **({"language_pack": public_path(options.language_pack)} if options.language_pack else {}),
    }


def _inputs(options: Options) -> list[dict[str, Any]]:
    inputs = [input_entry(options.source, "crowspairs source")]
    group_words = group_words_path(options)
    if group_words:
        inputs.append(input_entry(group_words, "group words"))
    if options.language_pack:
        inputs.append(input_entry(options.language_pack / PACK_FILE, "language pack"))
    if options.glossary and not options.same_language:
        inputs.append(input_entry(options.glossary, "glossary"))
    return inputs


def _stats(config: dict, pairs: pd.DataFrame, result: CheckResult, tstats: RunStats) -> dict:
    kept = result.kept
    return {
        **config,
        "pairs": len(pairs),
        "kept": len(kept),
        "rejected": len(result.rejected),
        "needs_review": int(kept["needs_review"].sum()) if len(kept) else 0,
        "structure": {k: int(v) for k, v in kept["_status"].value_counts().items()}
        if len(kept)
        else {},
        "bias_types": {k: int(v) for k, v in kept["bias_type"].value_counts().items()}
        if len(kept)
        else {},
        "translation": tstats.as_dict(),
        "rules": [s.as_dict() for s in result.stats],
    }
