"""A family's texts and wiring read from its data file, so a family module holds code only.

What annotators are shown and asked (fields, questions, metadata titles, the correction box),
what a dataset card says (licence, description, limitations, citations) and which stage code a
family names (curation command, export formats and their options, scoring tasks, the
lm-evaluation-harness task) are data: ``data/NAME.toml`` beside the family's guidelines, as
Argilla's ``Settings`` make the task data. The module passes its code hooks (how answers and
corrections change an item; schema, statistics) to :func:`declared_review` and
:func:`declared`.
"""

from __future__ import annotations

import copy
import dataclasses
import tomllib
from collections.abc import Callable
from functools import cache, partial
from typing import Any

from biasforge.errors import BiasforgeError
from biasforge.families.base import (
    YES_NO,
    Card,
    ExportFormat,
    Family,
    FormatOption,
    LmEval,
    Review,
    configs_by,
    data_text,
)


@cache
def _file(package: str, name: str) -> dict[str, Any]:
    return tomllib.loads(data_text(f"{name}.toml", package))


#: per dataclass built: the hooks only a module can give (code, which the file cannot hold),
#: and the hooks it may give beyond the dataclass's own fields
_HOOKS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {
    Family: (("schema", "review", "statistics"), ("statistics",)),
    Review: (("to_record",), ()),
}


def _check_hooks(call: str, made: type, hooks: dict[str, Any]) -> None:
    """A hook the module misnames or leaves out, in one line naming the module's call (not
    the file, which is not at fault)."""
    needed, extra = _HOOKS[made]
    known = {f.name for f in dataclasses.fields(made)} | set(extra)
    if unknown := sorted(set(hooks) - known):
        raise BiasforgeError(f"{call}: unknown hooks {unknown} (not fields of {made.__name__})")
    if missing := [h for h in needed if h not in hooks]:
        raise BiasforgeError(f"{call}: missing hooks {missing} (the module gives them)")


def _read(
    name: str, package: str, build: Callable[..., Any], made: type, hooks: dict[str, Any]
) -> Any:
    """``build(spec, package, hooks)`` on a copy of the file's tables, once the module's hooks
    are checked; any fault of the file in one line naming it."""
    call = f"{package}: {'declared_review' if made is Review else 'declared'}({name!r})"
    _check_hooks(call, made, hooks)
    try:
        return build(copy.deepcopy(_file(package, name)), package, dict(hooks))
    except (OSError, tomllib.TOMLDecodeError, TypeError, KeyError, ValueError) as exc:
        where = f"{package}/data/{name}.toml"
        raise BiasforgeError(f"{where}: {type(exc).__name__}: {exc}") from None


def _tuples(spec: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()}


def _formats(specs: list[dict[str, Any]]) -> tuple[ExportFormat, ...]:
    made = []
    for spec in specs:
        options = tuple(FormatOption(**_tuples(o)) for o in spec.pop("options", []))
        made.append(ExportFormat(**spec, options=options))
    return tuple(made)


def _family(spec: dict[str, Any], package: str, hooks: dict[str, Any]) -> Family:
    spec.pop("review", None)  # read by declared_review
    card = _tuples(spec.pop("card"))
    card["citations"] = tuple(
        data_text(f"citations/{key}.bib", package).rstrip() for key in card["citations"]
    )
    card = Card(**card, statistics=hooks.pop("statistics"))
    if "config_by" in spec:
        hooks["config_of"] = configs_by(*spec.pop("config_by"))
    lm_eval = LmEval(**spec.pop("lm_eval")) if "lm_eval" in spec else None
    formats = _formats(spec.pop("formats", []))
    return Family(card=card, formats=formats, lm_eval=lm_eval, **_tuples(spec), **hooks)


def _all_yes(questions: tuple[str, ...], decided: dict[str, str]) -> bool:
    return all(decided.get(q) == "yes" for q in questions)


def _criteria(specs: dict[str, dict[str, Any]]) -> dict[str, tuple[str, dict[str, str], str]]:
    made = {}
    for name, spec in specs.items():
        if unknown := set(spec) - {"question", "labels", "help"}:
            raise KeyError(f"review.criteria.{name}: unknown keys {sorted(unknown)}")
        made[name] = (spec["question"], spec.get("labels", YES_NO), spec.get("help", ""))
    return made


def _review(spec: dict[str, Any], package: str, hooks: dict[str, Any]) -> Review:
    spec = _tuples(spec["review"])
    spec["guidelines"] = data_text(spec["guidelines"], package)
    spec["fields"] = [tuple(f) for f in spec["fields"]]
    criteria = _criteria(spec.pop("criteria")) | hooks.pop("criteria", {})
    hooks.setdefault("accepts", partial(_all_yes, tuple(criteria)))
    return Review(criteria=criteria, **spec, **hooks)


def declared_review(name: str, *, package: str = "biasforge.families", **hooks: Any) -> Review:
    """The review whose texts the ``[review]`` table of ``package``'s ``data/NAME.toml``
    declares (guidelines file, fields, questions with their labels — yes/no unless given —,
    metadata titles, the correction box and notes), with the code ``hooks`` of its module.
    Questions a module builds in code (``criteria=``) come after the file's; without
    ``accepts``, an item is kept when every question is answered yes."""
    return _read(name, package, _review, Review, hooks)


def declared(name: str, *, package: str = "biasforge.families", **hooks: Any) -> Family:
    """The family whose card and wiring ``package``'s ``data/NAME.toml`` declares, with the
    code ``hooks`` (``schema``, ``review``, ``statistics`` for its card; any other
    :class:`Family` field) given by its module. A key the file should not hold is named in
    one line with the file."""
    return _read(name, package, _family, Family, hooks)
