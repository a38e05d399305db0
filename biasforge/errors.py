"""Errors a user can act on: each names the file and, where it has one, the line or record."""

from __future__ import annotations

from pathlib import Path


class BiasforgeError(Exception):
    """Base class for errors shown to the user without a traceback."""


class InputError(BiasforgeError):
    """Bad input data, located precisely enough that the user can open the file and fix it."""

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        record: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.record = record
        where = self.path
        if line is not None:
            where += f":{line}"
        if record is not None:
            where += f" (record {record})"
        super().__init__(f"{where}: {message}")


class OutputExistsError(BiasforgeError):
    """Refusing to overwrite finished work."""
