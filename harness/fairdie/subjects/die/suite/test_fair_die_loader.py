"""The fair rule's EEPROM loader and save (store.S; its model
fairdie.subjects.die._ring), one rule at a time, then any image.

Each rule of the loader is tested alone: an image whose newest honest record
shows one face, plus a record that breaks exactly that rule and would show
another face if the loader took it. The chip must show the model's face and
leave the model's image, and the model's must be the honest record's (so the
test tells the rule kept from the rule broken). The rules:

- a slot's record is valid only if its seq names that slot (bits 0..3);
- only if its check byte is the XOR of bytes 0..3 and 0x5B;
- only if its gate is its phase's (0xA5 for phase 0, 0x5A for phase 1);
- scanning slots in order, a valid record replaces the one kept only when its
  seq is 1..15 ahead (7-bit, the phase bit left out): a record a lap or more
  ahead, or a lap behind, is left;
- the first valid record in slot order is kept whatever its seq;
- with no valid record the state is fresh (table 0, pool 1);
- a save goes to the slot after the newest record (after slot 9: the next
  lap's slot 0, and lap 7 wraps to lap 0), with the phase opposite to the gate
  that slot holds.

Then a Hypothesis differential: for any 64 bytes (leaning to rings of valid,
broken and stray records), the chip's next face and EEPROM equal the model's,
with noise that passes the health tests and with noise that fails them (then
the display shows the fault and nothing is written).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from fairdie.noise import Codes
from fairdie.plugin import examples
from fairdie.subjects.die import _fair, _ring
from fairdie.subjects.die._models import HEALTHY_CODES
from fairdie.subjects.die.suite._support import ERASED, model_of, needs_model, random_codes

if TYPE_CHECKING:
    from fairdie.subjects.die import Die, Press

pytestmark = [pytest.mark.sim, needs_model("fair")]

KEY = 0x5B
GATES = (0xA5, 0x5A)
HOLD_S = 0.2  # a press is sampled, stored and shown well within this
#: the face the honest record forces, and the one the rule-breaking one would
HONEST, BROKEN = 2, 5


def state_for(face: int, pool: int = 0x5A5) -> bytes:
    """Stored state bytes whose table lets only ``face`` be drawn."""
    table = sum((0 if f == face else 3) << (2 * (f - 1)) for f in range(1, 7))
    return _fair.pack((table, pool))


def record(seq: int, state: bytes, *, check: int = 0, gate: int | None = None) -> bytes:
    """A record: ``seq`` (phase in bit 7), its check XOR ``check``, and its
    phase's gate unless ``gate`` is given."""
    r = [seq, *state]
    r.append(r[0] ^ r[1] ^ r[2] ^ r[3] ^ KEY ^ check)
    r.append(GATES[seq >> 7] if gate is None else gate)
    return bytes(r)


def seq_of(lap: int, slot: int, phase: int = 0) -> int:
    return (phase << 7) | ((lap % 8) << 4) | slot


def ring(records: dict[int, bytes], under: bytes = ERASED) -> bytes:
    out = bytearray(under)
    for slot, r in records.items():
        out[slot * 6 : slot * 6 + 6] = r
    return bytes(out)


@pytest.fixture(scope="module")
def shared_die(die_factory: Callable[..., Die]) -> Callable[[str], Die]:
    """One die per board for the module: each press loads its own image and noise."""
    dies: dict[str, Die] = {}

    def get(board: str) -> Die:
        if board not in dies:
            dies[board] = die_factory(board=board)  # noise: press() sets its codes
        return dies[board]

    return get


def press(die: Die, image: bytes, codes: tuple[int, ...] = HEALTHY_CODES) -> Press:
    """Press once from ``image`` with ``codes``; check the face, display and
    EEPROM against the model's; return the press."""
    die.chip.write_eeprom(0, image)
    die.set_noise(Codes(codes))
    p = die.roll(HOLD_S)
    face, after = model_of(die).press(image, codes)
    context = f"image {image.hex()}: the model shows {face}, leaves {after.hex()}"
    assert p.face == face, f"the chip showed {p.face} ({p.display!r}); {context}"
    assert p.display == ("fault" if face is None else str(face)), context
    assert die.chip.eeprom == after, f"the chip left {die.chip.eeprom.hex()}; {context}"
    return p


def check_rule(die: Die, image: bytes, slot: int, seq: int) -> None:
    """The press from ``image`` shows HONEST (the loader kept the rule) and
    saves its record in ``slot`` with ``seq``, as the model does."""
    face, after = model_of(die).press(image, HEALTHY_CODES)
    assert face == HONEST, f"the image does not test the rule: the model shows {face}"
    saved = _ring.load(after)
    assert (saved.slot, saved.seq) == (slot, seq), f"the model saves {saved}"
    press(die, image)


# ---- each rule alone ------------------------------------------------------------------


