"""What DeepL accepts for ``--lang``/``--source-lang`` and ``--formality``, read from the
``deepl`` package itself (its ``Language`` codes and ``Formality`` enum), so a value DeepL
would refuse after the run has started is refused by the option instead."""

from __future__ import annotations

from functools import cache


@cache
def formalities() -> tuple[str, ...]:
    """DeepL's formality settings (``default``, ``more``, ``less``, ``prefer_…``)."""
    import deepl

    return tuple(member.value for member in deepl.Formality)


@cache
def languages() -> tuple[str, ...]:
    """DeepL's language codes, lower-cased (``fr``, ``en-gb``, ``pt-br`` …)."""
    import deepl

    codes = {
        value.lower()
        for name, value in vars(deepl.Language).items()
        if name.isupper() and isinstance(value, str)
    }
    return tuple(sorted(codes))
