"""Small tab-separated input files (lexicons, templates) read with line-precise errors.

The csv module is used instead of pandas here because a user editing a lexicon needs the
exact line of a bad row, and pandas loses line numbers once it has parsed the file.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from biasforge.errors import InputError
from biasforge.textfiles import DEFAULT, check_quotes, kind_of, open_text

Row = dict[str, str]


def _rows(reader: Iterator[list[str]], path: Path) -> Iterator[list[str]]:
    """The reader's rows; what the csv module cannot parse (a field over its size limit, a
    10 MB line pasted by mistake) is one error naming the file and line."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            line = getattr(reader, "line_num", 0)
            detail = str(exc)
            if "field limit" in detail:
                detail = (
                    f"a field is longer than {csv.field_size_limit()} characters ({detail}); "
                    "a lexicon or list entry is a few words"
                )
            raise InputError(path, f"cannot read this line: {detail}", line=line) from None


def read_tsv(
    path: str | Path,
    required: Iterable[str],
    *,
    allowed: dict[str, Iterable[str]] | None = None,
    non_empty: Iterable[str] = (),
    validate: Callable[[Row], str | None] | None = None,
    encoding: str = DEFAULT,
) -> list[tuple[int, Row]]:
    """Read a TSV file with a header; return ``(line_number, row)`` pairs.

    Every problem is raised as :class:`InputError` naming the file and line: a missing column,
    a row with the wrong number of fields, an empty required value, a value outside
    ``allowed``, whatever message ``validate`` returns for a row, or a stray double quote
    (:func:`~biasforge.textfiles.check_quotes`). ``encoding`` is the
    file's (:mod:`biasforge.textfiles`: bytes it cannot decode name the line and byte).
    """
    path = Path(path)
    kind = kind_of(path)
    if kind != "a file":
        raise InputError(path, "file not found" if kind == "missing" else f"{kind}, not a file")
    required = list(required)
    allowed = {key: set(values) for key, values in (allowed or {}).items()}
    rows: list[tuple[int, Row]] = []
    with open_text(path, encoding) as handle:  # a UTF-8 BOM is not a header
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None:
            raise InputError(path, "file is empty; expected a header line", line=1)
        check_quotes(path, [(1, "\t".join(header))])
        header = [name.strip() for name in header]
        missing = [name for name in required if name not in header]
        if missing:
            raise InputError(
                path,
                f"missing column(s) {', '.join(missing)}; header has {', '.join(header)}",
                line=1,
            )
        for fields in _rows(reader, path):
            line = reader.line_num
            if not any(field.strip() for field in fields):
                continue
            if len(fields) != len(header):
                raise InputError(
                    path,
                    f"expected {len(header)} tab-separated fields, found {len(fields)}",
                    line=line,
                )
            row = {name: value.strip() for name, value in zip(header, fields, strict=True)}
            for name in non_empty:
                if not row.get(name):
                    raise InputError(path, f"column '{name}' is empty", line=line)
            for name, values in allowed.items():
                if row.get(name) not in values:
                    raise InputError(
                        path,
                        f"column '{name}' must be one of {', '.join(sorted(values))}, "
                        f"got {row.get(name)!r}",
                        line=line,
                    )
            if validate is not None and (problem := validate(row)):
                raise InputError(path, problem, line=line)
            # fields are read literally (no quoting): a stray quote would stay in the word
            check_quotes(path, [(line, "\t".join(fields))])
            rows.append((line, row))
    return rows