def test_a_record_in_another_slot_is_not_loaded(
    shared_die: Callable[[str], Die], board: str
) -> None:
    """Slot 4 holds a whole record (check and gate right) whose seq names slot 5."""
    honest = record(seq_of(0, 3), state_for(HONEST))
    stray = record(seq_of(0, 5), state_for(BROKEN))
    check_rule(shared_die(board), ring({3: honest, 4: stray}), 4, seq_of(0, 4, 1))


@pytest.mark.parametrize("bit", [0, 3, 7])
def test_a_record_with_a_bad_check_is_not_loaded(
    shared_die: Callable[[str], Die], board: str, bit: int
) -> None:
    honest = record(seq_of(0, 3), state_for(HONEST))
    bad = record(seq_of(0, 4), state_for(BROKEN), check=1 << bit)
    check_rule(shared_die(board), ring({3: honest, 4: bad}), 4, seq_of(0, 4, 1))


@pytest.mark.parametrize("phase", [0, 1])
@pytest.mark.parametrize("gate", ["other phase's", "erased", "zero"])
def test_a_record_with_a_wrong_gate_is_not_loaded(
    shared_die: Callable[[str], Die], board: str, phase: int, gate: str
) -> None:
    value = {"other phase's": GATES[1 - phase], "erased": 0xFF, "zero": 0x00}[gate]
    honest = record(seq_of(0, 3), state_for(HONEST))
    bad = record(seq_of(0, 4, phase), state_for(BROKEN), gate=value)
    # the save's phase is the opposite of the gate slot 4 holds
    check_rule(shared_die(board), ring({3: honest, 4: bad}), 4, seq_of(0, 4, value != GATES[1]))


@pytest.mark.parametrize("laps", [1, 2, 4, 7], ids=["a lap ahead", "2", "4", "a lap behind"])
def test_a_record_too_far_ahead_is_not_loaded(
    shared_die: Callable[[str], Die], board: str, laps: int
) -> None:
    """Slot 4's record is valid, but its seq is 17 or more ahead of slot 3's
    (or, at 7 laps, 15 behind): left from laps ago, not the newest."""
    honest = record(seq_of(2, 3), state_for(HONEST))
    old = record(seq_of(2 + laps, 4, 1), state_for(BROKEN))
    check_rule(shared_die(board), ring({3: honest, 4: old}), 4, seq_of(2, 4, 0))


def test_a_record_one_ahead_of_another_phase_is_loaded(
    shared_die: Callable[[str], Die], board: str
) -> None:
    """The phase bit takes no part in the order: slot 4's record of phase 1 is
    one ahead of slot 3's of phase 0, and is the newest."""
    older = record(seq_of(5, 3, 0), state_for(BROKEN))
    newer = record(seq_of(5, 4, 1), state_for(HONEST))
    check_rule(shared_die(board), ring({3: older, 4: newer}), 5, seq_of(5, 5, 1))


def test_the_first_valid_record_is_kept_whatever_its_seq(
    shared_die: Callable[[str], Die], board: str
) -> None:
    """Slot 1 holds a lone record of lap 6 among invalid ones: it is the state,
    and a later record that is not 1..15 ahead of it does not replace it."""
    first = record(seq_of(6, 1, 1), state_for(HONEST))
    behind = record(seq_of(5, 7), state_for(BROKEN))
    image = ring({0: record(seq_of(6, 0), state_for(BROKEN), check=2), 1: first, 7: behind})
    check_rule(shared_die(board), image, 2, seq_of(6, 2, 1))


def test_the_newest_wins_across_a_lap(shared_die: Callable[[str], Die], board: str) -> None:
    """A full ring: slots 0..2 of lap 4 are newer than slots 3..9 of lap 3."""
    records = {s: record(seq_of(3, s, 1), state_for(BROKEN)) for s in range(3, 10)}
    records |= {s: record(seq_of(4, s), state_for(BROKEN)) for s in range(2)}
    records[2] = record(seq_of(4, 2), state_for(HONEST))
    check_rule(shared_die(board), ring(records), 3, seq_of(4, 3, 0))


@pytest.mark.parametrize("under", ["erased", "zeros", "random"])
def test_no_valid_record_is_a_fresh_state(
    shared_die: Callable[[str], Die], board: str, under: str
) -> None:
    """With no valid record the table is fresh (every face at offset 0) and
    the pool 1; the save goes to lap 0's slot 0."""
    image = {"erased": ERASED, "zeros": bytes(64), "random": random.Random(19).randbytes(64)}[under]
    assert _ring.load(image).slot is None
    die = shared_die(board)
    face, after = model_of(die).press(image, HEALTHY_CODES)
    assert face is not None
    assert (
        _ring.load(after).state == _fair.roll(bytes(3), _fair.sample(HEALTHY_CODES).noise or 0)[1]
    )
    assert _ring.load(after).slot == 0 and _ring.load(after).seq & 0x7F == 0
    press(die, image)


