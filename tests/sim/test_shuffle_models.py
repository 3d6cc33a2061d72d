"""The simulator's shuffle models (firmware_sim/shuffle_models.py): each a permutation of
its input with the structure it claims; bad model text refused by both command lines; and
`tablectl run --simulate --shuffle-model riffle:1`, whose second shoe is the simulated
shuffler's riffle of the first."""

from __future__ import annotations

import itertools
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from controller.export import read_rows
from controller.shuffle.orders import shoe_orders
from firmware_sim import decks
from firmware_sim.harness import SimError, SimProcess
from firmware_sim.shuffle_models import (
    ShuffleModel,
    apply,
    parse_model,
    rising_sequences,
)
from tests.support.bench import bench, lines, refusal
from tests.support.cli import tablectl
from tests.support.devices import KEY
from tests.support.shuffles import riffle_of

SHOE = decks.deck() * 8  # 416 cards, several of each
DISTINCT = [f"c{i}" for i in range(416)]
MODELS = ["random", "riffle:1", "riffle:3", "strip:1", "strip:4", "clumpy:0", "clumpy:0.5"]


@pytest.mark.parametrize("text", MODELS)
def test_each_model_is_a_permutation_of_its_input(text: str) -> None:
    model = parse_model(text)
    before = list(SHOE)
    out = apply(model, SHOE, random.Random(1))
    assert before == SHOE  # the input left as it is
    assert Counter(out) == Counter(SHOE)
    assert sorted(apply(model, DISTINCT, random.Random(2))) == sorted(DISTINCT)


def test_model_text_round_trips() -> None:
    for text in MODELS:
        assert str(parse_model(text)) == text
    assert parse_model("riffle:7") == ShuffleModel("riffle", passes=7)


