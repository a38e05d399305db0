"""The NSP training procedures live in ``biasforge.scoring.tasks.nsp``; this name stays for
existing imports (the parity tests, the benchmarks)."""

from biasforge.scoring.tasks.nsp import (
    MODES,
    NSPHead,
    Scorer,
    finetune,
    finetune_pairs,
    make_pairs,
    read_corpus,
    train_head,
)

__all__ = [
    "MODES",
    "NSPHead",
    "Scorer",
    "finetune",
    "finetune_pairs",
    "make_pairs",
    "read_corpus",
    "train_head",
]
