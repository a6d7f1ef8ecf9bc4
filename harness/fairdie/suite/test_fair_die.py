"""Our fair die: its rule (against the reference model) and its EEPROM table.

These run against our build by default, or any build of our die through the
plugin (``--fairdie-firmware``, ``--fairdie-board``). They need the table of
six per-face counters; on a die that keeps none they skip, saying so.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from fairdie.die import CLEARED, FACE_POSITIONS
from fairdie.die import press as reference_press
from fairdie.noise import Codes
from fairdie.noise.strategies import adc_codes, counters

if TYPE_CHECKING:
    from fairdie.die import Die

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("needs_the_table")]

BOARDS = ["die-direct", "die-charlieplex"]


def counts_for(face: int) -> bytes:
    """A table whose least-rolled face is ``face``: code 0 then picks it."""
    return bytes(0 if f == face else 1 for f in range(1, 7))


# ---- faces and the display ------------------------------------------------------------


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("face", range(1, 7))
def test_each_face_lights_exactly_its_groups(
    die_factory: Callable[..., Die], board: str, face: int
) -> None:
    die = die_factory(board=board, eeprom=counts_for(face), noise=Codes([0]))
    p = die.roll(0.2)
    assert p.face == face
    assert p.display == str(face)
    # the LEDs over the last persistence window before the power went
    assert die.lit(at=die.chip.cycle) == FACE_POSITIONS[str(face)]
    assert p.counts == tuple(c + (f == face) for f, c in enumerate(counts_for(face), 1))


@pytest.mark.parametrize("board", BOARDS)
def test_lit_positions_are_the_seed_groups(die_factory: Callable[..., Die], board: str) -> None:
    die = die_factory(board=board, eeprom=counts_for(6), noise=Codes([0]))
    die.power_on()
    die.chip.run(seconds=0.06)
    assert die.lit() == FACE_POSITIONS["6"]
    die.chip.power_off()


def test_direct_wiring_drives_the_group_pins(die_factory: Callable[..., Die]) -> None:
    die = die_factory(board="die-direct", eeprom=counts_for(5), noise=Codes([0]))
    die.power_on()
    die.chip.run(seconds=0.06)
    # face 5 = groups A, B, C on PB0, PB1, PB2; D (PB3) off
    assert [die.chip.level(p).value for p in ("PB0", "PB1", "PB2", "PB3")] == ["1", "1", "1", "0"]
    assert die.chip.sleeping  # asleep, and the pins hold the face
    die.chip.power_off()


@pytest.mark.parametrize("board", BOARDS)
def test_held_ten_seconds_clears_the_table(die_factory: Callable[..., Die], board: str) -> None:
    die = die_factory(board=board, eeprom=bytes([9, 8, 7, 6, 5, 4]))
    p = die.roll(10.0)
    assert p.display == "all"
    assert p.counts == CLEARED
    assert die.counts == CLEARED


@pytest.mark.parametrize("board", BOARDS)
def test_held_under_ten_seconds_does_not(die_factory: Callable[..., Die], board: str) -> None:
    die = die_factory(board=board, eeprom=bytes([9, 8, 7, 6, 5, 4]))
    p = die.roll(9.9)
    assert p.display == str(p.face)
    assert p.counts != CLEARED and sum(die.counts) == 9 + 8 + 7 + 6 + 5 + 4 + 1


def test_fresh_chip_starts_from_erased_eeprom(die: Die) -> None:
    assert die.counts == (255,) * 6
    p = die.roll(0.2)
    assert p.face in range(1, 7)
    assert max(die.counts) == 1  # 0xFF everywhere rebases to zero first


# ---- the rule, against the reference model ------------------------------------------------


def test_differential_thousands_of_presses(
    die_factory: Callable[..., Die], fairdie_seed: int
) -> None:
    """The chip and the Python model of the rule pick the same face, press by press."""
    rng = random.Random(fairdie_seed)
    codes = [rng.randrange(1024) for _ in range(3000)]
    start = bytes(rng.randrange(256) for _ in range(6))
    die = die_factory(eeprom=start, noise=Codes(codes))
    model = tuple(start)
    for n, code in enumerate(codes):
        p = die.roll(0.06)
        face, model = reference_press(model, code)
        assert p.adc_codes == (code,), f"press {n}: seed {fairdie_seed}"
        assert (p.face, p.counts) == (face, model), f"press {n}: seed {fairdie_seed}"


def test_differential_with_realistic_noise(
    die_factory: Callable[..., Die], fairdie_seed: int
) -> None:
    die = die_factory(noise="floating", seed=fairdie_seed)
    model = die.counts
    for n in range(500):
        p = die.roll(0.06)
        face, model = reference_press(model, p.adc_codes[0])
        assert (p.face, p.counts) == (face, model), f"press {n}: seed {fairdie_seed}"


@pytest.fixture(scope="module")
def shared_die(die_factory: Callable[..., Die]) -> Callable[..., Die]:
    """One die per module for property tests: each example rewrites its EEPROM."""
    dies: dict[str, Die] = {}

    def get(board: str | None = None) -> Die:
        key = board or ""
        if key not in dies:
            dies[key] = die_factory(board=board, noise=Codes([0]))
        return dies[key]

    return get


@settings(max_examples=60, deadline=None)
@given(table=counters(edges=True), codes=st.lists(adc_codes(), min_size=1, max_size=8))
def test_any_eeprom_and_any_noise_never_wraps(
    shared_die: Callable[..., Die], table: bytes, codes: list[int]
) -> None:
    die = shared_die()
    die.set_counts(table)
    die.set_noise(Codes(codes))
    model = tuple(table)
    for code in codes:
        before = die.counts
        p = die.roll(0.06)
        face, model = reference_press(model, code)
        assert p.face == face and 1 <= p.face <= 6
        assert p.counts == model
        assert all(0 <= c <= 255 for c in p.counts)
        i = face - 1
        if before[i] < 255:  # exactly the face shown went up by one
            assert [a - b for a, b in zip(p.counts, before, strict=True)] == [
                int(k == i) for k in range(6)
            ]
        else:  # rebased first: the faces keep their order, ties included
            rebased = [c - (k == i) for k, c in enumerate(p.counts)]
            for a, b in itertools.combinations(range(6), 2):
                assert (before[a] > before[b]) - (before[a] < before[b]) == (
                    rebased[a] > rebased[b]
                ) - (rebased[a] < rebased[b])


@settings(max_examples=25, deadline=None)
@given(table=st.binary(min_size=64, max_size=64), code=adc_codes())
def test_arbitrary_eeprom_bytes_are_a_valid_start(
    shared_die: Callable[..., Die], table: bytes, code: int
) -> None:
    die = shared_die()
    die.chip.write_eeprom(0, table)
    die.set_noise(Codes([code]))
    p = die.roll(0.06)
    assert p.face == reference_press(table[:6], code)[0]
    assert die.chip.eeprom[6:] == table[6:]  # nothing else of the user's is touched


# ---- a state machine mixing presses, noise and EEPROM edits ------------------------------


class DieMachine(RuleBasedStateMachine):
    """Presses of any length (1 ms to past 10 s), noise changes and EEPROM edits.

    Invariants after every step: the counters never wrap; a press whose face
    was shown stored exactly the model's table; a press cut before the face
    showed left every counter at its old or its new value; a press past 10 s
    cleared the table.
    """

    die: Die
    factory: Callable[..., Die]

    @initialize()
    def setup(self) -> None:
        self.die = self.factory(noise=Codes([0]))
        self.code = 0
        self.model = self.die.counts

    @rule(code=adc_codes())
    def change_noise(self, code: int) -> None:
        self.code = code
        self.die.set_noise(Codes([code]))

    @rule(address=st.integers(0, 5), value=st.integers(0, 255))
    def edit_eeprom(self, address: int, value: int) -> None:
        self.die.chip.write_eeprom(address, bytes([value]))
        self.model = self.die.counts

    @rule(hold=st.one_of(st.floats(0.001, 0.05), st.floats(0.05, 9.5), st.floats(10.05, 12.0)))
    def press(self, hold: float) -> None:
        before = self.model
        face, after = reference_press(before, self.code)
        p = self.die.roll(hold)
        if hold >= 10.0:
            assert p.display == "all" and p.counts == CLEARED
        elif p.face is not None:
            assert (p.face, p.counts) == (face, after)
            assert p.display == str(face)
        else:
            assert p.counts is not None
            assert all(c in (b, a) for c, b, a in zip(p.counts, before, after, strict=True))
        assert p.counts is not None
        self.model = p.counts

    @precondition(lambda self: hasattr(self, "die"))
    @invariant()
    def between_presses_the_die_is_off_and_keeps_its_table(self) -> None:
        assert not self.die.chip.powered and self.die.display() == "off"
        assert self.die.counts == self.model


def test_die_machine(die_factory: Callable[..., Die]) -> None:
    machine = type("Machine", (DieMachine,), {"factory": staticmethod(die_factory)})
    run_state_machine_as_test(
        machine, settings=settings(max_examples=15, stateful_step_count=12, deadline=None)
    )


@pytest.mark.parametrize("board", BOARDS)
def test_other_clock_reads_the_same(die_factory: Callable[..., Die], board: str) -> None:
    die = die_factory(board=board, f_cpu=9_600_000, eeprom=counts_for(4), noise=Codes([0]))
    assert die.chip.frequency == 9_600_000
    p = die.roll(0.2)
    assert (p.face, p.display) == (4, "4")
    assert die.roll(10.0).display == "all"


@pytest.mark.parametrize("board", BOARDS)
def test_short_presses_never_report_a_wrong_face(
    die_factory: Callable[..., Die], board: str
) -> None:
    """A press cut while a multiplexed face is only partly drawn reports no face."""
    die = die_factory(board=board, noise=Codes([0]))
    seen = set()
    for ms in range(2, 60):
        die.set_counts(counts_for(4))
        p = die.roll(ms / 1000)
        assert p.face in (None, 4), f"hold {ms} ms"
        seen.add(p.face)
    assert seen == {None, 4}
