"""A TOML file validated by a pydantic model, every error one line naming file, line and key.

Language folders (BEC-Pro's ``language.toml``, the translated families' language packs) are
data a user writes by hand; a misspelt key or a wrong type must say where it is, not raise a
traceback. The schema is the model (``extra="forbid"``): an unknown key, a missing one or a
value of the wrong type is refused with the key's path and, when written, its line.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from biasforge.errors import InputError
from biasforge.textfiles import read_text

Model = TypeVar("Model", bound=BaseModel)


class StrictModel(BaseModel):
    """The base of a hand-written file's schema: an unknown key is refused (a misspelling
    would otherwise be ignored in silence) and a loaded value cannot be changed."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def load_toml_model(path: Path, model: type[Model], encoding: str = "utf-8") -> Model:
    """``path`` parsed and validated by ``model``; errors name the file, the line and the key."""
    text = read_text(path, encoding)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # "Illegal character '\n' (at line 17, column 11)"
        where = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = int(where[1]) if where else None
        raise InputError(path, f"not valid TOML: {exc}", line=line) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise InputError(path, f"{key}: {first['msg']}", line=line_of(text, first["loc"])) from None


def line_of(text: str, loc: tuple) -> int | None:
    """The line where the key a schema error names is written: each part of its path is
    looked for from where the previous one was found (the n-th ``[[table]]`` for an index);
    None when the key is absent (a missing required key)."""
    lines = text.splitlines()
    position, found, table = 0, None, None
    for part in loc:
        if isinstance(part, int):
            header = re.compile(rf"^\s*\[\[\s*{re.escape(str(table))}\s*\]\]")
            hits = [i for i in range(position, len(lines)) if header.search(lines[i])]
            if table is not None and len(hits) > part:
                position = found = hits[part]
            continue
        key = re.compile(rf'^\s*(\[+\s*)?([\w."]*\.)?"?{re.escape(str(part))}"?\s*(=|\]|\.)')
        hit = next((i for i in range(position, len(lines)) if key.search(lines[i])), None)
        if hit is None:
            break
        position = found = hit
        table = part
    return None if found is None else found + 1
