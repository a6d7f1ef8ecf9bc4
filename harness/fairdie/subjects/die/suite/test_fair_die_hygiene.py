"""Our die's hygiene: what its LEDs, pins and EEPROM must never do, on both boards.

Three properties, each a plain function of a die (so it can be run against any
build, such as a hand-made mutant), checked here by Hypothesis over EEPROM
images, ADC codes and holds, for whichever rule the die follows (its
``die.model``; die-direct's build follows the fair rule, die-charlieplex's the
seed's):

- no LED lights for a press that is not stored yet: the LEDs are dark while
  the press's EEPROM writes are in flight (and no write lights an LED that
  was not already shown), and at the first cycle any LED lights the model's
  image after the press is stored, so a power cut right then keeps it;
- no pin of port B is ever an input with its pull-up on (the Timer0 ISR of the
  charlieplexed build promises this for every slot switch);
- each press writes exactly the bytes that change, each once, in order: first
  the press's (the model's image after it), then on a 10 s hold the clear's;
  a cut loses at most the write in flight. Under the fair rule each of these
  is one record of the ring: one slot, seq byte first and gate last.

Stimuli go through the chip (EEPROM, ADC source, trace), so only ``Die``'s
board wiring, LED model and ``power_on`` are relied on. The dice come from the
plugin's factory: a firmware given to the plugin is the one checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from fairdie.noise import Codes
from fairdie.plugin import examples
from fairdie.sim import EventKind, Until
from fairdie.subjects.die.suite._support import (
    BOARDS,
    RECORD,
    SLOTS,
    clear_is_known,
    images,
    model_of,
    needs_build,
    per_model,
    press_codes,
    tables,
    writes,
)

if TYPE_CHECKING:
    from fairdie.subjects.die import Die
    from fairdie.subjects.die._models import DieModel

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("needs_the_table")]

NOISE_CHANNEL = 2  # ADC2 on PB4 (pins.h)
PERSISTENCE_S = 0.020  # the boards' persistence window
VISIBLE = 0.02  # an eye sees an LED lit this fraction of it (the board model's floor)
# a face lights well within this after power-on (the seed rule's six writes:
# 20.4 ms; the fair rule's 64..256 conversions, 6..22 ms, and one record: at most 45 ms)
FIRST_LIGHT_S = 0.1
ROLL_STORED_S = 0.05  # by then every press is stored (and its face shown)
CLEAR_DONE_S = 10.0  # by then the clear is stored too (it starts at 9.92 s)
PULLED = 24  # state word: byte 3, a pull holds the pin (see PinChange)
DRIVEN = 8  # state word: byte 1, the chip drives the pin
WRITES = EventKind.EEPROM_START | EventKind.EEPROM_DONE

# Holds: cut during the press's writes, after the face showed, and around the
# clear at 9.92 s (its writes end before 10.0 s).
holds = st.one_of(
    st.floats(0.001, 0.03), st.floats(0.03, 0.08), st.floats(9.92, 10.05), st.just(10.05)
)

#: (EEPROM image, the press's codes)
Roll = tuple[bytes, tuple[int, ...]]


@st.composite
def _rebasing(draw: st.DrawFn, model: DieModel) -> Roll:
    """Seed rule: a table and a code whose press rebases: the chosen candidate
    (order position 0, 2 or 4) is at 255, so are all the faces after it in
    the order (a press that writes several counters)."""
    table = list(draw(tables(model)))
    k = draw(st.sampled_from((0, 2, 4)))
    order = sorted(range(6), key=lambda f: (table[f], f))
    for f in order[k:]:
        table[f] = 255
    return model.with_table(table), (3 * draw(st.integers(0, 340)) + k // 2,)


@per_model
def rolls(model: DieModel) -> st.SearchStrategy[Roll]:
    """Any image the die may hold and any codes; under the seed rule also
    presses that rebase."""
    any_roll = st.tuples(images(model), press_codes(model))
    if model.name == "seed":
        return st.one_of(any_roll, _rebasing(model))
    return any_roll


# ---- stimulus through the chip ------------------------------------------------------------


@contextmanager
def _pressed(die: Die, image: bytes, codes: Sequence[int], kinds: EventKind) -> Iterator[int]:
    """Load the image and the noise, switch on, trace ``kinds``; yields the
    power-on cycle and lets go of the switch at the end (also when a check fails)."""
    chip = die.chip
    chip.write_eeprom(0, image)
    chip.set_adc(NOISE_CHANNEL, Codes(codes, chip.vcc_mv))
    die.power_on()
    chip.trace_kinds = kinds
    try:
        yield chip.cycle
    finally:
        if chip.powered:
            chip.power_off()


def _lit(die: Die, start: int, end: int) -> set[int]:
    """Indices of the LEDs lit at some cycle of ``[start, end)``."""
    if end <= start:
        return set()
    return {i for i, n in enumerate(die.chip.leds_lit_cycles(start, end)) if n}


def _shown(die: Die, on: int, end: int) -> set[int]:
    """Indices of the LEDs an eye saw over the persistence window ending at ``end``
    (dark before the power-on ``on``): lit for at least VISIBLE of the window."""
    window = die.chip.cycles_for(PERSISTENCE_S)
    start = max(on, end - window)
    if end <= start:
        return set()
    cycles = die.chip.leds_lit_cycles(start, end)
    return {i for i, n in enumerate(cycles) if n >= VISIBLE * window}


# ---- property 1: the LEDs wait for the EEPROM ---------------------------------------------


def check_dark_while_writing(die: Die, image: bytes, codes: Sequence[int], hold: float) -> None:
    """While an EEPROM write is in flight no LED lights that an eye did not
    already see when it started. Nothing is shown before the press's writes,
    so they must run in the dark; the clear's may keep showing the old face."""
    chip = die.chip
    context = f"image {image.hex()}, codes {list(codes)}, hold {hold}"
    with _pressed(die, image, codes, WRITES) as on:
        end = on + chip.cycles_for(hold)
        start, shown = None, set()
        while chip.cycle < end:
            chip.run(to_cycle=end, until=Until.event(WRITES))
            e = chip.stop_event
            if e is None:
                break
            if e.kind is EventKind.EEPROM_START:
                start, shown = e.cycle, _shown(die, on, e.cycle)
                continue
            assert start is not None, f"a write completed at cycle {e.cycle} that never started"
            new = _lit(die, start, e.cycle) - shown
            assert not new, (
                f"LEDs {sorted(new)} lit during the write of byte {e.a}, cycles"
                f" {start - on}..{e.cycle - on} after power-on (shown: {sorted(shown)}); {context}"
            )
            start = None
        if start is not None:  # the power goes while a write is in flight
            new = _lit(die, start, chip.cycle) - shown
            assert not new, f"LEDs {sorted(new)} lit during a write cut by the power; {context}"


