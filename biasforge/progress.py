"""The one progress bar every stage draws: tqdm on a terminal, a few plain lines in a log.

tqdm redraws its bar with ``\\r`` many times a second; on a terminal that is one moving line,
but in a CI log or a file (stderr not a TTY) every redraw is a line of its own, thousands per
run. So when stderr is not a terminal, or ``CI`` is set, the bar prints one plain line at start,
one per tenth of the work and one at the end (a bar without a total: one line every
:data:`PLAIN_INTERVAL` seconds) — the same figures, a dozen lines whatever the size.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable
from typing import Any

from tqdm import tqdm

#: lines a plain bar prints for its whole total (plus the start and the end)
PLAIN_STEPS = 10
#: seconds between the lines of a plain bar that has no total
PLAIN_INTERVAL = 30.0


class PlainBar(tqdm):
    """A tqdm bar that writes whole lines, at most every ``total/PLAIN_STEPS`` items."""

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        if msg == "":  # tqdm clearing a finished bar (leave=False): nothing to clear in a log
            return True
        line = str(self) if msg is None else msg
        if line != getattr(self, "_last_line", None):
            self.fp.write(line + "\n")
            self.fp.flush()
            self._last_line = line
        return True


def interactive(stream: Any = None) -> bool:
    """Whether progress goes to a terminal a person watches (not a pipe, a file or CI)."""
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("CI")


def progress_bar(iterable: Iterable | None = None, **kwargs: Any) -> tqdm:
    """``tqdm(iterable, **kwargs)`` on a terminal; elsewhere a :class:`PlainBar` that prints
    about :data:`PLAIN_STEPS` lines in all, so logs stay readable."""
    if interactive(kwargs.get("file")):
        return tqdm(iterable, **kwargs)
    total = kwargs.get("total")
    if total is None and iterable is not None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    if total:
        kwargs |= {"miniters": max(1, math.ceil(total / PLAIN_STEPS)), "mininterval": 0}
    else:
        kwargs |= {"mininterval": PLAIN_INTERVAL}
    # maxinterval: tqdm's monitor thread would otherwise drop miniters to 1 on a slow run
    kwargs |= {"maxinterval": math.inf, "ascii": True, "dynamic_ncols": False, "ncols": 100}
    return PlainBar(iterable, **kwargs)
