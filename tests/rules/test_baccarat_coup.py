"""A ``Coup`` fed card by card gives what the stateless rules give on the same hands:
``next_to_draw`` for the hand due, ``point`` for each Point Count and ``result`` for
the winning hand, on every deal of card values, on random tokens in any spelling, and
over hands already dealt, irregular ones included (the same ValueError text)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.baccarat import Coup, Hand, next_to_draw, point, result
from controller.rules.baccarat import coup as coup_module
from controller.rules.baccarat.coup import COMPLETE
from controller.rules.cards import CardError, card, deck

# Cards of each value (545.6(a)), in turn: 0 is T, J, Q or K.
RANKS_OF_VALUE = ("TJQK", "A", "2", "3", "4", "5", "6", "7", "8", "9")
SPELLINGS = [*deck(), "10d", "10S", "th", " 9c", "as"]  # card() accepts each
NOT_CARDS = ["XX", "2?", "CUT", "", "1S"]
TOKENS = st.sampled_from([*SPELLINGS, *NOT_CARDS])


def _token(v: int, n: int) -> str:
    ranks = RANKS_OF_VALUE[v]
    return ranks[n % len(ranks)] + "SHDC"[n % 4]


def _same_answers(coup: Coup, player: list[str], banker: list[str]) -> None:
    """The coup's answers are the stateless rules' on these hands."""
    assert (coup.player, coup.banker) == (player, banker)
    assert coup.due == next_to_draw(player, banker)
    assert (coup.player_total, coup.banker_total) == (point(player), point(banker))
    if coup.due is None:
        assert coup.outcome == result(player, banker)
    else:
        with pytest.raises(ValueError) as stateless:
            result(player, banker)
        with pytest.raises(ValueError, match=r"^the round is not complete") as stateful:
            _ = coup.outcome
        assert str(stateful.value) == str(stateless.value)


def _deal_every_value(coup: Coup, dealt: int) -> int:
    """Each value as the next card to a copy of ``coup``, and on to the end of every
    deal; the stages compared."""
    _same_answers(coup, coup.player, coup.banker)
    due: Hand | None = coup.due
    if due is None:
        with pytest.raises(ValueError, match=r"^the round is complete"):
            coup.add("2S")
        return 1
    compared = 1
    for v in range(10):
        token = _token(v, dealt)
        after = Coup.of(list(coup.player), list(coup.banker))
        completes = after.would_complete(token)
        assert (after.add(token) is None) is completes
        compared += _deal_every_value(after, dealt + 1)
    return compared


@pytest.mark.reg(
    "545.6(a)", "545.6(b)", "545.9(c)", "545.10(c)", "545.11(a)", "545.11(c)", "545.12(a)"
)
def test_every_deal_of_card_values_gets_the_stateless_answers() -> None:
    assert _deal_every_value(Coup(), 0) == 377_111  # every stage of every deal


@given(st.lists(TOKENS, max_size=9))
@pytest.mark.reg("545.6(a)", "545.6(b)")
def test_tokens_dealt_one_by_one_get_the_stateless_answers(tokens: list[str]) -> None:
    coup = Coup()
    player: list[str] = []
    banker: list[str] = []
    for token in tokens:
        due = next_to_draw(player, banker)
        if due is None:
            for ask in (coup.add, coup.would_complete):
                with pytest.raises(ValueError, match=r"^the round is complete"):
                    ask(token)
            break
        try:
            card(token)
        except CardError as exc:  # refused as it is dealt: nothing changes
            for ask in (coup.add, coup.would_complete):
                with pytest.raises(CardError) as refused:
                    ask(token)
                assert str(refused.value) == str(exc)
            _same_answers(coup, player, banker)
            continue
        (player if due == "player" else banker).append(token)
        completes = next_to_draw(player, banker) is None
        assert coup.would_complete(token) is completes
        assert coup.add(token) == next_to_draw(player, banker)
        _same_answers(coup, player, banker)


@given(st.lists(TOKENS, max_size=4), st.lists(TOKENS, max_size=4))
@pytest.mark.reg("545.9(c)", "545.10(c)", "545.10(d)", "545.11(b)", "545.11(c)")
def test_a_coup_over_hands_dealt_refuses_what_next_to_draw_refuses(
    player: list[str], banker: list[str]
) -> None:
    try:
        expected = next_to_draw(player, banker)
    except ValueError as exc:
        with pytest.raises(ValueError) as refused:
            Coup.of(player, banker)
        assert str(refused.value) == str(exc)
        return
    try:
        coup = Coup.of(player, banker)
    except CardError:  # the coup reads every value; next_to_draw none of the first three
        assert len(player) + len(banker) < 4
        assert any(t in NOT_CARDS for t in player + banker)
        return
    assert coup.due == expected
    assert coup.player is player and coup.banker is banker  # dealt into from here on
    _same_answers(coup, player, banker)


def test_a_coup_deals_into_the_hands_it_was_made_over() -> None:
    player, banker = ["9S"], ["2D"]
    coup = Coup.of(player, banker)
    assert coup.add("TH") == "banker" and player == ["9S", "TH"]
    assert coup.add("5C") is None and banker == ["2D", "5C"]
    assert (coup.player_total, coup.banker_total, coup.outcome) == (9, 7, "player")
    with pytest.raises(ValueError) as complete:
        coup.add("3S")
    assert str(complete.value) == COMPLETE


@pytest.mark.parametrize("first", ["add", "would_complete", "of"])
def test_the_stages_are_made_on_the_first_card_whatever_asks_first(
    first: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(coup_module, "_FIRST", coup_module._UNMADE)
    coup = Coup()  # a table is built with its round's coup: nothing made yet
    assert (coup.due, coup.player_total, coup.banker_total) == ("player", 0, 0)
    if first == "add":
        assert coup.add("10h") == "banker"
    elif first == "would_complete":
        assert coup.would_complete("9S") is False
    else:
        assert Coup.of(["9S", "8D"], ["2C"]).due == "banker"
    assert coup_module._FIRST is not coup_module._UNMADE
    after = Coup()
    for token in ("2S", "KD", "3H", "5C", "4S", "9H"):  # 5 to 5; a 4 draws (545.11(c)(2))
        after.add(token)
    assert (after.player_total, after.banker_total, after.outcome) == (9, 4, "player")
