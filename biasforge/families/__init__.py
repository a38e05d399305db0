"""The family registry: every stage looks a family up here by name, none branches on names.

The built-in families (one module each in this package) are registered on import; a package
adds one through the ``biasforge.families`` entry-point group (a :class:`Family` object), and
code or a test can call :func:`register`. Adding a family is one module plus its data: its
record schema, review task and card, its curation command and its export formats, from which
the ``curate`` and ``export convert`` commands build their subcommands and ``--format`` choices.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable

from biasforge.contract.manifest import use_family_registry
from biasforge.errors import BiasforgeError
from biasforge.families.base import Card, ExportFormat, Family, LmEval, Review

_REGISTRY: dict[str, Family] = {}
_LOADED_ENTRY_POINTS = False


def register(family: Family, *, replace: bool = False) -> Family:
    """Make ``family`` known to every stage under ``family.name``."""
    if family.name in _REGISTRY and not replace and _REGISTRY[family.name] is not family:
        raise BiasforgeError(f"a family named {family.name!r} is already registered")
    _REGISTRY[family.name] = family
    return family


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def _load_entry_points(*, again: bool = False) -> None:
    global _LOADED_ENTRY_POINTS
    if _LOADED_ENTRY_POINTS and not again:
        return
    _LOADED_ENTRY_POINTS = True
    for point in importlib.metadata.entry_points(group="biasforge.families"):
        register(point.load())


def discover() -> list[str]:
    """Look at the ``biasforge.families`` entry points again (a package installed since the
    first look, as in a test); the names of every family known after."""
    _load_entry_points(again=True)
    return names()


def format_names() -> list[str]:
    """Every export format some family offers (``export convert --format`` choices)."""
    return sorted({f.name for name in names() for f in get(name).formats})


def names() -> list[str]:
    _load_entry_points()
    return sorted(_REGISTRY)


def get(name: str) -> Family:
    """The family called ``name``; one clear error naming the known ones otherwise."""
    _load_entry_points()
    if name not in _REGISTRY:
        raise BiasforgeError(f"unknown family {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def family_of(values: Iterable[object], where: str) -> Family:
    """The one family named by a ``family`` column's values; data never mixes families."""
    found = sorted({str(v) for v in values})
    if len(found) != 1:
        raise BiasforgeError(
            f"{where}: expected records of exactly one family, found {', '.join(found) or 'none'}"
        )
    try:
        return get(found[0])
    except BiasforgeError as exc:
        raise BiasforgeError(f"{where}: {exc}") from None


def _register_builtins() -> None:
    """Every module of this package that defines ``FAMILY`` (``base`` does not): a built-in
    family is one module dropped here, named nowhere else."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if isinstance(getattr(module, "FAMILY", None), Family):
            register(module.FAMILY)


_register_builtins()
use_family_registry(names)  # manifests name registered families only

__all__ = [
    "Card",
    "ExportFormat",
    "Family",
    "LmEval",
    "Review",
    "discover",
    "family_of",
    "format_names",
    "get",
    "names",
    "register",
    "unregister",
]