def check_stored_before_shown(die: Die, image: bytes, codes: Sequence[int]) -> None:
    """At the first cycle any LED lights, no write is in flight and EEPROM holds
    the model's image after the press; a power cut at that very cycle keeps it."""
    chip = die.chip
    _, after = model_of(die).press(image, codes)
    with _pressed(die, image, codes, EventKind(0)) as on:
        end = on + chip.cycles_for(FIRST_LIGHT_S)
        while not chip.leds_now() and chip.cycle < end:
            chip.run(to_cycle=end, until=Until.pin("PB0", "PB1", "PB2", "PB3"))
        context = f"image {image.hex()}, codes {list(codes)}"
        assert chip.leds_now(), f"no LED lit in {FIRST_LIGHT_S} s; {context}"
        context = f"first light {chip.cycle - on} cycles after power-on; {context}"
        in_flight = chip.eeprom_in_flight
        stored = chip.eeprom
        cut = chip.power_off()
    assert in_flight is None and cut is None, f"{context}: {in_flight}"
    assert stored == after, f"{context}: EEPROM holds {stored.hex()}, the press {after.hex()}"
    assert chip.eeprom == after, f"{context}: a power cut then left {chip.eeprom.hex()}"


# ---- property 2: no pull-up on port B ------------------------------------------------------