@pytest.mark.parametrize("held", ["phase 1's", "phase 0's", "erased"])
def test_a_save_takes_the_phase_opposite_to_the_slot_gate(
    shared_die: Callable[[str], Die], board: str, held: str
) -> None:
    """The slot after the newest holds an invalid record whose gate is one
    phase's (or neither): the save's phase is the other (phase 1 unless the
    slot holds phase 1's gate), so a torn save can never pass as the old."""
    gate = {"phase 1's": GATES[1], "phase 0's": GATES[0], "erased": 0xFF}[held]
    honest = record(seq_of(1, 5), state_for(HONEST))
    stale = record(seq_of(0, 6), state_for(BROKEN), check=4, gate=gate)
    check_rule(shared_die(board), ring({5: honest, 6: stale}), 6, seq_of(1, 6, gate != GATES[1]))


@pytest.mark.parametrize("lap", [0, 6, 7])
def test_after_slot_9_the_save_goes_to_the_next_laps_slot_0(
    shared_die: Callable[[str], Die], board: str, lap: int
) -> None:
    image = ring({9: record(seq_of(lap, 9), state_for(HONEST))})
    check_rule(shared_die(board), image, 0, seq_of(lap + 1, 0, 1))


# ---- any image ------------------------------------------------------------------------


# the strategies of ring_images, made once (one made per draw is validated per draw)
_RING_BYTES = st.binary(min_size=64, max_size=64)
_BASES = st.integers(0, 7)
_KINDS = st.sampled_from(("bytes", "valid", "valid", "slot", "check", "gate"))
_LAPS = st.sampled_from((0, 0, 0, 1, -1, 2, 4))
_PHASES = st.integers(0, 1)
_OTHERS = st.integers(0, 14)
_STATES = st.binary(min_size=3, max_size=3)
_CHECKS = st.integers(1, 255)
_GATES = [st.sampled_from((GATES[1 - phase], 0xFF, 0)) for phase in (0, 1)]


@st.composite
def ring_images(draw: st.DrawFn) -> bytes:
    """Any 64 bytes, each slot of the ring then left as it is, or given a
    valid record, or one with one rule broken (its seq naming another slot,
    a bad check, the wrong gate), with laps near one another so that which
    record is the newest matters."""
    out = bytearray(draw(_RING_BYTES, label="bytes"))
    base = draw(_BASES)
    for slot in range(_ring.SLOTS):
        kind = draw(_KINDS)
        if kind == "bytes":
            continue
        lap = base + draw(_LAPS)
        seq = seq_of(lap, slot, draw(_PHASES))
        if kind == "slot":
            other = draw(_OTHERS)  # any slot number but this one's
            seq = (seq & 0xF0) | (other + (other >= slot))
        state = draw(_STATES)
        r = record(
            seq,
            state,
            check=draw(_CHECKS) if kind == "check" else 0,
            gate=draw(_GATES[seq >> 7]) if kind == "gate" else None,
        )
        out[slot * 6 : slot * 6 + 6] = r
    return bytes(out)


@functools.cache
def healthy_noise() -> st.SearchStrategy[tuple[int, ...]]:
    """Codes that pass the health tests: HEALTHY_CODES, or seeded uniform
    codes that pass (nearly all do; the rest are replaced)."""

    def uniform(seed: int) -> tuple[int, ...]:
        rng = random.Random(seed)
        codes = tuple(random_codes(rng, _fair.MOST_READS))
        return codes if _fair.sample(codes).noise is not None else HEALTHY_CODES

    return st.one_of(st.just(HEALTHY_CODES), st.integers(0, 2**32 - 1).map(uniform))


@functools.cache
def failing_noise() -> st.SearchStrategy[tuple[int, ...]]:
    """Codes that fail a health test: a stuck pin (repetition count), one
    code too often among the first 64 (adaptive proportion), or codes whose
    low bits never differ within a pair (no fresh bits)."""
    n = _fair.MOST_READS
    stuck = st.integers(0, 1023).map(lambda c: (c,) * n)
    proportion = st.integers(0, 1023).map(
        lambda c: tuple((c + 1 + i) % 1024 if i % 16 == 1 else c for i in range(n))
    )
    no_fresh = st.integers(0, 511).map(lambda k: tuple((2 * (k + i)) % 1024 for i in range(n)))
    return st.one_of(stuck, proportion, no_fresh)


@settings(max_examples=examples(80), deadline=None)
@given(image=st.one_of(ring_images(), st.binary(min_size=64, max_size=64)), data=st.data())
def test_any_image_gives_the_models_face_and_image(
    shared_die: Callable[[str], Die], board: str, image: bytes, data: st.DataObject
) -> None:
    codes = data.draw(healthy_noise(), label="codes")
    note(f"the model loads {_ring.load(image)}")
    p = press(shared_die(board), image, codes)
    assert p.face is not None


@settings(max_examples=examples(25), deadline=None)
@given(image=ring_images(), data=st.data())
def test_any_image_under_failing_noise_shows_the_fault_and_writes_nothing(
    shared_die: Callable[[str], Die], board: str, image: bytes, data: st.DataObject
) -> None:
    codes = data.draw(failing_noise(), label="codes")
    assert _fair.sample(codes).failure is not None
    p = press(shared_die(board), image, codes)
    assert p.face is None and p.display == "fault" and shared_die(board).chip.eeprom == image
