"""The Baccarat / Midibaccarat machine as data: its states, its transitions, where
each chapter writes the rules the table enforces, and what the table gives its parts.

The transitions name the callbacks and conditions of the table's parts
(``controller.table.machine``): ``shoe`` (the shoe in play), ``discards`` (the cards
that go to no hand), ``round`` (the round wagered on and dealt) and ``offers`` (what
is offered seat by seat); a name without a part is the table's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from controller.rules.baccarat import BaccaratRules

SHUFFLE_DUE = "shuffle_due"  # no shoe in play: shuffled (new) cards are needed
BURN_DUE = "burn_due"  # shuffled; the first card is the burn card
BURNING = "burning"  # burning as many cards as the first card's face value
DISCARDING = "discarding"  # discarding the cards that follow one found face up
WAGERING = "wagering"  # wagers are taken until "no more bets"
DEALING = "dealing"  # the round's cards
STATES = (SHUFFLE_DUE, BURN_DUE, BURNING, DISCARDING, WAGERING, DEALING)
IN_PLAY = (BURN_DUE, BURNING, DISCARDING, WAGERING, DEALING)  # a shoe is in play
FACE_UP_FROM = (BURN_DUE, BURNING, WAGERING, DEALING)

SEATS = {"baccarat": 14, "midibaccarat": 9}  # 545.2(a): 10 to 14 seats; 543.2(a): at most 9


@dataclass(frozen=True, slots=True)
class Curatorship:
    """A player deals as the curator and the shoe passes among the players (545.7(b)-(d),
    545.9(b), 545.14): a chapter has every one of these procedures or none."""

    offer_shoe: str  # the shuffled cards in the shoe, it is offered from seat one
    curator_accepts: str  # the player who accepts it is the curator
    dealer_designated: str  # who accepts may designate the dealer calling the game
    dealer_curator: str  # no player accepts: the dealer calling the game deals
    cards: str  # after "no more bets", "cards" tells the curator to deal
    passes: str  # the curator may pass the shoe after any round
    banker_loses: str  # and passes it whenever the Banker's Hand loses
    pass_ordered: str  # or when the dealer or a floorperson orders it
    pass_offer: str  # a shoe passed is offered from the previous curator's right


@dataclass(frozen=True, slots=True)
class Sections:
    """Where a chapter writes each rule the table enforces. Every field must be given:
    a procedure the chapter does not have is None, and the section that says why is."""

    seats: str
    decks: str
    new_decks: str
    shuffle: str
    cut: str
    second_cover: str
    recut: str
    burn: str
    dealing_shoe: str
    bets: str
    chips: str
    wagers: str
    no_more_bets: str
    squeeze: str
    cover: str
    payment: str
    vigorish: str
    drawn_in_error: str
    disclosed: str
    face_up: str
    too_few: str
    reveal: str
    curatorship: Curatorship | None  # None: the dealer deals every hand
    dealer_deals: str | None  # where the dealer deals every hand; None: a curator deals

    def __post_init__(self) -> None:
        if (self.curatorship is None) == (self.dealer_deals is None):
            raise ValueError("either a curator deals or the dealer deals every hand")


# The two chapters share their numbering except where these say otherwise; comments
# in this package cite chapter 545.
SECTIONS: Mapping[str, Sections] = {
    "baccarat": Sections(
        seats="545.2(a)",
        decks="545.3(a)",
        new_decks="545.3(b)",
        shuffle="545.5(a)",
        cut="545.5(b)",
        second_cover="545.5(d)",
        recut="545.5(e)",
        burn="545.5(f)",
        dealing_shoe="545.7(a)",
        bets="545.8(a)",
        chips="545.8(b)",
        wagers="545.8(c)",
        no_more_bets="545.9(b)",
        squeeze="545.9(d)",
        cover="545.10(e)",
        payment="545.12(b)",
        vigorish="545.13(e)",
        drawn_in_error="545.15(a)",
        disclosed="545.15(c)",
        face_up="545.15(d)",
        too_few="545.15(e)",
        reveal="545.15(f)",
        curatorship=Curatorship(
            offer_shoe="545.7(b)",
            curator_accepts="545.7(c)",
            dealer_designated="545.7(d)(1)",
            dealer_curator="545.7(d)(2)",
            cards="545.9(b)",
            passes="545.14(a)",
            banker_loses="545.14(a)(1)",
            pass_ordered="545.14(a)(2)",
            pass_offer="545.14(b)",
        ),
        dealer_deals=None,
    ),
    "midibaccarat": Sections(
        seats="543.2(a)",
        decks="543.3(a)",
        new_decks="543.3(b)",
        shuffle="543.5(a)",
        cut="543.5(c)",
        second_cover="543.5(e)",
        recut="543.5(f)",
        burn="543.5(g)",
        dealing_shoe="543.7",
        bets="543.8(a)",
        chips="543.8(b)",
        wagers="543.8(c)",
        no_more_bets="543.9(b)",
        squeeze="543.9(c)(3)",
        cover="543.10(e)",
        payment="543.12(b)",
        vigorish="543.13(e)",
        drawn_in_error="543.14(a)",
        disclosed="543.14(c)",
        face_up="543.14(d)",
        too_few="543.14(e)",
        reveal="543.14(f)",
        # 543.7, 543.9(c): the dealer deals from the shoe; no player has it.
        curatorship=None,
        dealer_deals="543.9(c)",
    ),
}


class Prompt(Protocol):
    """Shows ``text`` on the shoe's display and records it, citing ``section``."""

    def __call__(self, text: str, section: str | None = None) -> None: ...


