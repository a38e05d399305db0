"""Options the ``curate`` commands share, declared once (as ``scoring/options.py`` does for
``score``), and their checks, run by the option itself (typer callbacks).

A bad value is refused before anything is read or written, with one line naming the option
and what it accepts (a :class:`~biasforge.errors.BiasforgeError`, which ``biasforge`` prints as
``error: …`` with exit status 2). The allowed values come from where they are defined: the
codecs Python knows, DeepL's own language and formality lists, Slurm's partition names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biasforge.errors import BiasforgeError

ENCODING_HELP = (
    "encoding of the files you give (e.g. latin-1, cp1252, gb18030); bundled files are UTF-8"
)


def encoding(param: typer.CallbackParam, value: str) -> str:
    """``--encoding`` (``--lexicon-encoding``): a codec Python knows."""
    from biasforge.textfiles import check_encoding

    check_encoding(value, param.opts[0])
    return value


def formality(value: str | None) -> str | None:
    """``--formality``: one of DeepL's settings."""
    if value is None:
        return None
    allowed = _deepl_values("formalities")
    if allowed is not None and value not in allowed:
        raise BiasforgeError(f"--formality {value!r}: choose one of {', '.join(allowed)}")
    return value


def language(param: typer.CallbackParam, value: str) -> str:
    """``--lang``/``--source-lang`` of a translated family: a language DeepL knows."""
    allowed = _deepl_values("languages")
    if allowed is not None and value.lower() not in allowed:
        raise BiasforgeError(
            f"{param.opts[0]} {value!r} is not a language DeepL translates; choose one of "
            f"{', '.join(allowed)}"
        )
    return value


def _deepl_values(name: str) -> tuple[str, ...] | None:
    """DeepL's list ``name``, or None without the ``deepl`` package (nothing to check
    against: such a run can only curate in the source language)."""
    try:
        from biasforge.curation.translation import choices
    except ImportError:  # pragma: no cover - the curation extra is not installed
        return None
    try:
        return getattr(choices, name)()
    except ImportError:
        return None


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


def slurm_partition(value: str | None) -> str | None:
    """``--slurm-partition``: partition names as Slurm writes them, comma-separated.

    The value goes into the ``#SBATCH --partition`` line of the job script: a newline would
    add lines to the script, and a space, a quote or a leading ``-`` change what sbatch reads
    (:mod:`biasforge.curation.slguset.slurm_values` checks every value of the scripts).
    """
    if value is None:
        return None
    from biasforge.curation.slguset.slurm_values import check_partition

    return check_partition(value)


# -- the options several curate commands take, declared once ---------------------------------
Out = Annotated[Path, typer.Option("--out", help="run directory to create")]
Overwrite = Annotated[bool, typer.Option(help="replace an existing run directory")]
Lang = Annotated[
    str,
    typer.Option(
        "--lang",
        callback=language,
        help="target language (a DeepL code, e.g. fr); the source's own: no translation",
    ),
]
LanguagePack = Annotated[
    Path | None,
    typer.Option(
        "--language-pack",
        help="a language pack folder for --lang (default: the bundled pack of --lang; "
        "docs/your-language.md)",
    ),
]
SourceLang = Annotated[str, typer.Option(callback=language, help="language of the source")]
Limit = Annotated[
    int | None, typer.Option(callback=limit, help="only the first N source items (N >= 1)")
]
ServerUrl = Annotated[
    str | None,
    typer.Option(
        "--server-url",
        envvar="DEEPL_SERVER_URL",
        help="DeepL API server (default: chosen by the client from DEEPL_AUTH_KEY)",
    ),
]
Formality = Annotated[
    str | None,
    typer.Option(
        callback=formality, help="DeepL formality: default, more, less, prefer_more, prefer_less"
    ),
]
Glossary = Annotated[
    Path | None, typer.Option(help="TSV 'source<TAB>target' of fixed term translations")
]
Memory = Annotated[
    Path | None,
    typer.Option(help="translation memory (default $BIASFORGE_HOME/translation-memory.sqlite)"),
]


def encoding_option(files: str):
    """``--encoding`` of the files a command reads (named in its help), checked."""
    return Annotated[str, typer.Option(callback=encoding, help=f"{ENCODING_HELP} ({files})")]
