"""The shuffle monitor's statistics and sequential scheme on real shuffles of a real shoe:
uniform (random.Random.shuffle of 8 decks), GSR riffles, blocks kept whole, no shuffle."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest
import scipy.stats

from controller.shuffle import stats
from controller.shuffle.sequential import Monitor, fisher, shoe_alpha
from firmware_sim.shuffle_models import apply, parse_model
from tests.support.shuffles import clumpy, riffle, shoe, uniform

Shuffle = Callable[[list[str], random.Random], list[str]]


def shoes_to_alert(shuffle: Shuffle, seed: int, shoes: int, monitor: Monitor) -> int | None:
    """Shuffle the previous shoe's output again and again (the real chain: this shoe's
    dealt order is the next shoe's input); the 1-based shoe of the first alert."""
    rng = random.Random(seed)
    order = uniform(shoe(), rng)
    for count in range(1, shoes + 1):
        dealt = shuffle(order, rng)
        if monitor.observe(stats.all_tests(order, dealt)).status == "alert":
            return count
        order = dealt
    return None


def test_uniform_shoes_raise_no_alert_in_300() -> None:
    # At 0.99 the budget is 5e-5 per good shoe (union bound): over 300 shoes the expected
    # number of false alarms is at most 0.015, so this fails by chance in < 1.5 % of
    # seeds; the seed is fixed, so the run is the same every time.
    monitor = Monitor()
    assert monitor.alpha == pytest.approx(5e-5)
    assert shoes_to_alert(lambda o, r: uniform(o, r), 14, 300, monitor) is None


def test_uniform_p_values_are_not_small() -> None:
    rng = random.Random(5)
    given = uniform(shoe(), rng)
    results = stats.all_tests(given, uniform(given, rng))
    assert [r.name for r in results] == [
        "position_uniformity", "spearman", "adjacency", "rising_sequences",
    ]  # fmt: skip
    assert min(r.p_value for r in results) > 1e-3
    rising = results[3]
    assert rising.detail["expected"] == pytest.approx((416 + 1) / 2)
    assert abs(rising.statistic - 208.5) < 4 * (417 / 12) ** 0.5


@pytest.mark.parametrize("passes", [1, 2, 3])
def test_a_riffle_is_detected_within_two_shoes(passes: int) -> None:
    found = shoes_to_alert(lambda o, r: riffle(o, r, passes), passes, 2, Monitor())
    assert found is not None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_production_riffles_of_the_first_shoe_alert_at_once(seed: int) -> None:
    # The power table (docs/shuffle-monitor.md, "Power"): riffle:2 of the simulator,
    # from pack order, alerted on the first shoe in all 50 chains at both confidences.
    rng = random.Random(seed)
    given = shoe()
    dealt = apply(parse_model("riffle:2"), given, rng)
    for confidence in (0.99, 0.95):
        verdict = Monitor(confidence=confidence).observe(stats.all_tests(given, dealt))
        assert verdict.status == "alert"
        assert verdict.threshold == pytest.approx(shoe_alpha(confidence) / 8)


def test_seven_riffles_are_detected_within_30_shoes() -> None:
    found = shoes_to_alert(lambda o, r: riffle(o, r, 7), 7, 30, Monitor())
    assert found is not None


def test_a_riffle_leaves_few_rising_sequences() -> None:
    rng = random.Random(2)
    given = uniform(shoe(), rng)
    result = stats.rising_sequences(given, riffle(given, rng, 2))
    # Two GSR riffles of distinct cards leave at most 4 rising sequences; with 8 copies of
    # each card the average over the copies stays near 208.5, but its null spread shrinks
    # with it (about 0.7 rather than 5.9), so the shift is still far out in the tail.
    assert result.statistic < result.detail["expected"] - 2
    assert result.detail["z"] < -5
    assert result.p_value < 1e-6


def test_blocks_kept_whole_are_detected_at_once() -> None:
    assert shoes_to_alert(lambda o, r: clumpy(o, r, 8), 3, 1, Monitor()) == 1


def test_no_shuffle_is_detected_at_once() -> None:
    assert shoes_to_alert(lambda o, r: list(o), 4, 1, Monitor()) == 1
    given = uniform(shoe(), random.Random(4))
    assert stats.adjacency(given, list(given)).p_value < 1e-100


def test_rising_sequences_of_distinct_cards_is_the_bayer_diaconis_count() -> None:
    rng = random.Random(9)
    for _ in range(50):
        given, dealt = uniform(shoe(1), rng), uniform(shoe(1), rng)
        where = {card: t for t, card in enumerate(dealt)}
        direct = 1 + sum(where[b] < where[a] for a, b in itertools.pairwise(given))
        assert stats.rising_sequences(given, dealt).statistic == direct


def test_a_partly_known_input_uses_only_its_pairs() -> None:
    rng = random.Random(11)
    given = uniform(shoe(), rng)
    result = stats.rising_sequences(given[:100], uniform(given, rng))
    assert result.detail["expected"] == pytest.approx(1 + 99 / 2)
    assert stats.all_tests(None, given)[0].name == "position_uniformity"
    assert len(stats.all_tests(None, given)) == 1


def test_returned_cards_coming_back_too_soon_are_seen() -> None:
    rng = random.Random(12)
    machine = uniform(shoe(), rng)
    returned = machine[:20]
    soon = returned + uniform(machine[20:], rng)
    # 20 cards of 52 strings x 8 copies: the identity cannot tell which copy came back,
    # so one shoe gives a modest p-value; the monitor's window adds shoes up.
    assert stats.return_position(returned, soon).p_value < 1e-3
    assert stats.return_position(returned, uniform(machine, rng)).p_value > 1e-3


@pytest.mark.parametrize(
    "orders",
    [([], []), (["AS"], ["AS"]), (["AS"] * 8, ["AS"] * 8)],
    ids=["empty", "one card", "all the same card"],
)
def test_degenerate_shoes_are_a_clear_value_error(orders: tuple[list[str], list[str]]) -> None:
    given, dealt = orders
    for test in (stats.spearman, stats.adjacency, stats.rising_sequences):
        with pytest.raises(ValueError):
            test(given, dealt)
    with pytest.raises(ValueError):
        stats.position_uniformity([dealt])
    with pytest.raises(ValueError):
        stats.return_position(given, dealt)


def test_input_cards_missing_from_the_output_are_refused() -> None:
    with pytest.raises(ValueError, match="not in the output"):
        stats.rising_sequences(["AS", "KH", "QD"], ["AS", "KH", "2C"])


def test_confidence_and_window_are_checked() -> None:
    assert shoe_alpha(0.99) == pytest.approx(5e-5)  # 0.5 false alarms per 10,000 at most
    assert shoe_alpha(0.95) == pytest.approx(2.5e-4)
    assert Monitor(confidence=0.95).alpha == pytest.approx(2.5e-4)
    for bad in (1.0, 0.2):
        with pytest.raises(ValueError, match="confidence"):
            Monitor(confidence=bad)
    with pytest.raises(ValueError, match="window"):
        Monitor(window=0)
    with pytest.raises(ValueError, match="at least one test"):
        Monitor().observe([])


def test_the_window_combination_is_fishers() -> None:
    p_values = [0.5, 0.01, 0.2, 0.03]
    expected = scipy.stats.combine_pvalues(p_values, method="fisher").pvalue
    assert fisher(p_values) == pytest.approx(expected, rel=1e-12)
