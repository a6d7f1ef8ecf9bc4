"""Our fair die's rule under Hypothesis: any table, any EEPROM bytes and any
noise give the face and the EEPROM image the die's reference model gives (the
fair rule's table keeps its spread, the seed's counters never wrap), and a
state machine mixing presses of any length, noise changes and EEPROM edits
(presses cut before their face or during the clear included) against the
model. The press-by-press tests of faces, the clear and the rule are in
test_fair_die.py; these run where those do, and skip where those skip.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from fairdie.noise import Codes
from fairdie.noise.strategies import noise_sequences
from fairdie.plugin import examples
from fairdie.subjects.die._models import conversion_mismatch
from fairdie.subjects.die.suite._rolls import modelled_roll
from fairdie.subjects.die.suite._support import (
    ERASED,
    clear_is_known,
    images,
    model_of,
    needs_model,
    per_model,
    press_codes,
    pressing,
    tables,
)

if TYPE_CHECKING:
    from fairdie.subjects.die import Die, Press
    from fairdie.subjects.die._models import DieModel

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("needs_the_table")]

#: the clear's watchdog deadline: 155 ticks of 64 ms after power-on
CLEAR_S = 9.92


@per_model
def _probes(model: DieModel) -> list[tuple[int, ...]]:
    """The codes of :func:`same_future`'s next presses (made once per model)."""
    return [
        tuple((i * 611 + 100) % 1024 for i in range(model.reads)),
        tuple(i % 2 for i in range(model.reads)),
        tuple((i * 389 + 7) % 1024 for i in range(model.reads)),
    ]


def same_future(model: DieModel, a: bytes, b: bytes) -> bool:
    """Whether images ``a`` and ``b`` hold the same state for the model: any
    next press (here: three kinds of noise, each passing the health tests, so
    that the press stores) or a clear leaves the same image."""
    presses = pressing(model)
    return model.cleared(a) == model.cleared(b) and all(
        presses.press(a, p) == presses.press(b, p) for p in _probes(model)
    )


@pytest.fixture(scope="module")
def shared_die(die_factory: Callable[..., Die]) -> Callable[[str], Die]:
    """One die per board for the module's property tests: each example
    rewrites its EEPROM and its noise."""
    dies: dict[str, Die] = {}

    def get(board: str) -> Die:
        if board not in dies:
            dies[board] = die_factory(board=board, noise=Codes([0]))
        return dies[board]

    return get


def _press_with(die: Die, codes: tuple[int, ...]) -> tuple[Press, int | None, bytes, bytes]:
    """:func:`modelled_roll` of a press that reads ``codes`` (from the first)."""
    die.set_noise(Codes(codes))
    return modelled_roll(die)


@per_model
def _presses(model: DieModel) -> st.SearchStrategy[list[tuple[int, ...]]]:
    """The codes of one to eight presses."""
    return st.lists(press_codes(model), min_size=1, max_size=8)


def _shows(face: int | None) -> str:
    """What the display shows for a model's face (None: the noise failed)."""
    return "fault" if face is None else str(face)


def _fair_spread_holds(before: tuple[int, ...], after: tuple[int, ...], p: Press, n: int) -> None:
    """The fair rule's table, read from the chip's EEPROM before and after a
    press: the least-counted face is at offset 0 and none is above 3; the face
    shown had weight (an offset below 3) and went up by one against the
    others, so the spread grows only when the face furthest ahead is shown, by one."""
    context = f"press {n}: table {before} -> {after}, face {p.face}"
    if p.face is None:  # the noise failed the health tests: nothing counted
        assert p.display == "fault" and after == before, context
        return
    low = [t - min(before) for t in before]
    shown = low[p.face - 1]
    assert shown < 3, context
    up = [t + (f == p.face) for f, t in enumerate(low, 1)]
    assert after == tuple(t - min(up) for t in up), context
    assert min(after) == 0 and max(after) <= 3, context
    spread = max(low) + (shown == max(low))
    assert max(after) <= spread, context


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_any_table_and_any_noise_match_the_model(
    shared_die: Callable[[str], Die], board: str, data: st.DataObject
) -> None:
    """Press after press, the chip shows the model's face and leaves its
    image; under the fair rule, the table it holds keeps its spread within
    three (checked on the chip's table, not the model's: the same presses)."""
    die = shared_die(board)
    model = model_of(die)
    table = data.draw(tables(model), label="table")
    presses = data.draw(_presses(model), label="presses")
    die.set_counts(table)
    before = die.counts
    for n, codes in enumerate(presses):
        p, face, _, after = _press_with(die, codes)
        assert p.adc_codes == codes[: len(p.adc_codes)], f"press {n}"
        assert (p.face, p.display) == (face, _shows(face)), f"press {n}"
        if model.name == "fair":
            _fair_spread_holds(before, die.counts, p, n)
            before = die.counts
        assert die.chip.eeprom == after, f"press {n}"


@needs_model("seed")
@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_any_eeprom_and_any_noise_never_wraps(
    shared_die: Callable[[str], Die], board: str, data: st.DataObject
) -> None:
    die = shared_die(board)
    model = model_of(die)
    presses = data.draw(_presses(model), label="presses")
    die.set_counts(data.draw(tables(model), label="table"))
    for codes in presses:
        before = die.counts
        p, face, _, after = _press_with(die, codes)
        assert p.face == face
        assert die.chip.eeprom == after
        assert p.counts is not None and all(0 <= c <= 255 for c in p.counts)
        if face is None:  # the noise failed the health tests: nothing counted
            assert p.display == "fault" and p.counts == before
            continue
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


