"""biasforge: curate, review, release and score multilingual bias-evaluation datasets.

This small package holds only what every stage shares: the root command line and the
file-level guarantees (atomic writes, checksums, input errors that name a file and line).
The stages themselves live in ``curation``, ``annotation``, ``exports`` and ``scoring`` and
talk to each other through files, never through each other's internals.
"""

__version__ = "0.1.0"
