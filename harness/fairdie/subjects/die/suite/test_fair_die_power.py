"""Our die's power state in every phase, read from the engine's sleep, wake,
interrupt and ADC events and from the chip's registers.

A die runs from a coin cell, so what runs while it waits is part of what it
must do. The sleep mode follows the board's LED drive (main.c): a direct-drive
die sleeps in power-down (its outputs keep their levels); a charlieplexed die
must keep Timer0 multiplexing, so it sleeps in idle.

- While a face shows, and while the fault shows: the CPU sleeps in that mode,
  woken only by the watchdog (which must run: the clear is timed by it) and,
  on a charlieplexed die, Timer0; the ADC is off and converts no more.
- Once the 10 s clear has lit every LED: the watchdog is off and nothing wakes
  the CPU again but what the display needs. A direct-drive die powers down
  with interrupts off and no timer running, and never wakes; a charlieplexed
  die idles, woken by Timer0 alone. The ADC stays off and EEPROM is not
  written again.

These test our firmware (die_t13a's builds on our boards, the seed's build
on die-seed, or a build given for a board wired as one of them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

from fairdie.noise import Codes
from fairdie.sim import Event, EventKind, Until, sleep_mode_name
from fairdie.subjects.die._models import HEALTHY_CODES
from fairdie.subjects.die.suite._support import BOARDS, model_of

if TYPE_CHECKING:
    from fairdie.subjects.die import Die

pytestmark = pytest.mark.sim

#: every build of ours, the seed's included
POWER_BOARDS = (*BOARDS, "die-seed")
NOISE_CHANNEL = 2  # ADC2 on PB4 (pins.h)
#: the ATtiny13A's vectors (avr-libc's iotn13a.h)
TIM0_COMPA, WDT = 6, 8
WATCH_S = 1.0  # watched while a face (or the fault) shows
FIRST_LIGHT_S = 0.1  # a face lights well within this of power-on
CLEARED_S = 10.2  # the clear (due at 9.92 s, 10.0 at the latest) has lit every LED
AFTER_CLEAR_S = 2.0  # watched after the clear
#: the watchdog's 64 ms ticks in WATCH_S, with room for the first
TICKS = int(WATCH_S / 0.064) - 1
#: at most this fraction of the time awake while a face shows: a direct-drive
#: die wakes only for its 64 ms ticks (measured 0.05%), a charlieplexed one
#: also runs its Timer0 ISR 1,500 times a second (measured 10%)
MOST_AWAKE = {False: 0.01, True: 0.15}
WDTIE, WDE = 0x40, 0x08  # WDTCR
ADEN = 0x80  # ADCSRA
CS0 = 0x07  # TCCR0B: Timer0's clock select
I_FLAG = 0x80  # SREG
KINDS = (
    EventKind.SLEEP
    | EventKind.WAKE
    | EventKind.IRQ
    | EventKind.ADC
    | EventKind.EEPROM_START
    | EventKind.RESET
)


def multiplexed(die: Die) -> bool:
    return die.board.led_drive == "charlieplex"


def expected_mode(die: Die) -> str:
    return "idle" if multiplexed(die) else "power-down"


@pytest.fixture
def make_die(die_factory: Callable[..., Die]) -> Callable[[str], Die]:
    def make(board: str) -> Die:
        die = die_factory(board=board)  # noise: powered() sets its codes
        model_of(die)  # skips a die that follows no model of ours
        return die

    return make


@contextmanager
def powered(die: Die, codes: tuple[int, ...]) -> Iterator[int]:
    """Power the die on from an erased chip with ``codes`` as its noise; run
    to the first cycle any LED lights (failing if none does); yield that
    cycle, tracing KINDS from then on, and power off at the end."""
    chip = die.chip
    chip.erase_eeprom()
    chip.set_adc(NOISE_CHANNEL, Codes(codes, chip.vcc_mv))
    die.power_on()
    chip.trace_kinds = EventKind(0)
    try:
        end = chip.cycle + chip.cycles_for(FIRST_LIGHT_S)
        while not chip.leds_now() and chip.cycle < end:
            chip.run(to_cycle=end, until=Until.pin("PB0", "PB1", "PB2", "PB3"))
        assert chip.leds_now(), f"no LED lit within {FIRST_LIGHT_S} s of power-on"
        chip.trace_kinds = KINDS
        yield chip.cycle
    finally:
        if chip.powered:
            chip.power_off()


def events(die: Die, since: int, kinds: EventKind = KINDS) -> list[Event]:
    return [e for e in die.chip.trace.events(kinds) if e.cycle >= since]


def asleep(die: Die) -> str | None:
    """The sleep mode once the CPU next sleeps (a run may end inside an
    interrupt), or None if it stays awake for a millisecond."""
    chip = die.chip
    if not chip.sleeping:
        end = chip.cycle + chip.cycles_for(0.001)
        chip.run(to_cycle=end, until=Until.event(EventKind.SLEEP))
    return chip.sleep_mode if chip.sleeping else None


def mode_of(die: Die, e: Event) -> str:
    return sleep_mode_name(die.chip.mcu, e.b - 1) if e.b else "unknown"


def awake_fraction(die: Die, since: int, end: int) -> float:
    """The fraction of ``[since, end)`` the CPU spent awake, from SLEEP and WAKE
    events (awake at ``since``: the first light is lit by a running CPU)."""
    awake = 0
    woke_at: int | None = since
    for e in events(die, since, EventKind.SLEEP | EventKind.WAKE):
        if e.kind is EventKind.SLEEP and woke_at is not None:
            awake, woke_at = awake + e.cycle - woke_at, None
        elif e.kind is EventKind.WAKE and woke_at is None:
            woke_at = e.cycle
    if woke_at is not None:
        awake += end - woke_at
    return awake / max(1, end - since)


def check_waiting(die: Die, lit: int, what: str) -> None:
    """From ``lit`` (the first light) over WATCH_S: asleep in the board's mode
    with the watchdog running, woken by nothing but the watchdog (and Timer0
    when multiplexed), the ADC off, EEPROM not written, Timer0 running only
    when multiplexed."""
    chip = die.chip
    chip.run(seconds=WATCH_S)
    end, mode = chip.cycle, expected_mode(die)
    seen = events(die, lit)
    sleeps = [e for e in seen if e.kind is EventKind.SLEEP]
    assert sleeps, f"{what}: the CPU never slept in {WATCH_S} s"
    modes = {mode_of(die, e) for e in sleeps}
    assert modes == {mode}, f"{what}: slept in {sorted(modes)}, not {mode} ({die.board.name})"
    assert all(e.c for e in sleeps), f"{what}: asleep with the watchdog off: the clear never comes"
    now = asleep(die)
    assert now == mode, f"{what}: {'awake' if now is None else 'asleep in ' + now} at the end"
    wakers = {TIM0_COMPA, WDT} if multiplexed(die) else {WDT}
    vectors = [e.a for e in seen if e.kind is EventKind.IRQ]
    assert set(vectors) <= wakers, f"{what}: interrupts {sorted(set(vectors) - wakers)} ran"
    ticks = vectors.count(WDT)
    assert ticks >= TICKS, f"{what}: {ticks} watchdog ticks in {WATCH_S} s, not {TICKS}+"
    others = [e for e in seen if e.kind in (EventKind.ADC, EventKind.EEPROM_START, EventKind.RESET)]
    assert not others, f"{what}: {others[0]} while waiting"
    assert not chip.read_io("ADCSRA") & ADEN, f"{what}: the ADC is left on"
    running = bool(chip.read_io("TCCR0B") & CS0)
    assert running == multiplexed(die), f"{what}: Timer0 {'runs' if running else 'stopped'}"
    fraction = awake_fraction(die, lit, end)
    assert fraction <= MOST_AWAKE[multiplexed(die)], f"{what}: awake {fraction:.1%} of the time"


@pytest.mark.parametrize("board", POWER_BOARDS)
def test_while_a_face_shows_it_sleeps_woken_only_by_what_it_needs(
    make_die: Callable[[str], Die], board: str
) -> None:
    die = make_die(board)
    with powered(die, HEALTHY_CODES) as lit:
        check_waiting(die, lit, "a face shown")
        assert die.display().isdigit(), f"showing {die.display()!r}, not a face"


@pytest.mark.parametrize("board", POWER_BOARDS)
def test_while_the_fault_shows_it_sleeps_woken_only_by_what_it_needs(
    make_die: Callable[[str], Die], board: str
) -> None:
    die = make_die(board)
    stuck = (512,) * model_of(die).reads
    if model_of(die).press(bytes(64), stuck)[0] is not None:
        pytest.skip(f"the {model_of(die).name} rule has no health tests: it shows no fault")
    with powered(die, stuck) as lit:
        check_waiting(die, lit, "the fault shown")
        assert die.display() == "fault", f"a stuck pin shows {die.display()!r}"


@pytest.mark.parametrize("board", POWER_BOARDS)
def test_once_the_clear_has_lit_every_led_nothing_else_runs(
    make_die: Callable[[str], Die], board: str
) -> None:
    die = make_die(board)
    chip = die.chip
    with powered(die, HEALTHY_CODES) as lit:
        chip.trace_kinds = EventKind(0)  # nothing to watch in the wait: a short trace
        chip.run(to_cycle=lit + chip.cycles_for(CLEARED_S - FIRST_LIGHT_S))
        assert die.display() == "all", f"{CLEARED_S} s after power-on: {die.display()!r}"
        chip.trace_kinds = KINDS
        start = chip.cycle
        chip.run(seconds=AFTER_CLEAR_S)
        seen = events(die, start)
        assert die.display() == "all", f"after the clear the display went {die.display()!r}"
        assert not chip.read_io("WDTCR") & (WDTIE | WDE), "the watchdog runs on after the clear"
        assert not chip.read_io("ADCSRA") & ADEN, "the ADC is left on after the clear"
        others = [e for e in seen if e.kind in (EventKind.ADC, EventKind.EEPROM_START)]
        assert not others, f"after the clear: {others[0]}"
        now = asleep(die)
        assert now == expected_mode(die), (
            f"after the clear: {'awake' if now is None else 'asleep in ' + now},"
            f" not in {expected_mode(die)}"
        )
        vectors = {e.a for e in seen if e.kind is EventKind.IRQ}
        if multiplexed(die):  # Timer0 multiplexes the LEDs, and nothing else runs
            assert vectors == {TIM0_COMPA}, f"after the clear: interrupts {sorted(vectors)}"
            assert chip.read_io("TCCR0B") & CS0, "Timer0 stopped: the LEDs went dark"
            return
        assert not vectors, f"after the clear: interrupts {sorted(vectors)} ran"
        wakes = [e for e in seen if e.kind in (EventKind.WAKE, EventKind.SLEEP)]
        assert not wakes, f"after the clear the CPU woke: {wakes[0]}"
        assert not chip.read_io("TCCR0B") & CS0, "Timer0 runs after the clear"
        assert not chip.read_io("SREG") & I_FLAG, "interrupts are on: something may wake it"
