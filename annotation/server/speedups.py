"""Speed-ups for bulk record creation in argilla-server 2.8 (installed by the launcher).

Placeholder until measured; ``install`` changes nothing yet.
"""

from __future__ import annotations


def install() -> None:
    """Apply the patches (none yet)."""
    return None
