"""The rising-sequence statistic's null tail (controller/shuffle/stats.py): a sum of
logistic variables (its degenerate second-order part) and a small normal part, whose
tail is taken by a saddlepoint; checked against scipy's logistic law and the exact
permutation variance, on real shoes of 8 decks."""

from __future__ import annotations

import random

import numpy as np
import pytest
import scipy.integrate
import scipy.stats

from controller.shuffle import stats
from firmware_sim.shuffle_models import apply, parse_model
from tests.support.shuffles import shoe, uniform


def card_level_scales(pair: stats._Pair) -> np.ndarray:
    """The logistic scales from the card-level weights A_xy (n x n, one row a dealt card):
    sigma / (2 pi) for each pair +-i sigma of A's eigenvalues."""
    k = len(pair.counts)
    c = np.zeros((k, k))
    for a, b in zip(pair.first, pair.second, strict=True):
        if a != b:
            c[a, b] += 1
    weights = (c - c.T) / np.outer(pair.counts, pair.counts)
    cards = weights[np.ix_(pair.codes, pair.codes)]
    sigma = np.linalg.eigvalsh(1j * cards)
    return np.sort(sigma[sigma > 1e-9]) / (2 * np.pi)


@pytest.mark.parametrize(("decks", "known"), [(8, 416), (8, 100), (1, 52), (6, 300)])
def test_the_logistic_parts_add_up_to_the_exact_variance(decks: int, known: int) -> None:
    rng = random.Random(decks * 1000 + known)
    given = uniform(shoe(decks), rng)
    pair = stats._pair(given[:known], uniform(given, rng))
    null = stats._rising_null(pair.first, pair.second, pair.counts)
    # The identity-level reduction D^1/2 alpha D^1/2 has the card-level spectrum.
    scales = np.sort(null.scales[null.scales > 1e-9 / (2 * np.pi)])
    assert scales == pytest.approx(card_level_scales(pair), rel=1e-9, abs=1e-12)
    # A logistic of scale b has variance pi^2 b^2 / 3; with the normal part that is the
    # exact permutation variance of the statistic.
    parts = float((np.pi**2 * null.scales**2 / 3).sum()) + null.linear
    assert parts == pytest.approx(null.variance, rel=1e-9)
    # The linear part is only the input's first and last card (every other card of the
    # input has one neighbour before it and one after): small against the rest.
    assert 0 <= null.linear <= (4 / 3) * 2 / 16 / decks + 1e-12 < null.variance / 5


def convolved(w: float, scale_normal: float) -> float:
    """P(L + N >= w), L standard logistic, N normal: by quadrature (scipy)."""
    if scale_normal == 0:
        return float(scipy.stats.logistic.sf(w))
    found = scipy.integrate.quad(
        lambda x: scipy.stats.logistic.pdf(x) * scipy.stats.norm.sf(w - x, scale=scale_normal),
        -80, 80, limit=400, epsabs=1e-16,
    )  # fmt: skip
    return float(found[0])


@pytest.mark.parametrize("linear", [0.0, 0.5])
def test_the_saddlepoint_tail_is_the_logistic_law(linear: float) -> None:
    # One logistic of scale 1 (the hardest case: a sum of 26 is nearer normal).
    null = stats._RisingNull(np.pi**2 / 3 + linear, np.array([1.0]), linear)
    for w in (1.0, 3.0, 6.0, 10.0, 15.0):
        assert stats._upper_tail(w, null) == pytest.approx(convolved(w, linear**0.5), rel=0.04)
        assert stats._lower_p(-w, null) == stats._upper_tail(w, null)
        assert stats._lower_p(w, null) == pytest.approx(1 - stats._upper_tail(w, null))


def test_a_riffle_p_value_uses_the_heavier_tail() -> None:
    rng = random.Random(3)
    given = uniform(shoe(), rng)
    for _ in range(4):
        dealt = apply(parse_model("riffle:5"), given, rng)
        result = stats.rising_sequences(given, dealt)
        z, p_normal = result.detail["z"], result.detail["p_normal"]
        assert p_normal == pytest.approx(scipy.stats.norm.cdf(z))
        # The null has excess kurtosis (a sum of logistics): its tail is heavier than the
        # normal's (by a factor of about 2 at z = -4), its shoulders lighter.
        assert z < -2.5 and p_normal < result.p_value < 1e4 * p_normal
        given = dealt