@per_model
def _starts(model: DieModel) -> st.SearchStrategy[bytes]:
    """Any 64 bytes, or an image the die may hold."""
    return st.one_of(st.binary(min_size=len(ERASED), max_size=len(ERASED)), images(model))


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_arbitrary_eeprom_bytes_are_a_valid_start(
    shared_die: Callable[[str], Die], board: str, data: st.DataObject
) -> None:
    """Any 64 bytes, or an image the die may hold (a ring part-filled or
    wrapped, torn or corrupt records), start a press that shows the model's
    face, leaves the model's image and touches nothing outside its footprint."""
    die = shared_die(board)
    model = model_of(die)
    image = data.draw(_starts(model), label="image")
    codes = data.draw(press_codes(model), label="codes")
    die.chip.write_eeprom(0, image)
    die.set_noise(Codes(codes))
    p, face, _, after = modelled_roll(die)
    assert p.adc_codes == codes[: len(p.adc_codes)]
    assert p.face == face and (face is not None or p.display == "fault")
    stored = die.chip.eeprom
    touched = [a for a in range(len(ERASED)) if a not in model.footprint and stored[a] != image[a]]
    assert not touched, f"bytes {touched} outside {model.footprint} written"
    assert stored == after


# ---- a state machine mixing presses, noise and EEPROM edits ------------------------------


class DieMachine(RuleBasedStateMachine):
    """Presses of any length (1 ms to past 10 s, some cut during the clear),
    noise changes and EEPROM edits, against the die's model.

    After every press: one whose face was shown stored exactly the model's
    image; one held past 10 s the model's clear of it; one cut before its
    face showed left every byte at its old or its new value, and (fair rule,
    whose ring is written to survive a cut) the state before or the state
    after, not a mix; one cut during the clear, likewise between the press's
    image and its clear. (Except where the model's clear is not the
    firmware's: a ring that edits spread over more than 15 seqs, clear_is_known.)
    """

    die: Die
    factory: Callable[..., Die]
    board: str | None = None

    @initialize()
    def setup(self) -> None:
        self.die = self.factory(board=self.board, noise=Codes([0]))
        self.model = model_of(self.die)
        self.press_model = pressing(self.model)
        self.image = self.die.chip.eeprom

    @rule(codes=noise_sequences(min_size=1, max_size=32))
    def change_noise(self, codes: list[int]) -> None:
        self.die.set_noise(Codes(codes))

    @rule(address=st.integers(0, len(ERASED) - 1), value=st.integers(0, 255))
    def edit_eeprom(self, address: int, value: int) -> None:
        self.die.chip.write_eeprom(address, bytes([value]))
        self.image = self.die.chip.eeprom

    def _between(self, old: bytes, new: bytes, now: bytes, what: str) -> None:
        mixed = [
            a for a, (o, n, x) in enumerate(zip(old, new, now, strict=True)) if x not in (o, n)
        ]
        assert not mixed, f"{what}: bytes {mixed} are neither old nor new"
        if self.model.name == "fair":
            assert same_future(self.model, now, old) or same_future(self.model, now, new), (
                f"{what}: the ring holds neither state: {now.hex()}"
            )

    @rule(
        hold=st.one_of(
            st.floats(0.001, 0.05),
            st.floats(0.05, 9.5),
            st.floats(CLEAR_S, 10.0, exclude_max=True),
            st.floats(10.05, 12.0),
        )
    )
    def press(self, hold: float) -> None:
        before = self.image
        p = self.die.roll(hold)
        now = self.image = self.die.chip.eeprom
        if conversion_mismatch(self.model, p.adc_codes) is not None:
            event("press: cut while converting")
            assert p.face is None and now == before  # nothing to store yet
            return
        face, after = self.press_model.press(before, p.adc_codes)
        cleared = self.model.cleared(after)
        if hold >= CLEAR_S and not clear_is_known(self.model, before, after):
            # a corrupted ring (clear_is_known)
            event("press: into the clear, from a spread ring")
            note(f"the press's record is not the newest of {after.hex()}: the clear is not known")
            assert p.face == face
            assert p.display == "all" if hold >= 10.0 else p.display in (str(face), "all")
        elif hold >= 10.0:
            event("press: cleared")
            assert (p.face, p.display) == (face, "all")
            assert now == cleared
        elif hold >= CLEAR_S:
            event("press: cut around the clear")
            assert p.face == face
            self._between(after, cleared, now, f"a press cut at {hold} s, in the clear")
        elif p.face is not None:
            event("press: face shown")
            assert (p.face, p.display) == (face, str(face))
            assert now == after
        else:
            event(f"press: cut before the face, {'stored' if now == after else 'not stored'}")
            self._between(before, after, now, f"a press cut at {hold} s")

    @precondition(lambda self: hasattr(self, "die"))
    @invariant()
    def between_presses_the_die_is_off_and_keeps_its_eeprom(self) -> None:
        assert not self.die.chip.powered and self.die.display() == "off"
        assert self.die.chip.eeprom == self.image


def test_die_machine(die_factory: Callable[..., Die], board: str) -> None:
    machine = type("Machine", (DieMachine,), {"factory": staticmethod(die_factory), "board": board})
    run_state_machine_as_test(
        machine, settings=settings(max_examples=examples(30), stateful_step_count=16, deadline=None)
    )
