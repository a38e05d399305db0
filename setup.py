"""Package discovery for setuptools: every folder with an ``__init__.py`` under each folder of
the ``package-dir`` mapping in pyproject.toml, named in the ``biasforge`` namespace.

The stages keep their top-level folders (``curation/`` installs as ``biasforge.curation``), and
setuptools' own discovery (``[tool.setuptools.packages.find]``) names packages after folders,
so it cannot apply that mapping; this file applies it with ``find_namespace_packages``, so no
package list is kept by hand (a new subpackage is never left out of the wheel). Namespace
discovery also names the data folders (``scoring/data``...): listed, setuptools stops warning
that they "would be ignored" (a hundred lines per folder in every install log). Everything
else is in pyproject.toml.
"""

import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup

ROOT = Path(__file__).resolve().parent
PACKAGE_DIR = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
    "package-dir"
]

setup(
    packages=sorted(
        f"{name}.{sub}" if sub else name
        for name, folder in PACKAGE_DIR.items()
        for sub in ["", *find_namespace_packages(str(ROOT / folder), exclude=["*__pycache__*"])]
    )
)
