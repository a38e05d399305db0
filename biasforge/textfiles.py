"""Reading the text files users bring (CSV/TSV tables, word lists, JSON), in their encoding.

Every curation reader of a user's file goes through here, so ``--encoding`` means the same
thing everywhere and a file that does not decode is one :class:`~biasforge.errors.InputError`
naming the file, the line and the byte offset (from the start of the file) of the first bad
byte — never a ``UnicodeDecodeError`` traceback, never a silently replaced character.

A line with an odd number of double quotes is refused in every table (:func:`check_quotes`):
a CSV reader carries an unclosed quote into the next lines and shifts the fields, and a
tab-separated reader, which reads quotes literally, keeps it as part of a word that then never
matches.

Files shipped with biasforge are UTF-8 and are read as such whatever ``--encoding`` says:
callers pass the user's encoding only for the user's files (:func:`encoding_for`).
"""

from __future__ import annotations

import codecs
import io
import os
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

from biasforge.errors import BiasforgeError, InputError

DEFAULT = "utf-8"


def check_encoding(encoding: str, option: str = "--encoding") -> str:
    """The codec's canonical name; an unknown encoding is refused with the option named."""
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise BiasforgeError(
            f"{option}: unknown encoding {encoding!r}, not one Python knows (e.g. utf-8, "
            "latin-1, cp1252, gb18030)"
        ) from None


def encoding_for(path: str | Path | None, bundled: str | Path, encoding: str) -> str:
    """``encoding`` for a user's file, UTF-8 for the file biasforge ships (``bundled``)."""
    if path is None or Path(path).resolve() == Path(bundled).resolve():
        return DEFAULT
    return encoding


def decode(
    data: bytes, path: str | Path, encoding: str = DEFAULT, option: str = "--encoding"
) -> str:
    """``data`` (the bytes of ``path``) as text; a leading UTF-8 byte-order mark is dropped.

    A byte sequence that is not valid in ``encoding`` is an error naming the line, the
    column (1-based, in bytes from the start of the line) and the byte offset in the file,
    and the ``option`` that sets the encoding.
    """
    name = check_encoding(encoding)
    if name == "utf-8":
        name = "utf-8-sig"  # a BOM is not part of the first header name
    try:
        text = data.decode(name)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start : exc.end]
        raise InputError(
            path,
            f"not valid {encoding} at byte {exc.start} (column {column}: {bad!r}, "
            f"{exc.reason}); pass {option} with the file's encoding (e.g. latin-1, cp1252)",
            line=line,
        ) from None
    _refuse_mojibake(data, text, path, encoding, option)
    return text


def _refuse_mojibake(data: bytes, text: str, path: str | Path, encoding: str, option: str) -> None:
    """Refuse UTF-8 bytes read in a legacy encoding: a latin-1 reading of UTF-8 "è" is "Ã¨",
    which no check downstream would notice. Text in a legacy encoding is almost never also
    valid UTF-8 beyond ASCII, so a file that is can only have been meant as UTF-8."""
    if check_encoding(encoding).startswith("utf") or data.isascii():
        return
    try:
        meant = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return
    at = next(i for i, (a, b) in enumerate(zip(text, meant, strict=False)) if a != b)
    line = text.count("\n", 0, at) + 1
    garbled = text[at : at + len(meant[at].encode())]
    raise InputError(
        path,
        f"is UTF-8, not {encoding}: read as {encoding} it would say {garbled!r} where it "
        f"says {meant[at]!r}; pass {option} utf-8 (or leave {option} out)",
        line=line,
    )


def kind_of(path: str | Path) -> str:
    """What ``path`` is, in a user's words: "a folder", "a file", "a named pipe", "a link
    that loops", "missing"... (for messages about a path that is not what it should be)."""
    import errno
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops"
        return "a link to nothing" if os.path.islink(path) else "missing"
    kinds = (
        (stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a file"), (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"),
    )  # fmt: skip
    return next((name for test, name in kinds if test(mode)), "not a file")


def read_bytes(path: str | Path, what: str = "") -> bytes:
    """The bytes of ``path``; a missing or unreadable file is one error naming it (``what``:
    the file it should be, for the message)."""
    path = Path(path)
    kind = kind_of(path)
    if kind == "missing":
        raise InputError(path, f"{what} not found" if what else "no such file")
    if kind != "a file":  # a pipe would block the read for ever, a device never end
        raise InputError(path, f"{kind}, not {what or 'a file'}")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read {what or 'it'}: {exc.strerror or exc}") from None


def _as(what: str) -> str:
    return f", expected {what}" if what else ""


def read_text(path: str | Path, encoding: str = DEFAULT, option: str = "--encoding") -> str:
    """The whole text of ``path`` (the small files users bring: tables, lists, JSON)."""
    return decode(read_bytes(path), path, encoding, option)


def open_text(path: str | Path, encoding: str = DEFAULT) -> io.StringIO:
    """``path`` decoded, as a file object for ``csv`` readers (newlines kept as they are)."""
    return io.StringIO(read_text(path, encoding), newline="")


def lines(
    path: str | Path, encoding: str = DEFAULT, option: str = "--encoding"
) -> Iterator[tuple[int, str]]:
    """(line number, text without its line ending) of ``path``."""
    for number, line in enumerate(read_text(path, encoding, option).split("\n"), 1):
        yield number, line.rstrip("\r")


def quote_problem(line: str) -> str | None:
    """Why a line of a user's table holds a stray double quote, or None (balanced pairs, as
    in a note that quotes a word, are fine)."""
    count = line.count('"')
    return f"unbalanced double quote ({count} on the line): a stray quote?" if count % 2 else None


def control_problem(text: str) -> str | None:
    """Why a text of a user's file (a sentence, a word) holds a control character other than
    white space (a NUL, an escape), or None. No sentence holds one, a terminal or a browser
    shows it as nothing or garbles the line, and the aligners use NUL as their own marker."""
    for position, char in enumerate(text, 1):
        if unicodedata.category(char) == "Cc" and char not in "\t\n\r":
            return f"control character {char!r} at character {position}"
    return None


def check_quotes(path: str | Path, numbered: Iterable[tuple[int, str]]) -> None:
    """Refuse the first of the ``(line number, text)`` lines of ``path`` that holds a stray
    double quote, naming the file and the line."""
    for number, line in numbered:
        problem = quote_problem(line)
        if problem:
            raise InputError(path, problem, line=number)
