"""Shuffle-quality statistics for one shoe: pure functions, each with its null distribution.

Inputs: ``output_order`` is the dealt order of one shoe (position 0 = first card out);
``input_order`` is the order the shuffler was given the cards (the previous shoe's discard
rack), possibly only a part of it. Cards are the journal's card strings; a shoe of 8 decks
holds every string 8 times.

Repeated cards, without a bijection. Matching the k-th copy in the input to the k-th copy
in the output is NOT valid under the null: it sorts each card's copies, so a uniform
shuffle would look strongly order-preserving (a Spearman correlation near 0.8 on an 8-deck
shoe). Instead every statistic is defined on card identities, as the average of the
distinct-card statistic over all ways to tell the copies apart (a Rao-Blackwell average).
Under the null hypothesis -- the output is a uniformly random arrangement of its cards,
independent of the input -- each statistic has an exactly known mean and variance,
derived below; the p-values use the normal (or chi-square, Poisson) limit, via scipy.stats.
With 52 distinct cards every statistic reduces to the textbook one.

The tests:

* ``position_uniformity``: the rank (A..K) by position band contingency table of one or
  more shoes; margins are fixed by the shoe's contents, so Pearson's X^2
  (``scipy.stats.chi2_contingency``) is chi-square with (ranks-1)(bands-1) degrees of
  freedom asymptotically. Two-sided in the sense of any departure.
* ``spearman``: Spearman's rho between output position and the mean input position of the
  card's identity (``scipy.stats.spearmanr``). Under the null the output is a uniform
  permutation of a fixed multiset of scores, so E[rho] = 0 and Var[rho] = 1/(n-1) exactly
  (a linear permutation statistic); z = rho sqrt(n-1), two-sided normal p-value.
* ``adjacency``: how many output neighbours (x_t, x_t+1) form an ordered pair of
  identities that was adjacent in the input. The null mean is exact:
  sum over those pairs (a, b) of m_a (m_b - [a = b]) / n; the count is a sum of many
  weakly dependent rare events, so the p-value is the Poisson upper tail (for distinct
  cards: the number of successions of a random permutation, Poisson(1) in the limit).
* ``rising_sequences``: Bayer-Diaconis rising sequences of the output relative to the
  input: 1 + the descents sigma(i+1) < sigma(i) over input neighbours, each descent
  replaced by its probability over the copies (the fraction of (a-copy, b-copy) pairs with
  the b-copy dealt first; 1/2 for two copies of one card). Its null mean is 1 + P/2 for P
  input neighbour pairs ((n+1)/2 for a whole shoe); its variance is
  Var Z / 16 with Var Z = (2/3) sum_{x!=y} A_xy^2 + (4/3) sum_x (sum_y A_xy)^2, A the
  antisymmetric pair weights (for distinct cards this gives the Eulerian (n+1)/12).
  One-sided: riffles leave few rising sequences.

  Its tail is NOT the normal's. Z = sum_{x!=y} A_xy sign(U_x - U_y) with U_x iid uniform
  (only the order of the positions matters). Hoeffding's decomposition
  sign(u - v) = (2u - 1) - (2v - 1) + h(u, v) splits Z into a linear part
  2 sum_x R_x (2U_x - 1), R_x = sum_y A_xy, and a degenerate part sum A_xy h(U_x, U_y).
  R_x is (out-degree - in-degree) / m_a of the card's identity in the input, so it is
  zero but for the input's first and last card: the linear part, normal, carries a few
  per cent of the variance. The kernel h has eigenvalues +-i / (pi j), j = 1, 2, ...;
  the card weights A = E alpha E^T have those of D^1/2 alpha D^1/2 (D the copies),
  +-i sigma_a. The degenerate part tends to sum_{a, j} (2 sigma_a / (pi j)) L_aj, L_aj
  iid standard Laplace (each (a, j) gives the Gaussian chaos the eigenvalues
  +-sigma_a / (pi j) twice), whose characteristic function is, by the product for
  sinh, prod_a 2 sigma_a t / sinh(2 sigma_a t): a sum of independent logistic variables
  of scales 2 sigma_a / pi (a logistic of scale b has characteristic function
  pi b t / sinh(pi b t)). For the statistic (= const +
  Z/4) the scales are sigma_a / (2 pi); their variances pi^2 b^2 / 3 plus the linear
  part's add up to the exact variance above. With 52 identities there are 26 scales, a
  few of which dominate: excess kurtosis about 0.08, and at z = -4.26 (normal tail
  1e-5) the tail is 2.4e-5. The p-value is that sum's lower tail by the Lugannani-Rice
  saddlepoint approximation (its cumulant generating function is sum log(x / sin x),
  x = pi b s); simulated (benchmarks/shuffle_tail.py, 400,000 outputs) it is within 10 %
  of the tail down to 1e-5, slightly conservative, where the normal is light by 2x.
* ``return_position``: continuous shuffler (551.15): where the returned cards' identities
  sit among the next cards dealt. Under an ideal shuffler the dealt cards are exchangeable,
  so the correlation between position and "how many copies of this card were returned"
  has mean 0 and variance 1/(n-1); one-sided: returned cards coming back too soon.

Degenerate inputs (fewer than 2 cards, input cards missing from the output, a test with
nothing to measure such as a shoe of one card string) raise ``ValueError``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as sps
from scipy.optimize import brentq
from scipy.special import ndtr, pdtrc

RANK_ORDER = "A23456789TJQK"
_RANK = {rank: i for i, rank in enumerate(RANK_ORDER)}


@dataclass(frozen=True)
class TestResult:
    """One statistic of one shoe (or window): small p-value = evidence of a bad shuffle."""

    name: str
    statistic: float
    p_value: float
    n: int
    detail: dict[str, float]


def _check(order: Sequence[str], what: str) -> None:
    if len(order) < 2:
        raise ValueError(f"{what} needs at least 2 cards, got {len(order)}")


def _codes(output_order: Sequence[str]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """Identity codes of the output, the output as codes and each identity's count."""
    index = {card: i for i, card in enumerate(dict.fromkeys(output_order))}
    if len(index) < 2:
        raise ValueError("the output holds a single card string: nothing to measure")
    codes = np.fromiter((index[c] for c in output_order), dtype=np.intp, count=len(output_order))
    return index, codes, np.bincount(codes, minlength=len(index))


