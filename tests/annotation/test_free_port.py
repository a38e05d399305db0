"""The port a server is started on when none is given (``free_port``).

A full test run met "port 53001 on 127.0.0.1 is in use" when two servers started side by side:
the port had been checked free, then taken before the server bound it. The kernel hands ports
of its ephemeral range to every outgoing connection and every bind to port 0, so a port drawn
from that range can go in between; ``free_port`` draws below it, and never hands out one port
twice in a process.
"""

from __future__ import annotations

from biasforge.annotation.admin.serve import EPHEMERAL_RANGE, free_port


def test_ports_are_drawn_below_the_kernels_own_picks_and_never_twice():
    low, high = map(int, EPHEMERAL_RANGE.read_text().split())
    drawn = [free_port() for _ in range(1000)]
    assert len(set(drawn)) == len(drawn)  # 1,000 draws from ~16,000 ports: ~30 repeats by chance
    assert all(1024 <= port < low for port in drawn), (min(drawn), max(drawn), low, high)
