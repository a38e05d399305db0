"""The shipped name scorer: logistic weights over the features and a threshold on P(name).

Chosen by cross-validation and fitted on parts 1-4 of the People's Daily dev file (part 0 held
out) plus the PKU People's Daily 1998-01 corpus by ``benchmarks/train_slguset_names.py``, and
shipped as ``data/slguset/name_model.json``:
one model per ``--tagger`` (``fast``, ``posseg``, and ``thulac``: ``fast`` tokens at a lower
threshold, followed by THULAC), each naming its token source (``tokens``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from biasforge.curation.slguset.names.features import FEATURES
from biasforge.curation.slguset.names.words import DATA_DIR

MODEL_PATH = DATA_DIR / "name_model.json"


@dataclass(frozen=True)
class NameModel:
    """Logistic weights over the features and the decision threshold on P(name)."""

    weights: dict[str, float]
    threshold: float
    tagger: str

    def score(self, x: dict[str, float]) -> float:
        z = sum(self.weights.get(k, 0.0) * v for k, v in x.items())
        return 1.0 / (1.0 + math.exp(-z)) if z > -50 else 0.0


def load_models(path: str | Path = MODEL_PATH) -> dict[str, NameModel]:
    """Read the shipped weights; refuse a file trained on another feature list."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data["features"] != FEATURES:
        raise ValueError(f"{path}: trained on another feature list; retrain the name model")
    models = data["models"]

    def weights(m: dict) -> dict[str, float]:  # "weights_of": another model's weights, shared
        return dict(models[m["weights_of"]]["weights"] if "weights_of" in m else m["weights"])

    return {
        name: NameModel(weights(m), float(m["threshold"]), m.get("tokens", name))
        for name, m in models.items()
    }
