"""Our die's hygiene: what its LEDs, pins and EEPROM must never do, on both boards.

Three properties, each a plain function of a die (so it can be run against any
build, such as a hand-made mutant), checked here by Hypothesis over counter
tables, ADC codes and holds:

- no LED lights for a table that is not stored yet: the LEDs are dark while
  the roll's EEPROM writes are in flight (and no write lights an LED that was
  not already shown), and at the first cycle any LED lights the roll is
  stored, so a power cut right then keeps it;
- no pin of port B is ever an input with its pull-up on (the Timer0 ISR of the
  charlieplexed build promises this for every slot switch);
- each press writes exactly the counters that change, each once: first the
  roll's (the reference model's table), then on a 10 s hold the clear's.

Stimuli go through the chip (EEPROM, ADC source, trace), so only ``Die``'s
board wiring, LED model and ``power_on`` are relied on. The dice come from the
plugin's factory: a firmware given to the plugin is the one checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdie.die import CLEARED
from fairdie.die import press as reference_press
from fairdie.noise import mv_for_code
from fairdie.noise.strategies import adc_codes, counters
from fairdie.sim import EventKind, PinChange, Until

if TYPE_CHECKING:
    from fairdie.die import Die

pytestmark = [pytest.mark.sim, pytest.mark.usefixtures("needs_the_table")]

BOARDS = ["die-direct", "die-charlieplex"]
NOISE_CHANNEL = 2  # ADC2 on PB4 (pins.h)
COUNTERS = 6  # EEPROM bytes 0..5
PERSISTENCE_S = 0.020  # the boards' persistence window
VISIBLE = 0.02  # an eye sees an LED lit this fraction of it (the board model's floor)
FIRST_LIGHT_S = 0.1  # a face lights well within this after power-on (six writes: 20.4 ms)
PULLED = 24  # state word: byte 3, a pull holds the pin (see PinChange)
DRIVEN = 8  # state word: byte 1, the chip drives the pin
WRITES = EventKind.EEPROM_START | EventKind.EEPROM_DONE

# Holds: cut during the roll's writes, after the face showed, and around the
# clear at 9.92 s (its six writes end before 10.0 s).
holds = st.one_of(
    st.floats(0.001, 0.03), st.floats(0.03, 0.08), st.floats(9.92, 10.05), st.just(10.05)
)


@st.composite
def _rebasing(draw: st.DrawFn) -> tuple[tuple[int, ...], int]:
    """A table and a code whose roll rebases: the chosen candidate (order position
    0, 2 or 4) is at 255, so are all the faces after it in the order."""
    table = list(draw(counters(edges=True)))
    k = draw(st.sampled_from((0, 2, 4)))
    order = sorted(range(COUNTERS), key=lambda f: (table[f], f))
    for f in order[k:]:
        table[f] = 255
    return tuple(table), 3 * draw(st.integers(0, 340)) + k // 2


# (table, code): any, or one that rebases (a roll that writes several counters)
rolls = st.one_of(st.tuples(counters(edges=True), adc_codes()), _rebasing())


# ---- stimulus through the chip ------------------------------------------------------------


@contextmanager
def _pressed(die: Die, table: tuple[int, ...], code: int, kinds: EventKind) -> Iterator[int]:
    """Load the table and the noise, switch on, trace ``kinds``; yields the power-on
    cycle and lets go of the switch at the end (also when a check fails)."""
    chip = die.chip
    chip.write_eeprom(0, bytes(table))
    chip.set_adc(NOISE_CHANNEL, mv_for_code(code, chip.vcc_mv))
    die.power_on()
    chip.trace_kinds = kinds
    try:
        yield chip.cycle
    finally:
        if chip.powered:
            chip.power_off()


def _counts(die: Die) -> tuple[int, ...]:
    return tuple(die.chip.read_eeprom(0, COUNTERS))


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


def check_dark_while_writing(die: Die, table: tuple[int, ...], code: int, hold: float) -> None:
    """While an EEPROM write is in flight no LED lights that an eye did not
    already see when it started. Nothing is shown before the roll's writes, so
    they must run in the dark; the clear's may keep showing the old face."""
    chip = die.chip
    with _pressed(die, table, code, WRITES) as on:
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
                f" {start - on}..{e.cycle - on} after power-on (shown: {sorted(shown)});"
                f" table {table}, code {code}, hold {hold}"
            )
            start = None
        if start is not None:  # the power goes while a write is in flight
            new = _lit(die, start, chip.cycle) - shown
            assert not new, f"LEDs {sorted(new)} lit during a write cut by the power"


def check_stored_before_shown(die: Die, table: tuple[int, ...], code: int) -> None:
    """At the first cycle any LED lights, no write is in flight and EEPROM holds
    the roll's table; a power cut at that very cycle keeps it."""
    chip = die.chip
    _, model = reference_press(table, code)
    with _pressed(die, table, code, EventKind(0)) as on:
        end = on + chip.cycles_for(FIRST_LIGHT_S)
        while not chip.leds_now() and chip.cycle < end:
            chip.run(to_cycle=end, until=Until.pin("PB0", "PB1", "PB2", "PB3"))
        assert chip.leds_now(), f"no LED lit in {FIRST_LIGHT_S} s; table {table}, code {code}"
        at = chip.cycle - on
        in_flight = chip.eeprom_in_flight
        stored = _counts(die)
        cut = chip.power_off()
    context = f"first light {at} cycles after power-on; table {table}, code {code}"
    assert in_flight is None and cut is None, f"{context}: {in_flight}"
    assert stored == model, f"{context}: EEPROM holds {stored}, the roll is {model}"
    assert _counts(die) == model, f"{context}: a power cut then left {_counts(die)}"


