"""The word lists of the person-name features, read from ``curation/data/slguset``.

``name_words.tsv`` holds the context sets (titles, roles, speech verbs, transliteration
characters …), ``surnames.txt``, ``famous_names.txt`` and ``places.txt`` the gazetteers. They
are read once into a :class:`NameWords` that the feature code receives explicitly; a curator
edits the files, never the code (and retrains the model if a set changes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from biasforge.errors import InputError
from biasforge.resources import package_path

DATA_DIR = package_path("biasforge.curation", "data", "slguset")
SETS_FILE = "name_words.tsv"
SETS = (
    "titles",
    "roles",
    "speech",
    "old_young",
    "after_surname",
    "translit",
    "function_start",
    "place_suffix",
    "glue_start",
    "admin_suffix",
    "function_inner",
    "country_abbr",
    "org_words",
    "org_suffix",
    "weather",
)


@dataclass(frozen=True)
class NameWords:
    """Every word and character set the name features look words up in."""

    titles: frozenset[str]
    roles: frozenset[str]
    speech: frozenset[str]
    old_young: frozenset[str]
    after_surname: frozenset[str]
    translit: frozenset[str]
    function_start: frozenset[str]
    place_suffix: frozenset[str]
    glue_start: frozenset[str]
    admin_suffix: frozenset[str]
    function_inner: frozenset[str]
    country_abbr: frozenset[str]
    org_words: frozenset[str]
    org_suffix: frozenset[str]
    weather: frozenset[str]
    surnames: frozenset[str]  # one character
    compound_surnames: frozenset[str]
    places: frozenset[str]
    famous: re.Pattern[str]  # well-known names, longest first
    persons: frozenset[str]  # titles | roles: words that stand next to a person's name
    glue_first: frozenset[str]  # glue_start | function_start: glued onto a following surname


def _sets(path: Path) -> dict[str, frozenset[str]]:
    """``set <TAB> kind <TAB> entries`` rows; a set may span several rows."""
    if not path.is_file():
        raise InputError(path, "name word sets are missing")
    found: dict[str, set[str]] = {}
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not line or line == "set\tkind\tentries":
            continue
        cells = line.split("\t")
        if len(cells) != 3 or cells[0] not in SETS or cells[1] not in ("words", "chars"):
            raise InputError(
                path, f"need one of {', '.join(SETS)}, words|chars, entries", line=lineno
            )
        name, kind, entries = cells
        items = entries.split() if kind == "words" else list(entries.replace(" ", ""))
        found.setdefault(name, set()).update(items)
    missing = [name for name in SETS if name not in found]
    if missing:
        raise InputError(path, f"missing set(s): {', '.join(missing)}")
    return {name: frozenset(items) for name, items in found.items()}


def _entries(path: Path) -> list[str]:
    """Whitespace-separated entries in file order; lines starting with ``#`` are comments."""
    if not path.is_file():
        raise InputError(path, "name word list is missing")
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            out.extend(line.split())
    return out


def load_name_words(directory: str | Path = DATA_DIR) -> NameWords:
    """Read the name word lists of ``directory`` (default: the bundled data)."""
    directory = Path(directory)
    surnames = _entries(directory / "surnames.txt")
    famous = sorted(_entries(directory / "famous_names.txt"), key=len, reverse=True)
    sets = _sets(directory / SETS_FILE)
    return NameWords(
        **sets,
        surnames=frozenset(s for s in surnames if len(s) == 1),
        compound_surnames=frozenset(s for s in surnames if len(s) != 1),
        places=frozenset(_entries(directory / "places.txt")),
        famous=re.compile("|".join(map(re.escape, famous))),
        persons=sets["titles"] | sets["roles"],
        glue_first=sets["glue_start"] | sets["function_start"],
    )