def pullups(changes: list[tuple[int, str, int, int]]) -> list[tuple[int, int]]:
    """(cycle, pins) of every trace state with a pulled pin that the chip does not
    drive, from pin changes as ``Trace.pin_words`` gives them (cycle, port,
    state, before). The die boards have no external resistors, so a pull is
    the internal pull-up: an input whose PORT bit is one."""
    # a port takes few states, each checked once (a 10 s charlieplexed press
    # records some 30,000 changes)
    bad = {s for s in {ch[2] for ch in changes} if (s >> PULLED) & ~(s >> DRIVEN) & 0xFF}
    return [
        (cycle, (state >> PULLED) & ~(state >> DRIVEN) & 0xFF)
        for cycle, _, state, _ in changes
        if state in bad
    ]


def check_no_pullup(die: Die, image: bytes, codes: Sequence[int], hold: float) -> None:
    """Every state port B takes during a press, slot switches of the
    charlieplexed display included, has no input with its pull-up on."""
    chip = die.chip
    with _pressed(die, image, codes, EventKind.PIN) as on:
        chip.run(seconds=hold)
        changes = chip.trace.pin_words("B")
    assert changes, "no pin change recorded: the property would be vacuous"
    bad = pullups(changes)
    assert not bad, (
        f"{len(bad)} states with a pull-up on, first {bad[0][0] - on} cycles after power-on"
        f" on pins {bad[0][1]:#04x}; image {image.hex()}, codes {list(codes)}, hold {hold}"
    )


# ---- property 3: one write per changed byte ------------------------------------------------


def check_writes_only_changes(die: Die, image: bytes, codes: Sequence[int], hold: float) -> None:
    """The writes of a press are, in order and each once, the bytes the
    model's press changes, then (on a 10 s hold) those its clear changes:
    nothing is rewritten with its own value, nothing outside the model's
    footprint is touched, each stage that had time is complete, and a power
    cut loses at most the write in flight. Under the fair rule each stage
    writes one record: one slot, seq byte first and gate last."""
    chip = die.chip
    model = model_of(die)
    face, after = model.press(image, codes)
    roll, clear = writes(image, after), writes(after, model.cleared(after))
    known = clear_is_known(model, image, after)
    if not known:  # then the clear's writes are checked as a record, not byte for byte
        note(f"the press's record is not the newest of {after.hex()}: the clear is not known")
    with _pressed(die, image, codes, EventKind.EEPROM_START):
        chip.run(seconds=hold)
        done = [(e.a, e.b, e.c & 0xFF) for e in chip.trace.events(EventKind.EEPROM_START)]
        cut = chip.power_off()
    context = (
        f"image {image.hex()}, codes {list(codes)}, hold {hold}:"
        f" writes (address, old, new) {done}, the model's {roll} then {clear}"
    )
    outside = [a for a, _, _ in done if a not in model.footprint]
    assert not outside, f"bytes {outside} outside {model.footprint} written; {context}"
    expected = roll + clear if known else roll
    assert done[: len(expected)] == expected[: len(done)], context
    rolled, cleared = done[: len(roll)], done[len(roll) :]
    if not known:  # still: the clear writes over what the press left
        assert all(old == after[a] for a, old, _ in cleared), context
    if hold >= ROLL_STORED_S:
        assert len(rolled) == len(roll), context
    if hold >= CLEAR_DONE_S and known:
        assert len(cleared) == len(clear), context
    stored = done
    if cut is not None:  # the write in flight when the power went is lost
        assert done and done[-1] == (cut.address, cut.old, cut.new), f"{cut}; {context}"
        stored = done[:-1]
    expect = bytearray(image)
    for address, _, new in stored:
        expect[address] = new
    assert chip.eeprom == bytes(expect), f"EEPROM holds {chip.eeprom.hex()}; {context}"
    if model.name == "fair":
        if face is not None:  # a press whose noise failed the health tests saves nothing
            check_one_record(rolled, complete=len(rolled) == len(roll), context=context)
        done_clearing = len(cleared) == len(clear) if known else hold >= CLEAR_DONE_S
        check_one_record(cleared, complete=done_clearing, context=context)


