"""The lab's players on synthetic faces: the fair rule as arrays
(lab._chain), the firmware-aware player (lab._informed), the blind player
(lab._blind), and chi-square both ways (lab._predict)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from fairdie.subjects.die import _fair, _rule
from fairdie.subjects.die._models import ERASED, model_named
from fairdie.subjects.die.lab._blind import blind_hits
from fairdie.subjects.die.lab._chain import TABLE_COUNT, chain, roll_many, stationary
from fairdie.subjects.die.lab._informed import LOCK, FairPlayer, guess_hits, informed_player
from fairdie.subjects.die.lab._predict import chi2_cdf, chi2_sf, tally
from fairdie.subjects.die.lab._public import public_view
from fairdie.subjects.die.lab._systems import Deck, Dice

ERASED_FAIR = _fair.canonical(b"\0\0\0")  # an erased chip's state: table 0, pool 1


def fair_faces(n: int, *, seed: int | None, start: bytes = ERASED_FAIR) -> list[int]:
    """Faces (0..5) of the fair rule pressed n times: with uniform 16-bit
    noise from ``random.Random(seed)``, or (seed None) with no fresh bits."""
    rng = random.Random(seed)
    d, out = start, []
    for _ in range(n):
        face, d = _fair.roll(d, 0 if seed is None else rng.getrandbits(16))
        out.append(face - 1)
    return out


# ---- the rule as arrays -----------------------------------------------------------------


def test_the_chain_holds_every_canonical_table_and_the_rule_moves() -> None:
    c = chain()
    assert len(c.tables) == TABLE_COUNT == 3367
    for i in range(0, TABLE_COUNT, 7):
        t = int(c.tables[i])
        assert c.index[t] == i
        offs = _fair.offsets(t)
        assert 0 in offs
        assert tuple(c.weights[i]) == tuple(_fair.WEIGHTS[o] for o in offs)
        assert np.allclose(c.probs[i], _fair.probabilities(t))
    assert c.number(0x555) == c.index[0]  # normalised first, as the rule does
    # every table's move, by the rule one table at a time (a face that cannot show stays)
    for i, t in enumerate(c.tables.tolist()):
        for f, o in enumerate(_fair.offsets(t)):
            assert c.next[i, f] == (c.index[_fair.advance(t, f + 1)] if o < 3 else i), (t, f)


def test_roll_many_is_the_rule_bit_for_bit() -> None:
    rng = random.Random(11)
    n = 4000
    tables = np.array([rng.randrange(TABLE_COUNT) for _ in range(n)])
    pools = np.array([rng.randrange(4096) for _ in range(n)])  # 0 reads as 1
    noise = np.array([rng.getrandbits(16) if i % 3 else 0 for i in range(n)])
    faces, after, pool_after = roll_many(tables, pools, noise)
    c = chain()
    for i in range(n):
        d = _fair.pack((int(c.tables[tables[i]]), int(pools[i])))
        face, state = _fair.roll(d, int(noise[i]))
        table, pool = _fair.unpack(state)
        assert (faces[i] + 1, c.tables[after[i]], pool_after[i]) == (face, table, pool), i
    quiet = noise == 0
    q_faces, q_pools = c.roll_quiet(tables[quiet], np.where(pools == 0, 1, pools)[quiet])
    assert (q_faces == faces[quiet]).all() and (q_pools == pool_after[quiet]).all()


def test_the_steady_state_is_the_chains_fixed_point_and_what_a_long_run_visits() -> None:
    c = chain()
    pi = stationary()
    assert pi.sum() == pytest.approx(1.0) and (pi > 0).all()
    moved = np.bincount(c.next.ravel(), (pi[:, None] * c.probs).ravel(), TABLE_COUNT)
    assert np.abs(moved - pi).max() < 1e-14
    # 3000 dice rolled 600 times with ideal noise, counted from the 60th roll
    rng = np.random.default_rng(5)
    tables = np.full(3000, c.index[0])
    pools = np.ones(3000, dtype=np.int64)
    seen = np.zeros(TABLE_COUNT)
    for step in range(600):
        _, tables, pools = roll_many(tables, pools, rng.integers(0, 1 << 16, 3000))
        if step >= 60:
            seen += np.bincount(tables, minlength=TABLE_COUNT)
    seen /= seen.sum()
    best = c.probs.max(axis=1)
    assert (seen * best).sum() == pytest.approx((pi * best).sum(), abs=0.002)
    zeros = (c.weights == 8).sum(axis=1)  # faces at offset 0, 1..6
    for k in range(1, 7):
        assert seen[zeros == k].sum() == pytest.approx(pi[zeros == k].sum(), abs=0.01), k


# ---- the firmware-aware player ----------------------------------------------------------


def test_the_informed_player_predicts_a_deterministic_die_from_the_first_press() -> None:
    faces = fair_faces(3000, seed=None)
    assert all(guess_hits(informed_player("fair"), faces))
    # met in use it knows neither table nor pool, and locks on within LOCK + a few
    hits = guess_hits(informed_player("fair", in_use=True), faces)
    assert all(hits[LOCK + 10 :]) and sum(hits) < len(hits)
    # and a die met in use at a state of the steady state: measured, it guesses
    # every face from the 8th-45th on (median 17th, 40 starts)
    start = _fair.pack((int(chain().tables[1234]), 2021))
    hits = guess_hits(informed_player("fair", in_use=True), fair_faces(500, seed=None, start=start))
    assert all(hits[60:]) and not all(hits[:30])


def test_the_informed_player_sits_at_the_rules_level_under_ideal_noise() -> None:
    faces = fair_faces(20_000, seed=3)  # both players meet the same faces: made once
    for in_use in (False, True):
        rate = np.mean(guess_hits(informed_player("fair", in_use=in_use), faces))
        assert 0.315 <= rate <= 0.345, in_use  # the rule's own level: 0.329 in the steady state
    c = chain()
    assert (stationary() * c.probs.max(axis=1)).sum() == pytest.approx(0.329, abs=0.001)


def test_the_informed_player_takes_the_model_and_refuses_what_it_does_not_know() -> None:
    assert isinstance(informed_player(model_named("fair")), FairPlayer)
    with pytest.raises(ValueError, match="no firmware-aware player for die model 'dice'"):
        informed_player("dice")
    with pytest.raises(ValueError, match="seed's rule has no steady state"):
        informed_player("seed", in_use=True)


def seed_faces(codes: list[int]) -> list[int]:
    counts = tuple(model_named("seed").table(ERASED))
    out = []
    for code in codes:
        face, counts = _rule.press(counts, code)
        out.append(face - 1)
    return out


def test_the_informed_player_of_the_seed_rule_predicts_a_stuck_pin() -> None:
    for code in (0, 511, 1000):
        hits = guess_hits(informed_player("seed"), seed_faces([code] * 2000))
        assert all(hits[2:]), code
    rng = random.Random(2)
    live = seed_faces([rng.randrange(1024) for _ in range(6000)])
    assert 0.30 <= np.mean(guess_hits(informed_player("seed"), live)) <= 0.37


# ---- the blind player -----------------------------------------------------------------


def test_the_blind_player_learns_a_periodic_die() -> None:
    rng = random.Random(4)
    period = [rng.randrange(6) for _ in range(558)]
    hits = blind_hits((period * 12)[:6000])
    assert hits[2000:].all() and not hits[:558].all()
    # the fair rule with no fresh bits is periodic: learnt as the counter of
    # the last 8 faces learnt it, within about 1000 presses
    det = blind_hits(fair_faces(6000, seed=None))
    assert det[1500:].all()


def test_the_blind_player_cannot_guess_independent_faces() -> None:
    rng = random.Random(8)
    rate = blind_hits([rng.randrange(6) for _ in range(30_000)]).mean()
    assert 0.155 <= rate <= 0.18


def test_the_blind_player_sees_only_the_past() -> None:
    faces = fair_faces(3000, seed=9)
    whole = blind_hits(faces)
    for n in (1, 17, 800, 2999):
        assert (blind_hits(faces[:n]) == whole[:n]).all()
    assert len(blind_hits([])) == 0


def test_the_blind_player_finds_the_fair_rules_memory() -> None:
    rate = blind_hits(fair_faces(30_000, seed=12)).mean()
    assert 0.19 <= rate <= 0.22  # more than 1/6: the rule remembers; less than the rule's 0.33


# ---- chi-square both ways, and the tally ------------------------------------------------------


@pytest.mark.parametrize("df", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("x", [1e-6, 0.01, 0.5, 3.0, 7.0, 20.0, 80.0])
def test_chi2_tails_add_up(df: int, x: float) -> None:
    assert chi2_cdf(x, df) + chi2_sf(x, df) == pytest.approx(1.0, abs=1e-12)


def test_chi2_cdf_is_exact_in_the_small_tail() -> None:
    for x in (1e-12, 1e-4, 0.3, 4.0):
        assert chi2_cdf(x, 2) == pytest.approx(-math.expm1(-x / 2), rel=1e-12)
    # df 5 near 0: (x/2)^2.5 / Gamma(3.5), to first order; far below 1 - sf's rounding
    x = 1e-6
    assert chi2_cdf(x, 5) == pytest.approx((x / 2) ** 2.5 / math.gamma(3.5), rel=1e-5)
    assert chi2_cdf(0, 5) == 0.0
    with pytest.raises(ValueError, match="df"):
        chi2_cdf(1.0, 0)


def test_tally_scores_every_player_and_both_tails() -> None:
    faces = fair_faces(3000, seed=1)
    fair = model_named("fair")
    t = tally(faces, public_view("fair", fair.table(ERASED)), model=fair)
    j = t.as_json()
    assert j["chi2_p_uneven"] == t.chi2_p > 0.99 and t.chi2_p_even is not None
    assert t.chi2_p_even < 1e-4  # the fair rule: far too even for independent rolls
    assert t.guess_rate_informed is not None and 0.28 < t.guess_rate_informed < 0.38
    assert t.guess_rate_informed_in_use is not None and t.guess_rate_blind is not None
    assert t.notes == ()
    rng = random.Random(1)
    dice = tally([rng.randrange(6) for _ in range(3000)], Dice(6))
    assert dice.guess_rate_informed is None and dice.guess_rate_informed_in_use is None
    assert dice.chi2_p_even is not None and min(dice.chi2_p_even, dice.chi2_p) > 0.001
    none = tally([], Deck(6), model=fair)
    assert none.guess_rate_blind is None and none.guess_rate_informed is None
    assert none.chi2_p_even is None


def test_tally_says_why_a_firmware_aware_figure_is_missing() -> None:
    faces = seed_faces([7] * 50)
    t = tally(faces, public_view("seed", model_named("seed").table(ERASED)), model="seed")
    assert t.guess_rate_informed is not None and t.guess_rate_informed > 0.9
    assert t.guess_rate_informed_in_use is None
    assert t.notes == ("in use: the seed's rule has no steady state to meet it in",)
    t = tally(faces, Dice(6), model="homebrew")
    assert t.guess_rate_informed is None
    assert "no firmware-aware player for die model 'homebrew'" in t.notes[0]


def test_about_7_percent_of_draws_run_past_the_16_fresh_bits() -> None:
    """The README's figure, exact in the steady state: a draw takes k bits
    (2^k >= total) an attempt and is accepted with chance total / 2^k, so it
    runs past 16 fresh bits when its first floor(16 / k) attempts all fail."""
    from fairdie.subjects.die import _fair
    from fairdie.subjects.die.lab._chain import chain, stationary

    c, pi = chain(), stationary()
    past = 0.0
    for total, p in zip(c.totals.tolist(), pi.tolist(), strict=True):
        k = (total - 1).bit_length()
        past += p * (1 - total / 2**k) ** (_fair.FRESH_BITS // k)
    assert 0.06 < past < 0.08, past
