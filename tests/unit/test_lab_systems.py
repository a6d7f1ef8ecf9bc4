"""The lab's reference systems and measures (the die lab's _systems and _measures).

Each definition of specs/randomness-systems.md pinned with small hand-computed
cases; exact measures against a brute-force walk over every labelled sequence
(no merging of states) and against seeded simulations (within 4 standard
errors); the sorted-candidates die against the firmware's reference rule.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import TypeVar

import pytest

from fairdie.subjects.die._rule import CLEARED, candidates, press
from fairdie.subjects.die.lab import (
    Deck,
    Dice,
    DynamicDice,
    GeneralizedDeck,
    Measures,
    SortedCandidates,
    System,
    Tightness,
    WeightedWindow,
    destinator_roll,
    exact,
    run,
    simulate,
    two_d6,
    two_d6_coin,
)

S = TypeVar("S", bound=System)


def _walk(system: S, outcomes: list[int]) -> S:
    for o in outcomes:
        system = system.after(o)
    return system


def _approx(values: tuple[float, ...]) -> object:
    return pytest.approx(values, rel=1e-12, abs=1e-15)


def _fields(m: Measures) -> tuple[float, float, float, float]:
    return (m.entropy, m.variance, m.spread_mean, m.spread_worst)


# ---- systems: one definition each ---------------------------------------------------


def test_dice_are_uniform_whatever_came_before() -> None:
    assert _walk(Dice(4), [0, 0, 3]).probs() == _approx((0.25,) * 4)
    assert _walk(Dice(4), [0, 0, 3]).counts == (2, 0, 0, 1)


def test_deck_draws_without_replacement_and_refills_when_empty() -> None:
    d = Deck(3)
    assert d.probs() == _approx((1 / 3,) * 3)
    assert _walk(d, [0]).probs() == _approx((0.0, 0.5, 0.5))
    assert _walk(d, [0, 2]).probs() == _approx((0.0, 1.0, 0.0))
    assert _walk(d, [0, 2, 1]).probs() == _approx((1 / 3,) * 3)  # empty: refilled
    assert _walk(d, [0, 2, 1, 1]).probs() == _approx((0.5, 0.0, 0.5))


def test_deck_entropy_before_each_draw_n3() -> None:
    # the deck holds 3, 2, 1 cards before draws 1, 2, 3: entropies log 3, log 2, 0
    per_draw = [1.0, math.log(2) / math.log(3), 0.0]
    for t in range(1, 7):
        expected = sum(per_draw[i % 3] for i in range(t)) / t
        assert exact(Deck(3), t).entropy == pytest.approx(expected, rel=1e-12)


def test_generalized_deck_refills_when_fewer_than_r_remain() -> None:
    g = GeneralizedDeck(2, 2, 3)  # 4 cards: two of each
    assert g.left == (2, 2)
    g = g.after(0)  # 3 left: not fewer than 3
    assert (g.left, g.size) == ((1, 2), 3)
    g = g.after(0)  # 2 left: fewer than 3, two more of each
    assert (g.left, g.size) == ((2, 4), 6)
    assert g.probs() == _approx((1 / 3, 2 / 3))
    assert g.counts == (2, 0)


def test_generalized_deck_r1_refills_only_when_empty() -> None:
    g = GeneralizedDeck(2, 1, 1).after(0)
    assert (g.left, g.size) == ((0, 1), 1)
    g = g.after(1)
    assert (g.left, g.size) == ((1, 1), 2)


def test_generalized_deck_adds_s_copies_once_per_draw() -> None:
    # r above the refilled size: still one refill per draw, not "until r"
    g = GeneralizedDeck(2, 1, 5).after(0)
    assert (g.left, g.size) == ((1, 2), 3)
    g = g.after(1)
    assert (g.left, g.size) == ((2, 2), 4)


def test_deck_is_the_generalized_deck_1_1() -> None:
    assert exact(Deck(5), 12) == exact(GeneralizedDeck(5, 1, 1), 12)


def test_dynamic_dice_probabilities() -> None:
    s = _walk(DynamicDice(3, 0.5), [0, 0, 1])  # counts 2, 1, 0: weights 1/4, 1/2, 1
    assert s.probs() == _approx((1 / 7, 2 / 7, 4 / 7))
    # d = 1 is the plain die
    assert _walk(DynamicDice(3, 1.0), [0, 0, 1]).probs() == _approx((1 / 3,) * 3)
    assert _fields(exact(DynamicDice(4, 1.0), 9)) == _approx(_fields(exact(Dice(4), 9)))


def test_dynamic_dice_tiny_d_does_not_underflow() -> None:
    s = _walk(DynamicDice(2, 1e-200), [0, 0, 0, 1])  # d ** 3 alone underflows
    assert s.probs() == _approx((0.0, 1.0))


def test_tightness_worked_examples() -> None:
    # uniform P0 over 6, k = 1, after three different values (m = 3):
    # c_i - m/6 = +1/2 for those, -1/2 for the rest: weights 2**-0.5 : 2**0.5 = 1 : 2
    s = _walk(Tightness((1 / 6,) * 6, 1.0), [0, 1, 2])
    assert s.probs() == _approx((1 / 9,) * 3 + (2 / 9,) * 3)
    # P0 = (1/2, 1/4, 1/4), k = 2, after value 0 twice (m = 2):
    # exponents -2(2 - 1) = -2 and -2(0 - 1/2) = 1: weights 1/8, 1/2, 1/2
    s = _walk(Tightness((0.5, 0.25, 0.25), 2.0), [0, 0])
    assert s.probs() == _approx((1 / 9, 4 / 9, 4 / 9))


def test_tightness_k0_is_a_plain_roll_of_p0() -> None:
    s = _walk(Tightness(two_d6(), 0.0), [5, 5, 5, 0])
    assert s.probs() == _approx(two_d6())
    assert _fields(exact(Tightness((1 / 6,) * 6, 0.0), 8)) == _approx(_fields(exact(Dice(6), 8)))


def test_tightness_measures_against_p0() -> None:
    # P0 = (1/2, 1/4, 1/4), one draw: entropy relative to H(P0) is 1;
    # MSE of c_i against P0_i: draw 0 (p 1/2): (1/4 + 1/16 + 1/16) / 3 = 1/8,
    # draw 1 or 2 (p 1/4 each): (1/4 + 9/16 + 1/16) / 3 = 7/24; mean 5/24.
    # Spread of c_i - P0_i: 3/4 after a 0, 5/4 otherwise.
    m = exact(Tightness((0.5, 0.25, 0.25), 3.0), 1)
    assert m.entropy == pytest.approx(1.0, rel=1e-12)
    assert m.variance == pytest.approx(5 / 24, rel=1e-12)
    assert m.spread_mean == pytest.approx(1.0, rel=1e-12)
    assert m.spread_worst == pytest.approx(5 / 4, rel=1e-12)


def test_two_d6_and_the_destinator_numbering() -> None:
    assert two_d6() == _approx(tuple(w / 36 for w in (1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)))
    assert two_d6_coin() == (1 / 72,) * 72
    coin = _fields(exact(Tightness(two_d6_coin(), 0.0), 3))
    assert coin == _approx(_fields(exact(Dice(72), 3)))
    assert [destinator_roll(k) for k in range(1, 8)] == [
        (1, 1, "odd"),
        (1, 2, "odd"),
        (2, 1, "odd"),
        (1, 3, "odd"),
        (2, 2, "odd"),
        (3, 1, "odd"),
        (1, 4, "odd"),
    ]
    assert destinator_roll(36) == (6, 6, "odd")
    assert destinator_roll(37) == (1, 1, "even")
    assert destinator_roll(38) == (1, 2, "even")
    assert destinator_roll(72) == (6, 6, "even")
    # every (die, die, coin) exactly once; each sum as often as 2d6 rolls it
    rolls = [destinator_roll(k) for k in range(1, 73)]
    assert len(set(rolls)) == 72
    for total, p in zip(range(2, 13), two_d6(), strict=True):
        assert sum(1 for a, b, _ in rolls if a + b == total) == round(p * 72)


def test_sorted_candidates_order_and_ties() -> None:
    s = SortedCandidates()
    assert s.candidates() == (0, 2, 4)  # faces 1, 3, 5 on a cleared table
    # counts 5,1,1,5,0,1 -> order: face 5, 2, 3, 6, 1, 4 -> candidates faces 5, 3, 1
    s = _walk(s, [0] * 5 + [1, 2, 3, 3, 3, 3, 3, 5])
    assert s.counts == (5, 1, 1, 5, 0, 1)
    assert s.candidates() == (4, 2, 0)
    assert _walk(SortedCandidates((0.5, 0.3, 0.2)), [0] * 5 + [1, 2, 3, 3, 3, 3, 3, 5]).probs() == (
        0.2,
        0.0,
        0.3,
        0.0,
        0.5,
        0.0,
    )


def test_sorted_candidates_match_the_firmware_rule() -> None:
    rng = random.Random(7)
    for _ in range(300):
        counts = [rng.choice((0, 1, 2, 3, rng.randrange(256))) for _ in range(6)]
        s = _walk(SortedCandidates(), [v for v in range(6) for _ in range(counts[v])])
        assert tuple(v + 1 for v in s.candidates()) == candidates(counts)


def test_sorted_candidates_follow_the_firmware_press_by_press() -> None:
    # the noise input is the candidate index, adc_code % 3 on the chip
    rng = random.Random(3)
    model = SortedCandidates()
    table = CLEARED
    for _ in range(1000):  # counters stay below 255: no rebase
        code = rng.randrange(1024)
        value = model.candidates()[code % 3]
        face, table = press(table, code)
        model = model.after(value)
        assert face == value + 1
        assert model.counts == table


def test_sorted_candidates_entropy_is_that_of_the_index() -> None:
    p = (0.5, 0.3, 0.2)
    h = -sum(q * math.log(q) for q in p) / math.log(6)
    assert exact(SortedCandidates(p), 12).entropy == pytest.approx(h, rel=1e-12)


def test_weighted_window_probabilities() -> None:
    w = WeightedWindow(6, (8, 3, 1))
    assert w.probs() == _approx((1 / 6,) * 6)
    assert _walk(w, [0]).probs() == _approx((3 / 43,) + (8 / 43,) * 5)
    assert _walk(w, [0, 0, 1]).probs() == _approx((1 / 36, 3 / 36) + (8 / 36,) * 4)
    # three above the minimum: outside the window, never drawn
    assert _walk(w, [0, 0, 0]).probs() == _approx((0.0,) + (0.2,) * 5)


def test_weighted_window_8_3_1_at_25() -> None:
    """The product firmware's rule at T = 25 (numbers quoted in the report)."""
    m = exact(WeightedWindow(6, (8, 3, 1)), 25)
    assert m.entropy == pytest.approx(0.900988, abs=5e-7)
    assert m.variance == pytest.approx(0.453974, abs=5e-7)
    assert m.spread_mean == pytest.approx(1.800209, abs=5e-7)
    assert m.spread_worst == 3.0


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Dice(1), "n must"),
        (lambda: DynamicDice(3, 0.0), "d must"),
        (lambda: DynamicDice(3, 1.5), "d must"),
        (lambda: GeneralizedDeck(3, 0, 1), "s must"),
        (lambda: GeneralizedDeck(3, 1, 0), "r must"),
        (lambda: WeightedWindow(3, ()), "weights"),
        (lambda: WeightedWindow(3, (0, 1)), "weights"),
        (lambda: WeightedWindow(3, (1, -1)), "weights"),
        (lambda: SortedCandidates((0.5, 0.5)), "index_probs"),
        (lambda: SortedCandidates((0.5, 0.6, 0.1)), "index_probs"),
        (lambda: Tightness((0.5, 0.6), 1.0), "p0"),
        (lambda: Tightness((1.0, 0.0), 1.0), "entropy"),
        (lambda: Tightness((0.5, 0.5), -1.0), "k must"),
        (lambda: destinator_roll(73), "1..72"),
    ],
)
def test_bad_parameters_raise(make: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


# ---- canonical keys -----------------------------------------------------------------

SYSTEMS: dict[str, Callable[[], System]] = {
    "dice": lambda: Dice(4),
    "deck": lambda: Deck(4),
    "generalized deck 2,3": lambda: GeneralizedDeck(3, 2, 3),
    "generalized deck 1,6": lambda: GeneralizedDeck(3, 1, 6),
    "dynamic dice": lambda: DynamicDice(3, 0.3),
    "tightness 2d6": lambda: Tightness(two_d6(), 0.7),
    "tightness uneven": lambda: Tightness((0.5, 0.25, 0.25), 1.5),
    "sorted candidates": lambda: SortedCandidates((0.5, 0.3, 0.2)),
    "weighted window": lambda: WeightedWindow(4, (8, 3, 1)),
}


@pytest.mark.parametrize("name", SYSTEMS)
def test_key_after_is_the_key_of_after(name: str) -> None:
    rng = random.Random(name)
    for _ in range(20):
        state = SYSTEMS[name]()
        for _ in range(15):
            probs = state.probs()
            assert math.fsum(probs) == pytest.approx(1.0)
            outcome = rng.choices(range(len(probs)), weights=probs)[0]
            assert state.key_after(outcome) == state.after(outcome).key()
            state = state.after(outcome)


def _brute_force(system: System, samples: int) -> Measures:
    """The measures from every labelled sequence, no states merged."""
    paths: list[tuple[float, System]] = [(1.0, system)]
    h = 0.0
    for _ in range(samples):
        nxt = []
        for p, s in paths:
            probs = s.probs()
            h += p * -sum(q * math.log(q) for q in probs if q > 0)
            nxt += [(p * q, s.after(o)) for o, q in enumerate(probs) if q > 0]
        paths = nxt
    h0 = -sum(q * math.log(q) for q in system.base if q > 0)
    devs = [[c - q * samples for c, q in zip(s.counts, s.base, strict=True)] for _, s in paths]
    return Measures(
        entropy=h / samples / h0,
        variance=sum(
            p * sum(x * x for x in d) / len(d) for (p, _), d in zip(paths, devs, strict=True)
        ),
        spread_mean=sum(p * (max(d) - min(d)) for (p, _), d in zip(paths, devs, strict=True)),
        spread_worst=max(max(d) - min(d) for d in devs),
    )


@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_merges_states_soundly(name: str) -> None:
    samples = 3 if name == "tightness 2d6" else 6
    merged = _fields(exact(SYSTEMS[name](), samples))
    assert merged == pytest.approx(_fields(_brute_force(SYSTEMS[name](), samples)), rel=1e-12)


# ---- measures -----------------------------------------------------------------------


def test_exact_dice_and_deck_at_6_25() -> None:
    dice = exact(Dice(6), 25)
    assert dice.entropy == pytest.approx(1.0, rel=1e-12)
    assert dice.variance == pytest.approx(25 * (1 / 6) * (5 / 6), rel=1e-12)  # binomial
    assert dice.spread_worst == 25.0
    deck = exact(Deck(6), 25)
    # four full decks and one draw: sizes 6..1 four times, then 6
    logs = 4 * sum(math.log(k) for k in range(1, 7)) + math.log(6)
    assert deck.entropy == pytest.approx(logs / 25 / math.log(6), rel=1e-12)
    assert deck.variance == pytest.approx(5 / 36, rel=1e-12)  # counts 5,4,4,4,4,4
    assert (deck.spread_mean, deck.spread_worst) == pytest.approx((1.0, 1.0), rel=1e-12)


SIMULATED: dict[str, tuple[Callable[[], System], int]] = {
    "dice": (lambda: Dice(4), 10),
    "deck": (lambda: Deck(5), 12),
    "search's generalized deck 1,6": (lambda: GeneralizedDeck(6, 1, 6), 25),
    "search's dynamic dice 0.355": (lambda: DynamicDice(6, 0.355), 25),
    "weighted window 8,3,1": (lambda: WeightedWindow(6, (8, 3, 1)), 25),
    "sorted candidates": (lambda: SortedCandidates((0.6, 0.3, 0.1)), 12),
    "tightness 2d6": (lambda: Tightness(two_d6(), 1.0), 8),
}


@pytest.mark.parametrize("name", SIMULATED)
def test_simulation_agrees_with_exact(name: str) -> None:
    make, samples = SIMULATED[name]
    e = exact(make(), samples)
    s = simulate(make(), samples, 1500, seed=11)
    assert s.entropy_se is not None
    assert s.variance_se is not None
    assert abs(s.entropy - e.entropy) <= 4 * s.entropy_se + 1e-12
    assert abs(s.variance - e.variance) <= 4 * s.variance_se + 1e-12
    assert s.spread_worst <= e.spread_worst
    assert e.entropy_se is None
    assert e.variance_se is None


def test_simulate_and_run_are_reproducible() -> None:
    assert simulate(DynamicDice(6, 0.3), 10, 50, seed=5) == simulate(
        DynamicDice(6, 0.3), 10, 50, seed=5
    )
    assert run(WeightedWindow(6, (8, 3, 1)), 40, seed=2) == run(
        WeightedWindow(6, (8, 3, 1)), 40, seed=2
    )
    assert run(Dice(6), 40, seed=2) != run(Dice(6), 40, seed=3)


def test_run_draws_from_the_system() -> None:
    seq = run(Deck(6), 18, seed=9)
    for i in range(0, 18, 6):
        assert sorted(seq[i : i + 6]) == list(range(6))
    assert run(SortedCandidates((1.0, 0.0, 0.0)), 6, seed=0) == list(range(6))
    assert run(Dice(3), 0, seed=0) == []


def test_bad_measure_arguments_raise() -> None:
    with pytest.raises(ValueError, match="samples"):
        exact(Dice(3), 0)
    with pytest.raises(ValueError, match="matches"):
        simulate(Dice(3), 5, 1, seed=0)
    with pytest.raises(ValueError, match="presses"):
        run(Dice(3), -1, seed=0)


def test_outcomes_with_zero_probability_are_never_drawn() -> None:
    for seq in (run(WeightedWindow(3, (1,)), 30, seed=s) for s in range(5)):
        counts = [seq.count(v) for v in range(3)]
        assert max(counts) - min(counts) <= 1
    assert run(Deck(2), 4, seed=1).count(0) == 2
