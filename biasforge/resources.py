"""Files shipped inside the package (lexicons, samples, templates), found through the import
system rather than ``__file__`` arithmetic.

The stages live in top-level folders of the repository but are installed as
``biasforge.curation`` and so on; ``importlib.resources`` resolves a package to wherever it
really is (checkout, editable install or wheel), so a data file is found the same way in all
three. Wheels install unzipped, so the result is a real path that other tools can open.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def package_path(package: str, *parts: str) -> Path:
    """The path of ``parts`` inside ``package`` (e.g. ``"biasforge.curation", "data"``)."""
    return Path(str(resources.files(package).joinpath(*parts)))
