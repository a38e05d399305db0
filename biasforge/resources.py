"""Where biasforge's files are: those shipped inside the package (lexicons, samples,
templates), found through the import system rather than ``__file__`` arithmetic, and the
user's state folder.

The stages live in top-level folders of the repository but are installed as
``biasforge.curation`` and so on; ``importlib.resources`` resolves a package to wherever it
really is (checkout, editable install or wheel), so a data file is found the same way in all
three. Wheels install unzipped, so the result is a real path that other tools can open.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path


def package_path(package: str, *parts: str) -> Path:
    """The path of ``parts`` inside ``package`` (e.g. ``"biasforge.curation", "data"``)."""
    return Path(str(resources.files(package).joinpath(*parts)))


def biasforge_home() -> Path:
    """Per-user state (``$BIASFORGE_HOME``, default ``~/.biasforge``): the translation memory,
    the embedded Argilla server's data, the annotation registry."""
    return Path(os.environ.get("BIASFORGE_HOME") or Path.home() / ".biasforge").expanduser()