@dataclass(frozen=True)
class _Pair:
    """An input order and an output order as identity codes (computed once per shoe)."""

    codes: np.ndarray  # the output
    counts: np.ndarray  # copies of each identity in the output
    in_codes: np.ndarray  # the input

    @property
    def first(self) -> np.ndarray:
        return self.in_codes[:-1]

    @property
    def second(self) -> np.ndarray:
        return self.in_codes[1:]


def _pair(input_order: Sequence[str], output_order: Sequence[str]) -> _Pair:
    """Both orders as codes; the input must be at least 2 cards that fit in the output."""
    _check(output_order, "the output order")
    index, codes, counts = _codes(output_order)
    need = Counter(input_order)
    missing = [c for c, k in need.items() if c not in index or counts[index[c]] < k]
    if missing:
        raise ValueError(f"input cards not in the output: {sorted(missing)[:5]}")
    if len(input_order) < 2:
        raise ValueError("input order needs at least 2 cards")
    in_codes = np.fromiter((index[c] for c in input_order), np.intp, len(input_order))
    return _Pair(codes, counts, in_codes)


def _before_matrix(codes: np.ndarray, k: int) -> np.ndarray:
    """B[a, b] = number of (a-copy, b-copy) pairs with the b-copy dealt before the a-copy.

    Sums of the running counts by identity (no matrix product: OpenBLAS would start
    threads that spin for more CPU than the whole shoe's tests take)."""
    onehot = np.zeros((len(codes), k), dtype=np.int64)
    onehot[np.arange(len(codes)), codes] = 1
    seen = np.cumsum(onehot, axis=0) - onehot
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(k))
    before: np.ndarray = np.add.reduceat(seen[order], starts, axis=0).astype(float)
    return before