@dataclass(frozen=True, slots=True)
class Context:
    """What the table gives each of its parts: the rules and sections in force, its
    record and display, and the state its machine is in."""

    rules: BaccaratRules
    sec: Sections
    record: Callable[[Mapping[str, object]], None]
    prompt: Prompt
    state: Callable[[], str]
    last_prompt: Callable[[], str | None]

    @property
    def seats(self) -> int:
        return SEATS[self.rules.game]


TRANSITIONS: list[dict[str, Any]] = [
    # 545.5(a): cards shuffled (and cut) before play; 545.5(b): the cut offered.
    {
        "trigger": "shuffled",
        "source": SHUFFLE_DUE,
        "dest": BURN_DUE,
        "after": ["shoe.shuffled", "offers.offer_cut", "shoe.call_burn"],
    },
    # 545.15(d): a card found face up is not used; as many more go to the discard.
    {
        "trigger": "card",
        "source": list(FACE_UP_FROM),
        "dest": DISCARDING,
        "conditions": ["discards.found_face_up", "discards.face_up_takes_more"],
        "before": "discards.face_up",
    },
    {
        "trigger": "card",
        "source": list(FACE_UP_FROM),
        "dest": None,
        "conditions": "discards.found_face_up",
        "before": "discards.face_up",
        "after": "discards.discard_ended",
    },
    *(
        {
            "trigger": "card",
            "source": DISCARDING,
            "dest": state,
            "conditions": ["discards.discard_done", ("discards.discard_returns_to", state)],
            "before": "discards.discard",
            "after": "discards.discard_ended",
        }
        for state in FACE_UP_FROM
    ),
    {"trigger": "card", "source": DISCARDING, "dest": None, "before": "discards.discard"},
    # 545.5(f): the first card, then as many as its face value, to the discard.
    {"trigger": "card", "source": BURN_DUE, "dest": BURNING, "before": "shoe.burn_first"},
    {
        "trigger": "card",
        "source": BURNING,
        "dest": WAGERING,
        "conditions": "shoe.burn_done",
        "before": "shoe.burn",
        "after": ["offers.offer_shoe", "round.open_wagering"],
    },
    {"trigger": "card", "source": BURNING, "dest": None, "before": "shoe.burn"},
    # 545.15(a): a card drawn before "no more bets" is the next hand's first card;
    # 545.15(c): unless it was seen, then it and one more go to the discard.
    {"trigger": "card", "source": WAGERING, "dest": None, "before": "discards.drawn_in_error"},
    {
        "trigger": "disclosed",
        "source": WAGERING,
        "dest": DISCARDING,
        "conditions": "discards.drawn_in_error_waiting",
        "before": "discards.disclosed",
    },
    # 545.9(c), 545.10(c)-(d), 545.11: each card to the hand the rules name.
    {
        "trigger": "card",
        "source": DEALING,
        "dest": SHUFFLE_DUE,
        "conditions": ["round.completes_round", "shoe.is_last_hand"],
        "before": "_deal",
        "after": ["_end_round", "_end_shoe_after_last_hand"],
    },
    {
        "trigger": "card",
        "source": DEALING,
        "dest": WAGERING,
        "conditions": "round.completes_round",
        "before": "_deal",
        "after": ["_end_round", "round.open_wagering"],
    },
    {"trigger": "card", "source": DEALING, "dest": None, "before": "_deal"},
    # 545.10(e), ruling R1: the cover card's hand, then "last hand", then one more.
    {"trigger": "cover_card", "source": list(IN_PLAY), "dest": None, "before": "shoe.cover"},
    # 545.15(e): too few cards to complete a round.
    {
        "trigger": "shoe_empty",
        "source": list(IN_PLAY),
        "dest": SHUFFLE_DUE,
        "after": "_shoe_exhausted",
    },
    {"trigger": "shoe_empty", "source": SHUFFLE_DUE, "dest": None},
    # 545.8(c): wagers only until "no more bets"; 545.9(b): then the cards.
    {"trigger": "wager", "source": WAGERING, "dest": None, "before": "round.place_wager"},
    {
        "trigger": "no_more_bets",
        "source": WAGERING,
        "dest": DEALING,
        "after": ["offers.no_more_bets", "round.no_more_bets"],
    },
]
