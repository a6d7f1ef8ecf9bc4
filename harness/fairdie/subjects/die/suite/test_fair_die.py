"""Our fair die: its faces, its clear and its rule, press by press against the
die's reference model (``die.model``; its press in C where it has a port, which
is held to the Python model press for press: ``_support.pressing``).

Whatever rule the die follows (the fair rule on its ring of records, or the
seed's on six counters), its chip must show the face the model picks and
leave exactly the EEPROM image the model computes. These run against our
build by default, or any build of our die through the plugin
(``--fairdie-firmware``, ``--fairdie-board``); a die that follows no model
and keeps no counters skips them, saying so. The same rule on any table, any
EEPROM bytes and any noise, and a state machine mixing presses, noise and
EEPROM edits, are in test_fair_die_properties.py.

Tests taking ``board`` run on both our boards (die-direct's build follows
the fair rule, die-charlieplex's the seed's): those of one rule skip, saying
why, on the other. The rule tests run on the session's board too when it is
not one of ours (see ``pytest_generate_tests`` in conftest.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from fairdie.noise import Codes
from fairdie.subjects.die import FACE_POSITIONS
from fairdie.subjects.die._models import HEALTHY_CODES
from fairdie.subjects.die.suite._rolls import forced, modelled_roll
from fairdie.subjects.die.suite._support import (
    BOARDS,
    ERASED,
    model_of,
    needs_build,
    needs_model,
    pressing,
    random_codes,
)

if TYPE_CHECKING:
    from fairdie.subjects.die import Die

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("needs_the_table")]

ZEROS = (0,) * 6


# ---- faces and the display ------------------------------------------------------------


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("face", range(1, 7))
def test_each_face_lights_exactly_its_groups(
    die_factory: Callable[..., Die], board: str, face: int
) -> None:
    die = die_factory(board=board)
    image, codes = forced(die, face)
    p = die.roll(0.2)
    assert p.adc_codes == codes[: model_of(die).conversions(codes)]
    assert p.face == face
    assert p.display == str(face)
    # the LEDs over the last persistence window before the power went
    assert die.lit(at=die.chip.cycle) == FACE_POSITIONS[str(face)]
    assert die.chip.eeprom == model_of(die).press(image, codes)[1]


@pytest.mark.parametrize("board", BOARDS)
def test_lit_positions_are_the_seed_groups(die_factory: Callable[..., Die], board: str) -> None:
    die = die_factory(board=board)
    forced(die, 6)
    die.power_on()
    die.chip.run(seconds=0.1)
    assert die.lit() == FACE_POSITIONS["6"]
    die.chip.power_off()


@needs_build(board="die-direct")
def test_direct_wiring_drives_the_group_pins(die_factory: Callable[..., Die]) -> None:
    die = die_factory(board="die-direct")
    forced(die, 5)
    die.power_on()
    die.chip.run(seconds=0.1)
    # face 5 = groups A, B, C on PB0, PB1, PB2; D (PB3) off
    assert [die.chip.level(p).value for p in ("PB0", "PB1", "PB2", "PB3")] == ["1", "1", "1", "0"]
    assert die.chip.sleeping  # asleep, and the pins hold the face
    die.chip.power_off()


def _used_die(die_factory: Callable[..., Die], board: str, presses: int = 7) -> Die:
    """A die after a few presses of random noise from erased EEPROM, each
    checked against the model: a table that has moved and (fair rule) a ring
    with several records and a pool that has moved."""
    die = die_factory(board=board, eeprom=ERASED)
    model = model_of(die)
    rng = random.Random(board)
    die.set_noise(Codes(random_codes(rng, model.reads * (presses + 2))))
    for n in range(presses):
        p, face, _, after = modelled_roll(die)
        assert (p.face, die.chip.eeprom) == (face, after), f"press {n}"
    return die


@pytest.mark.parametrize("board", BOARDS)
def test_held_ten_seconds_clears_the_table(die_factory: Callable[..., Die], board: str) -> None:
    die = _used_die(die_factory, board)
    model = model_of(die)
    p, face, _, after = modelled_roll(die, 10.0)
    assert p.face == face  # shown first
    assert p.display == "all"
    assert die.chip.eeprom == model.cleared(after)
    assert p.counts == die.counts == ZEROS


@pytest.mark.parametrize("board", BOARDS)
def test_held_under_ten_seconds_does_not(die_factory: Callable[..., Die], board: str) -> None:
    die = _used_die(die_factory, board)
    model = model_of(die)
    p, face, _, after = modelled_roll(die, 9.9)
    assert model.cleared(after) != after  # else the test could not tell
    assert (p.face, p.display) == (face, str(face))
    assert die.chip.eeprom == after


def test_fresh_chip_starts_from_erased_eeprom(die_factory: Callable[..., Die], board: str) -> None:
    die = die_factory(board=board)
    assert die.chip.eeprom == ERASED
    p, face, _, after = modelled_roll(die, 0.2)
    assert p.face == face and p.face in range(1, 7)
    assert die.chip.eeprom == after
    # fair rule: a fresh table, then the face shown is one ahead; seed rule:
    # 0xFF everywhere rebases to zero first
    assert die.counts == tuple(int(f == face) for f in range(1, 7))


# ---- the rule, against the reference model ------------------------------------------------


def test_differential_thousands_of_presses(
    die_factory: Callable[..., Die], fairdie_seed: int, board: str
) -> None:
    """The chip and the model pick the same face and leave the same EEPROM
    image, press by press, from random bytes and with random codes."""
    die = die_factory(board=board)
    model = pressing(model_of(die))
    rng = random.Random(fairdie_seed)
    presses = 3000
    codes = random_codes(rng, presses * model.reads)
    die.chip.write_eeprom(0, rng.randbytes(len(ERASED)))
    die.set_noise(Codes(codes))
    at = 0  # a press converts as many codes as its model does, each press after the last
    for n in range(presses):
        p, face, _, after = modelled_roll(die, model=model)
        context = f"press {n}: seed {fairdie_seed}"
        assert p.adc_codes == tuple(codes[at : at + len(p.adc_codes)]), context
        at += len(p.adc_codes)
        assert p.face == face, context
        assert die.chip.eeprom == after, context


def test_differential_with_realistic_noise(
    die_factory: Callable[..., Die], fairdie_seed: int, board: str
) -> None:
    die = die_factory(board=board, noise="floating", seed=fairdie_seed)
    model = pressing(model_of(die))
    for n in range(2000):
        p, face, _, after = modelled_roll(die, model=model)
        assert p.face == face, f"press {n}: seed {fairdie_seed}"
        assert die.chip.eeprom == after, f"press {n}: seed {fairdie_seed}"


# ---- corrupt bytes ------------------------------------------------------------------------


@needs_model("fair")
def test_two_corrupt_bytes_never_lose_a_later_press(
    die_factory: Callable[..., Die], board: str
) -> None:
    """From a fresh chip, two bytes left corrupt (slot 9's gate after 2
    presses, a state byte of slot 2 after 32): every later press is kept."""
    die = die_factory(board=board, eeprom=ERASED, noise=Codes(HEALTHY_CODES))
    for n in range(40):
        if n == 2:
            die.chip.write_eeprom(59, bytes([0x39]))
        if n == 32:
            die.chip.write_eeprom(14, bytes([0xAF]))
        before = die.counts
        p, face, _, after = modelled_roll(die)
        assert (p.face, die.chip.eeprom) == (face, after), f"press {n}"
        assert p.face is not None
        up = [t + (f == p.face) for f, t in enumerate(before, 1)]
        assert die.counts == tuple(t - min(up) for t in up), f"press {n}: lost"


# ---- another clock, short presses --------------------------------------------------


@pytest.mark.parametrize("board", BOARDS)
@needs_build(f_cpu=9_600_000)
def test_other_clock_reads_the_same(die_factory: Callable[..., Die], board: str) -> None:
    die = die_factory(board=board, f_cpu=9_600_000)
    assert die.chip.frequency == 9_600_000
    forced(die, 4)
    p, face, _, after = modelled_roll(die, 0.2)
    assert (p.face, p.display, face) == (4, "4", 4)
    assert die.chip.eeprom == after
    p, face, _, after = modelled_roll(die, 10.0)
    assert (p.face, p.display) == (face, "all")
    assert die.chip.eeprom == model_of(die).cleared(after)


@pytest.mark.parametrize("board", BOARDS)
def test_short_presses_never_report_a_wrong_face(
    die_factory: Callable[..., Die], board: str
) -> None:
    """A press cut while a multiplexed face is only partly drawn reports no face."""
    die = die_factory(board=board)
    seen = set()
    for ms in range(2, 60):
        forced(die, 4)
        p = die.roll(ms / 1000)
        assert p.face in (None, 4), f"hold {ms} ms"
        seen.add(p.face)
    assert seen == {None, 4}
