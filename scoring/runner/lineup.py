"""The lineup of a run: the options every command shares, the models' file-safe distinct names,
and loading the models one at a time (named apart from ``biasforge.scoring.models``, the
loader of one checkpoint)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

from biasforge.scoring.interface import LanguageModel
from biasforge.scoring.model_spec import ModelSpec
from biasforge.scoring.models import ModelOptions, load_model
from biasforge.scoring.uncertainty import Resampling


@dataclass(frozen=True)
class RunOptions:
    """What every score command takes besides its dataset, models and output folder."""

    model: ModelOptions = field(default_factory=ModelOptions)
    resampling: Resampling = field(default_factory=Resampling)
    limit: int | None = None
    overwrite: bool = False

    def manifest(self) -> dict:
        """The options as the manifest records them."""
        return {
            **asdict(self.model),
            "limit": self.limit,
            "bootstrap": self.resampling.n_resamples,
            "seed": self.resampling.seed,
            "confidence_level": self.resampling.level,
        }


def resampling_of(options: dict) -> Resampling:
    """The bootstrap settings a score folder's manifest recorded (``RunOptions.manifest``)."""
    return Resampling(
        int(options.get("bootstrap", Resampling.n_resamples)),
        int(options.get("seed", Resampling.seed)),
        float(options.get("confidence_level", Resampling.level)),
    )


def unique_names(models: list[ModelSpec]) -> list[str]:
    """Short, file-safe, distinct names for the models (a repeated model gets -2, -3 …)."""
    names: list[str] = []
    for spec in models:
        base = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.name)
        names.append(free_name(base or "model", names))
    return names


def free_name(name: str, taken) -> str:
    """``name``, or ``name-2``, ``name-3`` … when taken: a merge names a repeated model as
    one run does (``unique_names``)."""
    n, free = 1, name
    while free in taken:
        n += 1
        free = f"{name}-{n}"
    return free


def each_model(
    models: list[ModelSpec], options: ModelOptions
) -> Iterator[tuple[str, LanguageModel]]:
    """(name, model) one at a time; each model's weights are freed before the next loads."""
    for spec, name in zip(models, unique_names(models), strict=True):
        lm = load_model(spec, options, name)
        try:
            yield name, lm
        finally:
            lm.close()
