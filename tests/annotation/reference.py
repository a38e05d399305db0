"""Second, deliberately simple implementations of the agreement statistics (textbook formulas),
used to check the library-based figures the pull writes."""

from __future__ import annotations

from collections import Counter
from itertools import permutations


def fleiss_kappa_simple(ratings: list[list[str]]) -> float:
    """Fleiss (1971): every item has the same number n of ratings."""
    n = len(ratings[0])
    N = len(ratings)
    categories = sorted({v for item in ratings for v in item})
    counts = [Counter(item) for item in ratings]
    p_j = [sum(c[cat] for c in counts) / (N * n) for cat in categories]
    P_i = [(sum(c[cat] ** 2 for cat in categories) - n) / (n * (n - 1)) for c in counts]
    P_bar = sum(P_i) / N
    P_e = sum(p * p for p in p_j)
    return (P_bar - P_e) / (1 - P_e)


def krippendorff_alpha_simple(units: list[list[str]]) -> float:
    """Nominal alpha from the coincidence matrix (Krippendorff 2011), units with ≥ 2 values."""
    units = [u for u in units if len(u) >= 2]
    coincidence: Counter = Counter()
    for values in units:
        m = len(values)
        for a, b in permutations(range(m), 2):
            coincidence[(values[a], values[b])] += 1 / (m - 1)
    n_c: Counter = Counter()
    for (c, _k), w in coincidence.items():
        n_c[c] += w
    n = sum(n_c.values())
    d_o = sum(w for (c, k), w in coincidence.items() if c != k)
    d_e = sum(n_c[c] * n_c[k] for c in n_c for k in n_c if c != k) / (n - 1)
    return 1 - d_o / d_e
