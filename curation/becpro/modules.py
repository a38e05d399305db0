"""Language modules: code for what a language folder's data cannot say, looked up by name.

A language's ``language.toml`` names its module (``module = "it-lo"``); the module is found
here, as families are found in :mod:`biasforge.families`: registered by :func:`register`
(code, a test) or through the ``biasforge.becpro_languages`` entry-point group (an installed
package whose entry point is a :class:`LanguageModule`). No bundled language needs one.

A module can rewrite the pieces of a sentence after the grammar's own rules (an Italian
``il`` → ``lo`` before *s* + consonant) and add checks of its own.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from biasforge.errors import BiasforgeError

if TYPE_CHECKING:
    from biasforge.curation.becpro.grammar import Piece
    from biasforge.curation.becpro.language import Grammar
    from biasforge.curation.becpro.lexicon import Language
    from biasforge.curation.checks import Check

ENTRY_POINTS = "biasforge.becpro_languages"


def _no_checks(language: Language) -> list[Check]:
    return []


@dataclass(frozen=True)
class LanguageModule:
    name: str
    #: ``rewrite(pieces, grammar, gender)``: the sentence's pieces after elision and
    #: contraction; it may change template words and word slots, never the person phrase or
    #: the profession (their spans are measured afterwards)
    rewrite: Callable[[list[Piece], Grammar, str], list[Piece]] | None = None
    #: checks added after the language's own
    checks: Callable[[Language], list[Check]] = field(default=_no_checks)


_REGISTRY: dict[str, LanguageModule] = {}


def register(module: LanguageModule, *, replace: bool = False) -> LanguageModule:
    """Make ``module`` known under ``module.name``."""
    if module.name in _REGISTRY and not replace and _REGISTRY[module.name] is not module:
        raise BiasforgeError(
            f"a BEC-Pro language module named {module.name!r} is already registered"
        )
    _REGISTRY[module.name] = module
    return module


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def get(name: str) -> LanguageModule:
    """The module called ``name``; one clear error naming the known ones otherwise."""
    if name not in _REGISTRY:
        for point in importlib.metadata.entry_points(group=ENTRY_POINTS, name=name):
            register(point.load())
    if name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise BiasforgeError(
            f"language.toml names the module {name!r}, which is not registered (known: {known}); "
            f"register it with biasforge.curation.becpro.modules.register or the "
            f"{ENTRY_POINTS!r} entry-point group"
        )
    return _REGISTRY[name]