def _rank_band_table(outputs: Sequence[Sequence[str]], bands: int) -> np.ndarray:
    table = np.zeros((len(RANK_ORDER), bands))
    for order in outputs:
        _check(order, "position uniformity")
        n = len(order)
        ranks = np.fromiter((_RANK[card[0]] for card in order), np.intp, n)
        np.add.at(table, (ranks, np.arange(n) * bands // n), 1.0)
    used: np.ndarray = table[table.sum(axis=1) > 0]
    return used


def position_uniformity(outputs: Sequence[Sequence[str]], bands: int = 4) -> TestResult:
    """Chi-square of rank by position band over one or more dealt orders."""
    table = _rank_band_table(outputs, bands)
    if table.shape[0] < 2 or (table.sum(axis=0) == 0).any():
        raise ValueError("position uniformity needs 2 ranks and cards in every band")
    res: Any = sps.chi2_contingency(table, correction=False)
    return TestResult(
        "position_uniformity",
        float(res.statistic),
        float(res.pvalue),
        int(table.sum()),
        {"dof": float(res.dof), "bands": float(bands)},
    )


def _linear_correlation(
    name: str, scores: np.ndarray, alternative: str, extra: dict[str, float]
) -> TestResult:
    """Spearman's rho of position vs ``scores`` with its exact permutation variance."""
    n = len(scores)
    if np.ptp(scores) == 0:
        raise ValueError(f"{name}: every card scores the same, nothing to correlate")
    # Spearman's rho is Pearson's r of the ranks; the positions are their own ranks.
    ranks = sps.rankdata(scores)
    x, y = np.arange(n) - (n - 1) / 2, ranks - ranks.mean()
    rho = float((x * y).sum() / np.sqrt((x * x).sum() * (y * y).sum()))
    z = rho * np.sqrt(n - 1)
    p = float(ndtr(z) if alternative == "less" else 2 * ndtr(-abs(z)))
    return TestResult(name, rho, p, n, {"z": float(z), **extra})


def spearman(input_order: Sequence[str], output_order: Sequence[str]) -> TestResult:
    """Output position vs the mean input position of the card's identity (two-sided)."""
    return _spearman(_pair(input_order, output_order))


def _spearman(pair: _Pair) -> TestResult:
    k, m = len(pair.counts), len(pair.in_codes)
    sums = np.bincount(pair.in_codes, weights=np.arange(m), minlength=k)
    known = np.bincount(pair.in_codes, minlength=k)
    mean_in = np.where(known > 0, sums / np.maximum(known, 1), (m - 1) / 2)
    return _linear_correlation("spearman", mean_in[pair.codes], "two-sided", {})


def adjacency(input_order: Sequence[str], output_order: Sequence[str]) -> TestResult:
    """Output neighbours that were input neighbours (ordered identities); Poisson upper tail."""
    return _adjacency(_pair(input_order, output_order))


def _adjacency(pair: _Pair) -> TestResult:
    codes, counts = pair.codes, pair.counts
    k, n = len(counts), len(codes)
    pairs = np.zeros((k, k), dtype=bool)
    pairs[pair.first, pair.second] = True
    observed = int(pairs[codes[:-1], codes[1:]].sum())
    ordered = np.outer(counts, counts) - np.diag(counts)
    mean = float((ordered * pairs).sum() / n)
    # P(X >= observed) for X ~ Poisson(mean); pdtrc(j, m) is P(X > j).
    p = float(pdtrc(observed - 1, mean)) if mean > 0 and observed > 0 else 1.0
    return TestResult("adjacency", float(observed), p, n, {"expected": mean})


@dataclass(frozen=True)
class _RisingNull:
    """Rising sequences - mean ~ sum_a scales_a * Logistic_a + N(0, linear) under the null."""

    variance: float
    scales: np.ndarray
    linear: float


def _logistic_cgf(s: float, null: _RisingNull) -> tuple[float, float, float]:
    """K(s), K'(s), K''(s) of the null law: K = sum log(x / sin x) + linear s^2/2, x = pi b s
    (a logistic of scale b has the moment generating function x / sin x); series for small x."""
    x = np.pi * null.scales * s
    small = x < 1e-2
    safe = np.where(small, 1.0, x)
    k0 = np.where(small, x**2 / 6 + x**4 / 180, np.log(safe / np.sin(safe)))
    k1 = np.where(small, x / 3 + x**3 / 45, 1 / safe - 1 / np.tan(safe))
    k2 = np.where(small, 1 / 3 + x**2 / 15, 1 / np.sin(safe) ** 2 - 1 / safe**2)
    b = np.pi * null.scales
    return (
        float(k0.sum()) + null.linear * s * s / 2,
        float((b * k1).sum()) + null.linear * s,
        float((b * b * k2).sum()) + null.linear,
    )


def _upper_tail(w: float, null: _RisingNull) -> float:
    """P(W >= w) for w > 0: the Lugannani-Rice saddlepoint approximation."""
    if not len(null.scales):
        return float(ndtr(-w / np.sqrt(null.linear)))
    top = (1 - 1e-12) / float(null.scales.max())  # K' grows without bound towards 1/b_max
    s = float(brentq(lambda t: _logistic_cgf(t, null)[1] - w, 1e-300, top, xtol=1e-14))
    k0, _, k2 = _logistic_cgf(s, null)
    r = np.sqrt(max(2 * (s * w - k0), 0.0))
    u = s * np.sqrt(k2)
    return float(
        min(max(ndtr(-r) + np.exp(-r * r / 2) / np.sqrt(2 * np.pi) * (1 / u - 1 / r), 0), 1)
    )


def _lower_p(deviation: float, null: _RisingNull) -> float:
    """P(W <= deviation); the law is symmetric (reversing a uniform order is uniform)."""
    z = deviation / np.sqrt(null.variance)
    if abs(z) < 0.05:  # the saddlepoint's removable singularity at the mean: normal there
        return float(ndtr(z))
    if deviation < 0:
        return _upper_tail(-deviation, null)
    return 1 - _upper_tail(deviation, null)


def _rising_null(first: np.ndarray, second: np.ndarray, counts: np.ndarray) -> _RisingNull:
    """The null law of (rising sequences - mean): its variance, its logistic scales (the
    degenerate, second-order part) and the variance of its small linear part."""
    k = len(counts)
    c = np.zeros((k, k))
    np.add.at(c, (first, second), 1.0)
    np.fill_diagonal(c, 0.0)
    mm = np.outer(counts, counts).astype(float)
    alpha = (c - c.T) / np.where(mm > 0, mm, 1.0)
    sum_sq = float((mm * alpha**2).sum())
    rows = (alpha * counts[None, :]).sum(axis=1)
    linear = (4 / 3) * float((counts * rows**2).sum()) / 16
    # A = E alpha E^T (E: card -> identity) has the nonzero eigenvalues of
    # D^1/2 alpha D^1/2, antisymmetric: +-i sigma, so its singular values are the sigmas
    # in equal pairs (sorted, largest first: take every other; an SVD is 4x cheaper
    # than the Hermitian eigenvalues here).
    root = np.sqrt(counts.astype(float))
    sigma = np.linalg.svd(root[:, None] * alpha * root[None, :], compute_uv=False)[::2]
    scales = sigma[sigma > 1e-12] / (2 * np.pi)
    return _RisingNull((2 / 3) * sum_sq / 16 + linear, scales, linear)


def rising_sequences(input_order: Sequence[str], output_order: Sequence[str]) -> TestResult:
    """Rising sequences of the output relative to the input; lower tail (riffles)."""
    return _rising(_pair(input_order, output_order))


def _rising(pair: _Pair) -> TestResult:
    first, second, codes, counts = pair.first, pair.second, pair.codes, pair.counts
    before = _before_matrix(codes, len(counts))
    same = first == second
    frac = before[first, second] / (counts[first] * counts[second])
    observed = 1.0 + float(np.where(same, 0.5, frac).sum())
    mean = 1.0 + len(first) / 2
    null = _rising_null(first, second, counts)
    if null.variance <= 0:
        raise ValueError("rising sequences: the input has no pair of different cards")
    z = (observed - mean) / np.sqrt(null.variance)
    p = _lower_p(observed - mean, null)
    detail = {"expected": mean, "z": float(z), "p_normal": float(ndtr(z))}
    return TestResult("rising_sequences", observed, p, len(codes), detail)


def return_position(returned: Sequence[str], dealt_after: Sequence[str]) -> TestResult:
    """Continuous shuffler: do returned cards come back among the next cards too soon?"""
    _check(dealt_after, "return position")
    back = Counter(returned)
    if not back:
        raise ValueError("return position needs at least one returned card")
    scores = np.array([float(back.get(c, 0)) for c in dealt_after])
    return _linear_correlation(
        "return_position", scores, "less", {"returned": float(len(returned))}
    )


def all_tests(input_order: Sequence[str] | None, output_order: Sequence[str]) -> list[TestResult]:
    """Every per-shoe test that the known orders allow (no input: uniformity only)."""
    results = [position_uniformity([output_order])]
    if input_order is not None and len(input_order) >= 2:
        pair = _pair(input_order, output_order)
        results += [_spearman(pair), _adjacency(pair), _rising(pair)]
    return results