@pytest.mark.parametrize(
    "text", ["riffle:0", "riffle:x", "riffle", "strip:-1", "clumpy:1.5", "clumpy:nan", "nope", ""]
)
def test_bad_model_text_is_one_line(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_model(text)
    message = str(caught.value)
    assert "\n" not in message and repr(text) in message


def test_one_riffle_leaves_at_most_two_rising_sequences() -> None:
    rng = random.Random(3)
    counts = [
        rising_sequences(DISTINCT, apply(parse_model("riffle:1"), DISTINCT, rng)) for _ in range(50)
    ]
    assert max(counts) <= 2
    # K riffles: at most 2^K; a uniform shuffle of 416 cards has about 208.
    three = [
        rising_sequences(DISTINCT, apply(parse_model("riffle:3"), DISTINCT, rng)) for _ in range(20)
    ]
    assert max(three) <= 8
    uniform = rising_sequences(DISTINCT, apply(parse_model("random"), DISTINCT, rng))
    assert 150 < uniform < 260


def runs(before: list[str], after: list[str]) -> list[list[str]]:
    """``after`` split where a card is not its predecessor's successor in ``before``."""
    index = {card: i for i, card in enumerate(before)}
    out = [[after[0]]]
    for prev, card in itertools.pairwise(after):
        if index[card] == index[prev] + 1:
            out[-1].append(card)
        else:
            out.append([card])
    return out


def test_strip_keeps_packets_and_reverses_their_order() -> None:
    rng = random.Random(4)
    out = apply(parse_model("strip:1"), DISTINCT, rng)
    packets = runs(DISTINCT, out)
    # The packets, put back in reverse, are the input: each packet kept whole and in order.
    assert [c for packet in reversed(packets) for c in packet] == DISTINCT
    assert 20 < len(packets) < 100  # a cut at each gap with probability 1/8: about 52
    assert out != DISTINCT


def adjacent_kept(before: list[str], after: list[str]) -> float:
    """The fraction of the pairs adjacent in ``before`` still adjacent, in order, after."""
    where = {card: i for i, card in enumerate(after)}
    kept = sum(where[b] == where[a] + 1 for a, b in itertools.pairwise(before))
    return kept / (len(before) - 1)


@pytest.mark.parametrize("p", [0.0, 0.3, 0.7, 1.0])
def test_clumpy_keeps_blocks_with_probability_p(p: float) -> None:
    # 415 pairs, each kept with probability P (plus about 1/blocks by chance): the
    # standard deviation is at most 0.025, so 0.08 is three of them; the seed is fixed.
    rng = random.Random(5)
    kept = adjacent_kept(DISTINCT, apply(parse_model(f"clumpy:{p}"), DISTINCT, rng))
    assert abs(kept - p) < 0.08
    assert apply(parse_model("clumpy:1"), DISTINCT, rng) == DISTINCT


def test_seeded_models_replay() -> None:
    for text in MODELS:
        model = parse_model(text)
        assert apply(model, SHOE, random.Random(9)) == apply(model, SHOE, random.Random(9))


SIM = [sys.executable, "-m", "firmware_sim", "shuffler"]


def test_firmware_sim_refuses_bad_model_text(tmp_path: Path) -> None:
    for text in ("riffle:0", "clumpy:1.5", "nope"):
        done = subprocess.run(
            [
                *SIM,
                "--link",
                str(tmp_path / "s"),
                "--key-file",
                str(tmp_path / "k"),
                "--shuffle-model",
                text,
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and repr(text) in done.stderr, done.stderr


def test_tablectl_refuses_bad_model_text() -> None:
    for text in ("riffle:x", "strip:0"):
        done = tablectl("run", "--simulate", "--shuffle-model", text)
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and repr(text) in done.stderr, done.stderr
    done = tablectl("run", "--config", "table.toml", "--shuffle-model", "riffle:2")
    assert done.returncode == 2 and "--shuffle-model" in done.stderr
    assert done.stderr.count("\n") == 1


def test_simulated_shuffler_orders_cards_by_its_model(tmp_path: Path) -> None:
    args = ["--shuffle-model", "riffle:1", "--seed", "3"]
    sim = SimProcess("shuffler", tmp_path, KEY, args).start()
    try:
        assert sim.control("status")["shuffle_model"] == "riffle:1"
        pack = decks.deck()
        first = sim.control("order", cards=pack)["cards"]
        second = sim.control("order", cards=pack)["cards"]
        assert sorted(first) == sorted(pack) and first != pack
        assert rising_sequences(pack, first) <= 2 and riffle_of(pack, first)
        assert second != first  # the seeded generator goes on from shuffle to shuffle
        with pytest.raises(SimError, match="cutting card"):
            sim.control("order", cards=["AS", "CUT"])
    finally:
        sim.stop()
    (tmp_path / "again").mkdir()
    replay = SimProcess("shuffler", tmp_path / "again", KEY, args)
    try:
        assert replay.start().control("order", cards=pack)["cards"] == first  # seeded
    finally:
        replay.stop()


CARD = re.compile(r'^(?:burn|dealt) .*card="(\w\w)"')


def shoes_seen(stdout: str) -> list[list[str]]:
    """Each shoe's cards in the order the journal saw them leave the shoe (burns and
    dealt cards), from `--plain` lines."""
    shoes: list[list[str]] = []
    for line in stdout.splitlines():
        if line.startswith("shuffled "):
            shoes.append([])
        elif (found := CARD.match(line)) and shoes:
            shoes[-1].append(found.group(1))
    return shoes


def played(model: str, workdir: Path) -> list[list[str]]:
    """The shoes a seeded `tablectl run --simulate` of 170 rounds saw, in order."""
    run = tablectl(
        "run", "--simulate", "--shuffle-model", model, "--rounds", "170", "--pace-ms", "0",
        "--plain", "--seed", "11", "--workdir", str(workdir),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    shoes = shoes_seen(run.stdout)
    # Two shoes played to their cover cards (some 80 rounds each): nearly every card seen.
    assert len(shoes) >= 2 and min(len(shoes[0]), len(shoes[1])) > 350
    return shoes


def test_riffle_chain_through_the_simulated_table(tmp_path: Path) -> None:
    shoes = played("riffle:1", tmp_path / "riffle")
    # The first shoe, as the simulated shoe was loaded with it: the journal saw it so.
    loaded = json.loads((tmp_path / "riffle" / "stack.json").read_text(encoding="utf-8"))
    first = [card for card in loaded if card != decks.CUT]
    assert first[: len(shoes[0])] == shoes[0]
    assert first != decks.deck() * 8  # the model shuffled the fresh decks
    # The second shoe is the simulated shuffler's one riffle of the first's discard
    # rack, as the journal gives it (controller.shuffle.orders: what shuffle-report
    # pairs with the second shoe), then the cards never dealt, in the order they lay:
    # two packets of it interleaved, so at most 2 rising sequences on the cards
    # themselves. (Counted on labels, copies of a card swap places and the count says
    # less: some 110 against a uniform shuffle's 208 here.)
    rows = [(row.seq, row.entry) for row in read_rows(tmp_path / "riffle" / "journal.db")]
    rack = shoe_orders(rows)[0].rack
    assert rack is not None
    assert riffle_of([*rack, *first[len(shoes[0]) :]], shoes[1])
    # Baccarat's rack (545.12(c): each round's Player then Banker cards) is not the
    # dealing order, and the shuffler was given the rack: no riffle of the dealing order.
    assert not riffle_of(first, shoes[1])
    # A uniform shuffle is no riffle of the shoe before: the check can fail.
    uniform = played("random", tmp_path / "random")
    assert not riffle_of(uniform[0], uniform[1])


SEEDED = {"game": "baccarat", "decks": 8, "seed": 3, "rounds": [{"wagers": {"1": {"banker": 10}}}]}


def test_bench_scenario_with_a_shuffle_model(tmp_path: Path) -> None:
    path = tmp_path / "riffled.json"
    path.write_text(json.dumps({**SEEDED, "shuffle_model": "riffle:1"}), encoding="utf-8")
    out = tmp_path / "events.jsonl"
    assert bench(path, out) == 0
    seen = [e["card"] for e in lines(out) if e["type"] in ("burn", "dealt")]
    # The shoe the bench plays: one riffle of eight fresh decks in pack order.
    assert len(seen) > 350 and riffle_of(decks.deck() * 8, seen)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"shuffle_model": "riffle:0"}, "shuffle_model: shuffle model must be"),
        ({"shuffle_model": 3}, "shuffle_model: expected a string"),
        ({"shuffle_model": "strip:2", "shoe": ["AS", "KD"]}, "a stacked shoe has its order"),
        (
            {"game": "spanish21", "rules": {"continuous_shuffler": True}, "rounds": []},
            "not with rules.continuous_shuffler",
        ),
    ],
)
def test_bench_refuses_a_bad_shuffle_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], says: str
) -> None:
    scenario = {**SEEDED, "shuffle_model": "riffle:2", **change}
    if "shoe" in change:
        del scenario["decks"], scenario["seed"]
    assert says in refusal(tmp_path, scenario, capsys)
