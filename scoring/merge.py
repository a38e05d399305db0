"""``score merge``: score folders of one release, each scored on its own (on this machine or
another), combined into one multi-model folder — the same tables, intervals, paired
comparisons, plots and report as one ``score`` run of all the models.

Each folder is verified through the contract, and all must come from the same command, the
same release (sha256) and the same procedure, ``--limit`` and ``--split``; anything else is
refused with one line. The command that wrote the folders is looked up in ``MERGERS`` (command
-> the ``module:function`` that rebuilds its folder from the per-item rows); a command without
one is refused with one line naming the commands that merge.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from biasforge.errors import BiasforgeError, InputError
from biasforge.families.base import load_object
from biasforge.scoring.folders import check_combinable, read_score_folder

MERGERS = {
    "score becpro": "biasforge.scoring.commands.becpro:merge_becpro",
    "score crowspairs": "biasforge.scoring.commands.crowspairs:merge_crowspairs",
    "score slguset": "biasforge.scoring.commands.slguset:merge_slguset",
    "score stereoset": "biasforge.scoring.commands.stereoset_merge:merge_stereoset",
}


def merge(folders: Sequence[Path], out: Path, overwrite: bool = False) -> Path:
    """Verify, check and combine ``folders`` into ``out`` (see the module docstring)."""
    if len(folders) < 2:
        raise BiasforgeError("score merge needs at least two score folders")
    read = [read_score_folder(f) for f in folders]
    check_combinable(read)
    reference = MERGERS.get(read[0].command)
    if reference is None:
        known = ", ".join(f"'{c}'" for c in MERGERS)
        raise InputError(read[0].path, f"'{read[0].command}' folders do not merge yet ({known} do)")
    return load_object(reference, "score merger")(read, Path(out), overwrite)