def check_one_record(stage: list[tuple[int, int, int]], complete: bool, context: str) -> None:
    """The fair rule's writes of one save: within one slot of the ring, in
    byte order and each once (seq byte first), ending, once complete, with the
    gate (whose phase always changes, so it is always written)."""
    if not stage:
        assert not complete, f"a save with nothing to write; {context}"
        return
    slot = stage[0][0] // RECORD
    offsets = [a - slot * RECORD for a, _, _ in stage]
    assert slot < SLOTS, f"a write past the ring, at {stage[0][0]}; {context}"
    assert offsets == sorted(set(offsets)) and offsets[-1] < RECORD, (
        f"writes at {[a for a, _, _ in stage]} are not one record in order; {context}"
    )
    if complete:
        assert offsets[-1] == RECORD - 1, f"the save did not end with the gate; {context}"


# ---- the tests -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_die(die_factory: Callable[..., Die]) -> Callable[[str], Die]:
    """One die per board for the module: each example loads its own EEPROM."""
    dies: dict[str, Die] = {}

    def get(board: str) -> Die:
        if board not in dies:
            dies[board] = die_factory(board=board)
        return dies[board]

    return get


def _settings(n: int) -> settings:
    return settings(max_examples=examples(n), deadline=None)


def _roll(die: Die, data: st.DataObject) -> Roll:
    return data.draw(rolls(model_of(die)), label="roll")


@pytest.mark.parametrize("board", BOARDS)
@_settings(20)
@given(data=st.data(), hold=holds)
def test_leds_stay_dark_while_the_roll_is_written(
    shared_die: Callable[[str], Die], board: str, data: st.DataObject, hold: float
) -> None:
    die = shared_die(board)
    check_dark_while_writing(die, *_roll(die, data), hold)


@pytest.mark.parametrize("board", BOARDS)
@_settings(25)
@given(data=st.data())
def test_the_roll_is_stored_when_the_first_led_lights(
    shared_die: Callable[[str], Die], board: str, data: st.DataObject
) -> None:
    die = shared_die(board)
    check_stored_before_shown(die, *_roll(die, data))


@needs_build(board="die-charlieplex")
def test_the_trace_records_a_pullup_alone(shared_die: Callable[[str], Die]) -> None:
    """Property 2 reads pull-ups from the trace, which records every change of the
    state word: a PORT write on an input turns the pull-up on (the wire goes from
    floating to high), and a high output turned input keeps its level under the
    pull-up. ``Until.pin`` stops on level changes only and would miss the second."""
    die = shared_die("die-charlieplex")
    chip = die.chip
    with _pressed(die, *model_of(die).forcing(1), EventKind.PIN):
        assert chip.read_io("DDRB") == 0 and chip.read_io("PORTB") == 0
        chip.write_io("PORTB", 0x04)  # PB2, an input: its pull-up alone
        chip.write_io("PORTB", 0)
        chip.write_io("DDRB", 0x08)
        chip.write_io("PORTB", 0x08)  # PB3, a high output
        chip.write_io("DDRB", 0)  # PB3 an input, still high: the pull-up holds it
        changes = chip.pin_changes("B")
        words = chip.trace.pin_words("B")
    assert [pins for _, pins in pullups(words)] == [0x04, 0x08]
    last = changes[-1]
    assert last.high(3) and (last.before >> 3) & 1  # the wire level did not change


@pytest.mark.parametrize("board", BOARDS)
@_settings(15)
@given(data=st.data(), hold=holds)
def test_no_pin_is_ever_a_pulled_up_input(
    shared_die: Callable[[str], Die], board: str, data: st.DataObject, hold: float
) -> None:
    die = shared_die(board)
    check_no_pullup(die, *_roll(die, data), hold)


@pytest.mark.parametrize("board", BOARDS)
@_settings(40)
@given(data=st.data(), hold=holds)
def test_each_press_writes_only_the_counters_that_change(
    shared_die: Callable[[str], Die], board: str, data: st.DataObject, hold: float
) -> None:
    die = shared_die(board)
    check_writes_only_changes(die, *_roll(die, data), hold)
