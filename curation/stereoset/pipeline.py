"""``biasforge curate stereoset``: source → audit → translation (memory first) → alignment →
adaptation flags → run directory.

Reproduces the StereoSet-fr curation (Adam-Cuvillier et al. 2024, §2.1) for any target
language DeepL serves. Nothing is paid for twice (translation memory), nothing is paid for
before the audit has removed what cannot be adapted, and :func:`dry_run` says what a run would
send and cost without sending anything.

Entry points: ``curate(Options(lang="fr"), out)`` and ``dry_run(Options(...))``. Both take an
optional ready translator and memory; without them the translator is built from the options by
:mod:`biasforge.curation.translation.engines` and the memory opened at ``Options.memory``. When ``lang`` is
the source language (``Options(lang="en")``), nothing is translated: the audit, structure checks
and flags run on the source texts, with no engine, no key and no memory
(:mod:`biasforge.curation.translation.same_language`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Unpack

import pandas as pd

from biasforge.contract.redact import public_path
from biasforge.contract.rundir import RunResult, input_entry, write_run
from biasforge.curation.checks import CheckResult, CheckStats, run_checks
from biasforge.curation.language_pack import PACK_FILE, LanguagePack, target_pack
from biasforge.curation.stereoset import adapt, align, audit
from biasforge.curation.stereoset.options import Options
from biasforge.curation.stereoset.report import render_report
from biasforge.curation.stereoset.schema import COLUMNS, SCHEMA
from biasforge.curation.stereoset.source import load_source
from biasforge.curation.translation.base import Translator
from biasforge.curation.translation.engines import (
    quota_note,
)
from biasforge.curation.translation.native import with_native
from biasforge.curation.translation.runner import (
    Outcome,
    Plan,
    RunStats,
    Unit,
    plan_for,
)
from biasforge.curation.translation.settings import Engine
from biasforge.errors import BiasforgeError
from biasforge.files import stable_id
from biasforge.translation_memory import TranslationMemory

FAMILY = "stereoset"
#: StereoSet's own language, the default ``Options.source_lang``
SOURCE_LANG = "en"


@dataclass
class ItemUnits:
    """The translation units of one English item, by role."""

    target: Unit
    context: Unit
    sentences: list[Unit]
    unrelated_alone: Unit | None
    source_sentences: list[str]
    attributes_en: list[str]

    def all(self) -> list[Unit]:
        units = [self.target, self.context, *self.sentences]
        return [*units, self.unrelated_alone] if self.unrelated_alone else units


def load_items(source: str | Path, opts: Options) -> tuple[pd.DataFrame, str]:
    items, kind = load_source(source, hf_split=opts.hf_split, encoding=opts.encoding)
    if opts.limit is not None:
        items = items.head(opts.limit)
    items = items.assign(variant="")
    if opts.synonyms:
        variants = audit.synonym_variants(items, audit.read_synonyms(opts.synonyms, opts.encoding))
        items = pd.concat([items, variants], ignore_index=True)
    return items.reset_index(drop=True), kind


def item_units(row: Any) -> ItemUnits:
    if row.split == "intrasentence":
        attrs = [align.source_attribute(row.context, s["sentence"]) or "" for s in row.sentences]
        return ItemUnits(
            target=Unit(row.target),
            context=Unit(align.tagged_context(row.context), xml=True),
            sentences=[Unit(align.tagged_sentence(row.context, a), xml=True) for a in attrs],
            unrelated_alone=Unit(attrs[2]) if attrs[2] else None,
            source_sentences=[align.fill(row.context, a) for a in attrs],
            attributes_en=attrs,
        )
    sentences = [s["sentence"] for s in row.sentences]
    return ItemUnits(
        target=Unit(row.target),
        context=Unit(row.context),
        sentences=[Unit(s, context=row.context) for s in sentences],
        unrelated_alone=None,
        source_sentences=sentences,
        attributes_en=sentences,
    )


@dataclass
class DryRun:
    plan: Plan
    items: int
    audited_out: int
    price_per_million: float
    #: the account's usage vs what the run needs, when the engine can say (DeepL with a key)
    quota: str | None = None
    #: the target is the source language: nothing to translate
    same_language: bool = False

    @property
    def cost(self) -> float:
        return self.plan.cost(self.price_per_million)

    def summary(self) -> str:
        p = self.plan
        if self.same_language:
            return (
                f"dry run: {self.items} items after the audit ({self.audited_out} rejected); "
                "the target is the source language: nothing to translate, nothing to pay"
            )
        in_memory = sum(len(u.text) for u in p.hits)
        saved = 100 * in_memory / p.characters_total if p.characters_total else 0
        return (
            f"dry run: {self.items} items after the audit ({self.audited_out} rejected before "
            f"translation); {len(p.units)} distinct texts, {p.characters_total} characters; "
            f"{len(p.hits)} texts already in the translation memory; "
            f"would send {len(p.missing) - len(p.refused)} texts = {p.characters_to_send} "
            f"characters ({saved:.1f}% saved by the memory); "
            + _refused_note(p)
            + f"cost at {self.price_per_million:g} per million characters: "
            f"{self.cost:.2f} (nothing was sent)"
        )


def _refused_note(p: Plan) -> str:
    """What the dry run would refuse, as the real run would (too long for one request)."""
    if not p.refused:
        return ""
    chars = sum(len(u.text) for u in p.refused)
    return (
        f"would refuse {len(p.refused)} texts = {chars} characters (a sentence over the "
        "translator's request size limit; shorten them in the source); "
    )


def _translate_assemble(
    kept_en: pd.DataFrame,
    units: list[ItemUnits],
    outcomes: dict[Unit, Outcome],
    memory: TranslationMemory | None,
    translator: Translator,
    langs: tuple[str, str],
    tokens: align.Tokenize,
) -> pd.DataFrame:
    """Build the translated candidate rows, with the private columns the checks read.

    ``langs`` is (source, target); ``memory`` None (a same-language run) means no reviewer's
    preferred translations and no ``translation`` record; ``tokens`` is the target language's
    tokenizer (its pack's), which the structure checks compare frames with."""
    source_lang, lang = langs
    source_texts = set()
    for row, u in zip(kept_en.itertuples(index=False), units, strict=True):
        source_texts.update([row.target, row.context, *u.source_sentences])
    preferred = memory.preferred_many(source_texts, source_lang, lang) if memory else {}
    glossary = translator.options_key().get("glossary")
    translation = (
        {
            "engine": translator.engine_id,
            "source_lang": source_lang,
            "target_lang": lang,
            "glossary": glossary,
        }
        if memory
        else None
    )
    rows = []
    for row, u in zip(kept_en.itertuples(index=False), units, strict=True):
        got = {unit: outcomes.get(unit, Outcome(None, False, "not translated")) for unit in u.all()}
        errors = [o.error for o in got.values() if o.error]
        cache_hit = all(o.cache_hit for o in got.values())
        target = preferred[row.target].text if row.target in preferred else got[u.target].text
        cand_id = stable_id(FAMILY, lang, row.source_id, row.variant)
        private: dict[str, Any] = {
            "_error": "; ".join(dict.fromkeys(errors)) if errors else None,
            "_target_en": row.target,
            "_frame_diffs": [],
            "_word_before_slot": "",
            "_unrelated_alone": None,
            "_unrelated_inside": None,
            "_unrelated_en": None,
            "_structure_status": "n/a",
            "_structure_detail": "not applicable (intersentence)",
        }
        if row.split == "intrasentence":
            context, sentences_fr, attrs, checked = _intrasentence(
                row, u, got, preferred, memory, tokens
            )
            private.update(checked)
        else:
            context, sentences_fr, attrs = _intersentence(row, u, got, preferred)
        sentences = [
            {
                "id": s["id"],
                "label": s["label"],
                "sentence": text or "",
                "attribute": attr or "",
            }
            for s, text, attr in zip(row.sentences, sentences_fr, attrs, strict=True)
        ]
        rows.append(
            {
                "id": cand_id,
                **_envelope(row, langs),
                "target": target or "",
                "context": context or "",
                "sentences": sentences,
                "source_sentences": u.source_sentences,
                "translation": {**translation, "cache_hit": cache_hit} if translation else None,
                **private,
            }
        )
    return pd.DataFrame(rows)


def _intrasentence(
    row: Any,
    u: ItemUnits,
    got: dict[Unit, Outcome],
    preferred: dict,
    memory: TranslationMemory | None,
    tokens: align.Tokenize,
) -> tuple[str | None, list[str | None], list[str | None], dict[str, Any]]:
    """An intrasentence item's context, sentences and attributes (a reviewer's preferred
    translations first, then the aligned ones), and the private columns its checks read."""
    structure = align.align_triplet(got[u.context].text, [got[s].text for s in u.sentences], tokens)
    context, attrs, status = structure.context, list(structure.attributes), structure.status
    detail = structure.detail
    notes = []
    if row.context in preferred and preferred[row.context].text.count(align.SLOT) == 1:
        context = preferred[row.context].text
        notes.append("context from a reviewer's preferred translation")
    for i, english in enumerate(u.source_sentences):
        if english in preferred:
            attr = align.source_attribute(context, preferred[english].text)
            if attr is None:
                status = "broken"
                notes.append(f"preferred translation of sentence {i + 1} does not fit the context")
            else:
                attrs[i] = attr
                notes.append(f"sentence {i + 1} from a reviewer's preferred translation")
    sentences_fr = []
    for i, (english, unit) in enumerate(zip(u.source_sentences, u.sentences, strict=True)):
        if english in preferred:
            sentences_fr.append(preferred[english].text)
        elif status != "broken" and attrs[i]:
            sentences_fr.append(align.fill(context, attrs[i]))
        else:  # keep whatever came back, untagged, so a reviewer can fix it in place
            sentences_fr.append(align.untag(got[unit].text) if got[unit].text else None)
    if memory is None:  # same language: the source's texts verbatim (the official
        # procedures read them as published, lower-cased sentences included)
        context, sentences_fr = row.context, [s["sentence"] for s in row.sentences]
    if notes:
        detail = f"{detail}; {'; '.join(notes)}"
    read = [align.read_tagged_sentence(got[s].text or "") for s in u.sentences]
    frames = [r[0] for r in read if r]
    checked = {
        "_structure_status": status,
        "_structure_detail": detail,
        "_frame_diffs": align.word_differences(frames, tokens) if len(set(frames)) > 1 else [],
        "_word_before_slot": align.words_next_to_slot(context, tokens)[0] if context else "",
        "_unrelated_alone": got[u.unrelated_alone].text if u.unrelated_alone and memory else None,
        "_unrelated_inside": attrs[2],
        "_unrelated_en": u.attributes_en[2],
    }
    return context, sentences_fr, attrs, checked


def _intersentence(
    row: Any, u: ItemUnits, got: dict[Unit, Outcome], preferred: dict
) -> tuple[str | None, list[str | None], list[str | None]]:
    """An intersentence item's context and sentences (each sentence is its own attribute)."""
    context = preferred[row.context].text if row.context in preferred else got[u.context].text
    sentences_fr = [
        preferred[e].text if e in preferred else got[s].text
        for e, s in zip(u.source_sentences, u.sentences, strict=True)
    ]
    return context, sentences_fr, list(sentences_fr)


def _envelope(row: Any, langs: tuple[str, str]) -> dict[str, Any]:
    """What every candidate row of a source item holds, translated or rejected: its family,
    languages, source, split, domain and variant (the columns in ``COLUMNS`` order)."""
    return {
        "family": FAMILY,
        "language": langs[1],
        "source_id": row.source_id,
        "source_language": langs[0],
        "source_text": row.context,
        "split": row.split,
        "bias_type": row.bias_type,
        "variant": row.variant,
    }


def _english_rows(rejected_en: pd.DataFrame, langs: tuple[str, str]) -> pd.DataFrame:
    """Items rejected by the audit, in the candidate columns (source texts, no translation)."""
    rows = []
    for row in rejected_en.itertuples(index=False):
        attrs = [
            align.source_attribute(row.context, s["sentence"]) or ""
            if row.split == "intrasentence"
            else s["sentence"]
            for s in row.sentences
        ]
        rows.append(
            {
                "id": stable_id(FAMILY, langs[1], row.source_id, row.variant),
                **_envelope(row, langs),
                "target": row.target,
                "context": row.context,
                "sentences": [
                    {**s, "attribute": a} for s, a in zip(row.sentences, attrs, strict=True)
                ],
                "source_sentences": [s["sentence"] for s in row.sentences],
                "checks": row.checks,
                "needs_review": row.needs_review,
                "review_reasons": row.review_reasons,
                "translation": None,
                "reasons": row.reasons,
            }
        )
    return pd.DataFrame(rows, columns=[*COLUMNS, "reasons"])


def _step(steps: list[dict[str, Any]], name: str, started: float, n: int) -> None:
    steps.append({"step": name, "items": n, "seconds": round(time.perf_counter() - started, 6)})


@dataclass
class Audited:
    """The source after the audit: what will be translated, and the units to translate."""

    items: pd.DataFrame
    kind: str
    result: CheckResult
    units: list[ItemUnits]
    steps: list[dict[str, Any]]
    #: the no-exact-translation lexicon, read before anything is sent so a bad one costs nothing
    lexicon: list[adapt.NoExact]
    #: the target language's pack (agreement words, articles, tokenizer)
    pack: LanguagePack

    def all_units(self) -> list[Unit]:
        return [unit for u in self.units for unit in u.all()]


def lexicon_path(options: Options) -> Path | None:
    """The no-exact-translation lexicon of a run: ``--lexicon``, else the language pack's."""
    return options.lexicon or target_pack(options.lang, options.language_pack).no_exact_lexicon


def load_and_audit(options: Options) -> Audited:
    """Read the language pack, the source (plus synonym variants) and the lexicon, audit the
    source, and list its translation units: every input is checked here, before a dry run or
    a run sends anything."""
    pack = target_pack(options.lang, options.language_pack)
    pack.check_tokenizer()
    steps: list[dict[str, Any]] = []
    started = time.perf_counter()
    items, kind = load_items(options.source, options)
    if items.empty:
        raise BiasforgeError(f"{options.source}: no StereoSet items found")
    _step(steps, "load_source", started, len(items))
    started = time.perf_counter()
    audited = run_checks(items, audit.audit_checks(options.same_language))
    _step(steps, "audit", started, len(items))
    units = [item_units(row) for row in audited.kept.itertuples(index=False)]
    lexicon = adapt.read_no_exact_lexicon(
        lexicon_path(options), options.lang, options.encoding if options.lexicon else "utf-8"
    )
    return Audited(items, kind, audited, units, steps, lexicon, pack)


def dry_run(options: Options, **engine: Unpack[Engine]) -> DryRun:
    """What a run would send and cost, from the audit and the memory; nothing is translated
    (with a DeepL key, the account's usage is read to say whether the run fits the quota)."""
    with options.engine(**engine) as (translator, memory):
        audited = load_and_audit(options)
        if memory is None:  # same language: nothing to send
            units = list(dict.fromkeys(audited.all_units()))
            estimate = Plan(units, {}, [], sum(len(u.text) for u in units), 0)
            kept, rejected = len(audited.result.kept), len(audited.result.rejected)
            return DryRun(estimate, kept, rejected, 0.0, same_language=True)
        estimate = plan_for(
            audited.all_units(),
            translator,
            memory,
            source=options.source_lang,
            target=options.lang,
        )
        quota = quota_note(translator, estimate.characters_to_send)
    kept, rejected = len(audited.result.kept), len(audited.result.rejected)
    return DryRun(estimate, kept, rejected, options.price_per_million, quota)


@with_native
def curate(
    options: Options, out: str | Path, *, overwrite: bool = False, **engine: Unpack[Engine]
) -> RunResult:
    """Curate one StereoSet translation into the run directory ``out``.

    Items that could not be translated (quota, network) are in ``rejected.parquet`` and counted
    in ``stats["translation_failed"]``; a rerun sends only them.
    """
    with options.engine(**engine) as (translator, memory):
        audited = load_and_audit(options)
        kept_en, steps = audited.result.kept, audited.steps
        langs = (options.source_lang, options.lang)
        started = time.perf_counter()
        outcomes, tstats = options.translate(
            audited.all_units(), translator, memory, progress=options.progress
        )
        _step(steps, "translate", started, len(kept_en))
        _stop_if_fatal(tstats)
        started = time.perf_counter()
        translated = _translate_assemble(
            kept_en, audited.units, outcomes, memory, translator, langs, audited.pack.tokens
        )
        checks = adapt.post_translation_checks(audited.pack, audited.lexicon)
        post = run_checks(translated, checks)
        _step(steps, "align_and_check", started, len(translated))
    result = _combine(audited.result, post, langs)
    config = _config(options, audited.kind, translator)
    stats = _stats(config, audited.items, result, tstats, steps)
    started = time.perf_counter()
    run = write_run(
        out,
        candidates=result.kept[COLUMNS] if len(result.kept) else pd.DataFrame(columns=COLUMNS),
        rejected=result.rejected,
        schema=SCHEMA,
        stats=stats,
        report_md=render_report(
            config, audited.items, result.kept, result.rejected, result.stats, stats
        ),
        inputs=_inputs(options),
        config=config,
        overwrite=overwrite,
    )
    _step(steps, "write_run", started, len(audited.items))
    return run


def _stop_if_fatal(tstats: RunStats) -> None:
    """A rejected key or an exhausted quota ends the run before anything is written: a run
    whose items are all rejected for it would look like a result. What was translated before
    stays in the memory, so the next run does not pay for it again."""
    if tstats.fatal is None:
        return
    saved = (
        f"{tstats.characters_sent} characters translated before it"
        if tstats.characters_sent
        else "nothing was translated"
    )
    raise BiasforgeError(
        f"{tstats.fatal.splitlines()[0]}; no run was written ({saved}, kept in the "
        "translation memory and not sent again)"
    )


def _combine(audited: CheckResult, post: CheckResult, langs: tuple[str, str]) -> CheckResult:
    """One result: translated items carry the audit's verdicts before their own; the rejected
    are the audit's (in English) followed by those rejected after translation."""
    kept_en = audited.kept
    audit_checks = dict(
        zip(kept_en["source_id"] + "\x1f" + kept_en["variant"], kept_en["checks"], strict=True)
    )

    def merge(frame: pd.DataFrame) -> pd.DataFrame:
        if frame.empty:
            return frame
        keys = frame["source_id"] + "\x1f" + frame["variant"]
        frame = frame.copy()
        frame["checks"] = [audit_checks[k] + c for k, c in zip(keys, frame["checks"], strict=True)]
        return frame

    english = _english_rows(audited.rejected, langs)
    rejected = pd.concat(
        [english, merge(post.rejected)[[*COLUMNS, "reasons"]]] if len(post.rejected) else [english],
        ignore_index=True,
    )
    return CheckResult(
        kept=merge(post.kept), rejected=rejected, stats=[*audited.stats, *post.stats]
    )


def _published(path: str | Path | None) -> str | None:
    return public_path(path) if path else None


def _config(options: Options, kind: str, translator: Translator) -> dict[str, Any]:
    """The run's settings as published (manifest, stats, report): paths as given or by
    package-relative name, the engine by the server it reaches — no credentials, no home."""
    return {
        "family": FAMILY,
        "language": options.lang,
        "source_language": options.source_lang,
        "source": options.source if kind == "hub" else _published(options.source),
        "source_kind": kind,
        "engine": translator.engine_id,
        "translator_options": translator.options_key(),
        "synonyms": _published(options.synonyms),
        "lexicon": _published(lexicon_path(options)),
        "glossary_file": _published(options.glossary),
        # a user's pack only: a bundled one is named by the language
        **({"language_pack": _published(options.language_pack)} if options.language_pack else {}),
    }


def _inputs(options: Options) -> list[dict[str, Any]]:
    inputs = []
    if Path(options.source).is_file():
        inputs.append(input_entry(options.source, "stereoset source"))
    if options.synonyms:
        inputs.append(input_entry(options.synonyms, "synonym variants"))
    if options.glossary:
        inputs.append(input_entry(options.glossary, "glossary"))
    if options.language_pack:
        inputs.append(input_entry(options.language_pack / PACK_FILE, "language pack"))
    lexicon = lexicon_path(options)
    if lexicon:
        inputs.append(input_entry(lexicon, "no-exact-translation lexicon"))
    return inputs


def _stats(
    config: dict, items: pd.DataFrame, result: CheckResult, tstats: RunStats, steps: list
) -> dict[str, Any]:
    kept = result.kept
    structure = (
        kept.loc[kept["split"] == "intrasentence", "_structure_status"].value_counts().to_dict()
        if len(kept)
        else {}
    )
    failed = result.rejected["reasons"].map(lambda rs: any(adapt.retryable_failure(r) for r in rs))
    return {
        **config,
        "items": len(items),
        "kept": len(kept),
        "rejected": len(result.rejected),
        "translation_failed": int(failed.sum()) if len(failed) else 0,
        "needs_review": int(kept["needs_review"].sum()) if len(kept) else 0,
        "structure": {k: int(v) for k, v in structure.items()},
        "translation": tstats.as_dict(),
        "rules": [s.as_dict() for s in result.stats],
        "steps": steps,
    }


__all__ = ["CheckStats", "DryRun", "Options", "curate", "dry_run"]