# ---- property 2: no pull-up on port B ------------------------------------------------------


def pullups(changes: list[PinChange]) -> list[tuple[int, int]]:
    """(cycle, pins) of every trace state with a pulled pin that the chip does not
    drive. The die boards have no external resistors, so a pull is the internal
    pull-up: an input whose PORT bit is one."""
    found = []
    for ch in changes:
        pins = (ch.state >> PULLED) & ~(ch.state >> DRIVEN) & 0xFF
        if pins:
            found.append((ch.cycle, pins))
    return found


def check_no_pullup(die: Die, table: tuple[int, ...], code: int, hold: float) -> None:
    """Every state port B takes during a press, slot switches of the
    charlieplexed display included, has no input with its pull-up on."""
    chip = die.chip
    with _pressed(die, table, code, EventKind.PIN) as on:
        chip.run(seconds=hold)
        changes = chip.pin_changes("B")
    assert changes, "no pin change recorded: the property would be vacuous"
    bad = pullups(changes)
    assert not bad, (
        f"{len(bad)} states with a pull-up on, first {bad[0][0] - on} cycles after power-on"
        f" on pins {bad[0][1]:#04x}; table {table}, code {code}, hold {hold}"
    )


# ---- property 3: one write per changed counter ---------------------------------------------


def check_writes_only_changes(die: Die, table: tuple[int, ...], code: int, hold: float) -> None:
    """The writes of a press are the roll's changed counters, each once, then (on
    a 10 s hold) the clear's changed counters, each once: nothing is rewritten
    with its own value, no byte past the counters is touched, and once a stage
    is stored it took exactly as many writes as counters it changed."""
    chip = die.chip
    _, model = reference_press(table, code)
    with _pressed(die, table, code, EventKind.EEPROM_START):
        chip.run(seconds=hold)
        writes = [(e.a, e.b, e.c & 0xFF) for e in chip.trace.events(EventKind.EEPROM_START)]
    after = _counts(die)
    context = f"table {table}, code {code}, hold {hold}: writes (address, old, new) {writes}"
    for address, old, new in writes:
        assert address < COUNTERS and old != new, context
    roll = {(i, m) for i, (t, m) in enumerate(zip(table, model, strict=True)) if t != m}
    clear = {(i, 0) for i, m in enumerate(model) if m != 0}
    done = [(a, new) for a, _, new in writes]
    rolled, cleared = done[: len(roll)], done[len(roll) :]
    assert len(set(rolled)) == len(rolled) and set(rolled) <= roll, context
    if cleared:  # the clear starts once the roll is stored
        assert set(rolled) == roll, context
        assert len(set(cleared)) == len(cleared) and set(cleared) <= clear, context
    differ = sum(a != b for a, b in zip(table, after, strict=True))
    if after == model and not cleared:  # the press ended between the roll and the clear
        assert len(writes) == differ, context
    if cleared and after == CLEARED:  # the press ended after the clear
        assert len(writes) == len(roll) + len(clear), context


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
    return settings(max_examples=n, deadline=None)


@pytest.mark.parametrize("board", BOARDS)
@_settings(12)
@given(roll=rolls, hold=holds)
def test_leds_stay_dark_while_the_roll_is_written(
    shared_die: Callable[[str], Die], board: str, roll: tuple[tuple[int, ...], int], hold: float
) -> None:
    check_dark_while_writing(shared_die(board), *roll, hold)


@pytest.mark.parametrize("board", BOARDS)
@_settings(15)
@given(roll=rolls)
def test_the_roll_is_stored_when_the_first_led_lights(
    shared_die: Callable[[str], Die], board: str, roll: tuple[tuple[int, ...], int]
) -> None:
    check_stored_before_shown(shared_die(board), *roll)


def test_the_trace_records_a_pullup_alone(shared_die: Callable[[str], Die]) -> None:
    """Property 2 reads pull-ups from the trace, which records every change of the
    state word: a PORT write on an input turns the pull-up on (the wire goes from
    floating to high), and a high output turned input keeps its level under the
    pull-up. ``Until.pin`` stops on level changes only and would miss the second."""
    die = shared_die("die-charlieplex")
    chip = die.chip
    with _pressed(die, CLEARED, 0, EventKind.PIN):
        assert chip.read_io("DDRB") == 0 and chip.read_io("PORTB") == 0
        chip.write_io("PORTB", 0x04)  # PB2, an input: its pull-up alone
        chip.write_io("PORTB", 0)
        chip.write_io("DDRB", 0x08)
        chip.write_io("PORTB", 0x08)  # PB3, a high output
        chip.write_io("DDRB", 0)  # PB3 an input, still high: the pull-up holds it
        changes = chip.pin_changes("B")
    assert [pins for _, pins in pullups(changes)] == [0x04, 0x08]
    last = changes[-1]
    assert last.high(3) and (last.before >> 3) & 1  # the wire level did not change


@pytest.mark.parametrize("board", BOARDS)
@_settings(10)
@given(roll=rolls, hold=holds)
def test_no_pin_is_ever_a_pulled_up_input(
    shared_die: Callable[[str], Die], board: str, roll: tuple[tuple[int, ...], int], hold: float
) -> None:
    check_no_pullup(shared_die(board), *roll, hold)


@pytest.mark.parametrize("board", BOARDS)
@_settings(15)
@given(roll=rolls, hold=holds)
def test_each_press_writes_only_the_counters_that_change(
    shared_die: Callable[[str], Die], board: str, roll: tuple[tuple[int, ...], int], hold: float
) -> None:
    check_writes_only_changes(shared_die(board), *roll, hold)
