"""The options of ``biasforge curate NAME``, declared once, and the command built from them.

Each family declares one frozen dataclass of its run's options (``curation/<family>/options.py``):
a field that is also a command-line option carries its ``typer.Option`` (flag, help, range,
check) in ``typing.Annotated`` metadata, with a ``Literal`` type where the values are a fixed
list. :func:`curate_command` turns that dataclass and the family's ``run`` function into the
typer command, as ``score`` commands are built from their tasks' options: a new option is one
field. The options several families take (``--out``, ``--limit``, ``--encoding``…) are declared
here; DeepL's are in :mod:`biasforge.curation.translation.options`.

A bad value is refused before anything is read or written, with one line naming the option
and what it accepts (a :class:`~biasforge.errors.BiasforgeError`, which ``biasforge`` prints as
``error: …`` with exit status 2); a value outside a ``Literal`` gets click's own usage error.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from typer.models import OptionInfo

from biasforge.errors import BiasforgeError

ENCODING_HELP = (
    "encoding of the files you give (e.g. latin-1, cp1252, gb18030); bundled files are UTF-8"
)
#: ``Annotated`` metadata of a field the command asks for although the dataclass has a default
REQUIRED = "required on the command line"


def encoding(param: typer.CallbackParam, value: str) -> str:
    """``--encoding`` (``--lexicon-encoding``): a codec Python knows."""
    from biasforge.textfiles import check_encoding

    check_encoding(value, param.opts[0])
    return value


def finite(param: typer.CallbackParam, value: float) -> float:
    """A number option (a price, a pause): ``inf`` passes click's ``min=0`` and would make a
    cost estimate meaningless or a retry wait forever."""
    import math

    if not math.isfinite(value):
        raise BiasforgeError(f"{param.opts[0]} {value}: must be a finite number")
    return value


def limit(value: int | None) -> int | None:
    """``--limit``: at least 1 (no limit: leave the option out)."""
    if value is not None and value < 1:
        raise BiasforgeError(
            f"--limit {value}: must be at least 1 (leave --limit out to take every item)"
        )
    return value


# -- the options several curate commands take, declared once ---------------------------------
Out = Annotated[Path, typer.Option("--out", help="run directory to create")]
Overwrite = Annotated[bool, typer.Option(help="replace an existing run directory")]
Limit = Annotated[
    int | None, typer.Option(callback=limit, help="only the first N source items (N >= 1)")
]


def choice_option(*values: str, help: str) -> Any:
    """An option whose values are a fixed list: a ``Literal`` of ``values`` (the command offers
    them as choices; :func:`check_choices` refuses another in a run started from Python)."""
    return Annotated[typing.Literal[values], typer.Option(help=help)]


def path_option(help: str, *flag: str) -> Any:
    """An optional file or folder the command reads (``None`` when not given: the bundled
    one, or none), with its help (and ``flag`` when it is not the field's name)."""
    return Annotated[Path | None, typer.Option(*flag, help=help)]


def encoding_option(files: str) -> Any:
    """``--encoding`` of the files a command reads (named in its help), checked."""
    return Annotated[str, typer.Option(callback=encoding, help=f"{ENCODING_HELP} ({files})")]


def lazy_pipeline(package: str, names: list[str]) -> Callable[[str], Any]:
    """A family package's ``__getattr__``: its ``names`` come from ``package.pipeline`` when
    first asked for, so building the command from ``package.options`` when ``biasforge``
    starts loads none of the pipeline's dependencies (datatrove, for SlguSet)."""

    def attribute(name: str) -> Any:
        if name in names:
            import importlib

            return getattr(importlib.import_module(f"{package}.pipeline"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return attribute


# -- the command built from a family's options ------------------------------------------------
def option_fields(options: type) -> list[inspect.Parameter]:
    """The fields of the dataclass ``options`` that are command-line options (those whose
    ``Annotated`` metadata holds a ``typer.Option``), as keyword parameters with their
    defaults, in declaration order; a ``Literal`` field's values become the option's choices."""
    hints = typing.get_type_hints(options, include_extras=True)
    found = []
    for field in dataclasses.fields(options):
        hint = hints[field.name]
        metadata = getattr(hint, "__metadata__", ())
        info = next((m for m in metadata if isinstance(m, OptionInfo)), None)
        if info is None:
            continue
        choices = _literal(hint)
        if choices:
            info = copy.copy(info)
            info.click_type = _Choice(choices, _flag(field.name, hint))
            hint = Annotated[str, info]
        default = inspect.Parameter.empty if REQUIRED in metadata else field.default
        keyword = inspect.Parameter.KEYWORD_ONLY
        found.append(inspect.Parameter(field.name, keyword, default=default, annotation=hint))
    return found


def curate_command(options: type, run: Callable[..., None]) -> Callable[..., None]:
    """The ``curate NAME`` command of a family: ``run``'s first keyword after the options
    (``out``), the option fields of ``options`` (:func:`option_fields`), then ``run``'s other
    keywords (``overwrite``, ``dry_run``…). Calling it builds ``options`` from its fields and
    calls ``run(options, **the rest)``; its help is ``run``'s docstring."""
    own = option_fields(options)
    hints = typing.get_type_hints(run, include_extras=True)
    rest = [
        p.replace(kind=p.KEYWORD_ONLY, annotation=hints[p.name])
        for p in list(inspect.signature(run).parameters.values())[1:]
    ]
    clash = {p.name for p in own} & {p.name for p in rest}
    if clash:
        raise ValueError(f"{run.__name__}: {sorted(clash)} are both options and run keywords")
    parameters = [*rest[:1], *own, *rest[1:]]

    def command(**values: Any) -> None:
        run(options(**{p.name: values.pop(p.name) for p in own}), **values)

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__doc__ = run.__doc__
    command.__name__ = command.__qualname__ = run.__name__
    command.__module__ = run.__module__
    return command


def check_choices(options: Any) -> None:
    """Refuse a value outside a ``Literal`` field of ``options`` (a run started from Python;
    the command line refuses it before): one line naming the option and its choices."""
    hints = typing.get_type_hints(type(options), include_extras=True)
    for field in dataclasses.fields(options):
        choices, value = _literal(hints[field.name]), getattr(options, field.name)
        if choices and value not in choices:
            raise BiasforgeError(_unknown(_flag(field.name, hints[field.name]), value, choices))


class _Choice(click.Choice):
    """click's choice (listed in the help), refused with the one line of :func:`_unknown`."""

    def __init__(self, choices: tuple[str, ...], flag: str) -> None:
        super().__init__(choices)
        self.flag = flag

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if value in self.choices:
            return value
        raise BiasforgeError(_unknown(self.flag, value, tuple(self.choices)))


def _unknown(flag: str, value: object, choices: tuple[str, ...]) -> str:
    listed = ", ".join(choices[:-1]) + f" or {choices[-1]}" if len(choices) > 1 else choices[0]
    return f"unknown {flag} {value!r}: choose {listed}"


def _literal(hint: Any) -> tuple[str, ...]:
    """The values of a ``Literal`` type (inside ``Annotated``), or ()."""
    kind = typing.get_args(hint)[0] if hasattr(hint, "__metadata__") else hint
    return typing.get_args(kind) if typing.get_origin(kind) is typing.Literal else ()


def _flag(name: str, hint: Any) -> str:
    """The command-line flag of the field ``name``: its ``typer.Option``'s, or ``--name``."""
    for info in getattr(hint, "__metadata__", ()):
        if isinstance(info, OptionInfo) and info.param_decls:
            return info.param_decls[0]
    return "--" + name.replace("_", "-")
