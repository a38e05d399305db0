"""The licence id a release's card declares: one SPDX licence id, or ``other``.

The Hugging Face Hub reads the card's ``license`` as a licence id (SPDX-style, lower case:
``cc-by-sa-4.0``), or ``other`` with a ``license_name`` for terms of one's own (what SlguSet's
card declares). The ids come from the SPDX licence list that ``license-expression`` ships, so
the rule follows the list, not a copy of it kept here.
"""

from __future__ import annotations

from functools import cache

from biasforge.errors import BiasforgeError

OTHER = "other"  # the Hub's value for terms that are not a listed licence


@cache
def _spdx():
    from license_expression import get_spdx_licensing

    return get_spdx_licensing()


def licence_problem(value: str) -> str | None:
    """Why ``value`` is not a licence id a card may declare, or None."""
    if value == OTHER:
        return None
    from license_expression import LicenseSymbol

    spdx = _spdx()
    if not value or value != value.strip() or spdx.validate(value).errors:
        return "not an SPDX licence id"
    if not isinstance(spdx.parse(value), LicenseSymbol):
        return "an expression of several licences; give one licence id"
    return None


def check_licence(value: str | None, option: str = "--license") -> str | None:
    """``value`` if it is None or a licence id a card may declare; else one line naming
    ``option``."""
    if value is None:
        return None
    problem = licence_problem(value)
    if problem:
        raise BiasforgeError(
            f"{option} {value[:80]!r}: {problem} (e.g. cc-by-4.0, cc-by-sa-4.0, mit, "
            "apache-2.0; see https://spdx.org/licenses/), or other for terms of your own"
        )
    return value
