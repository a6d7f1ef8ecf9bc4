"""The game's power-down and its display.

- Sleep: after 30 s with no press the display goes off and the CPU powers
  down (the engine's sleep mode, SM bits honoured), and no interrupt runs
  between the SLEEP and the wake (the trace's IRQ events): Timer0 stopped
  with the clock. GO wakes it with the position intact, silently (the
  waking press is no GO of the game), and play goes on.
- Display: every lit cell is refreshed about once a millisecond (its LED's
  on-edges on the pins), and no unlit LED glows (``Game.ghosts``).
"""

from __future__ import annotations

from itertools import pairwise
from statistics import mean
from typing import TYPE_CHECKING

import pytest

from fairdie.sim import EventKind, parse_pin, sleep_mode_name
from fairdie.subjects.silver_dollar._solver import Move, cells, format_position, legal_moves
from fairdie.subjects.silver_dollar.suite._support import CLICK, Factory, Measured, starts

if TYPE_CHECKING:
    from fairdie.subjects.silver_dollar._game import Game

pytestmark = pytest.mark.sim

IDLE_S = 30.0
#: the firmware may count its 30 s in frames: asleep by this much later
IDLE_SLACK_S = 0.5
REFRESH_S = 0.001
#: how far a cell's refresh period may be from REFRESH_S
REFRESH_TOLERANCE = 0.05
WATCH_S = 0.05


def test_after_30_s_idle_it_powers_down_until_go_wakes_it_intact(
    game_factory: Factory, fairdie_seed: int, measured: Measured
) -> None:
    ((game, start),) = starts(game_factory, 1, fairdie_seed)
    chip = game.chip
    kinds = chip.trace_kinds
    chip.trace_kinds = EventKind(0)  # nothing to watch in the idle wait: a short trace
    chip.run(seconds=IDLE_S - IDLE_SLACK_S)
    chip.trace_kinds = kinds | EventKind.SLEEP | EventKind.WAKE | EventKind.IRQ
    assert chip.sleep_mode != "power-down", "asleep before 30 s without a press"
    assert game.position() == start
    mark = chip.trace.mark()
    chip.run(seconds=2 * IDLE_SLACK_S)
    assert chip.sleeping and chip.sleep_mode == "power-down", (
        f"{IDLE_S + IDLE_SLACK_S:g} s without a press: the CPU is"
        f" {'asleep' if chip.sleeping else 'awake'}, sleep mode {chip.sleep_mode}"
    )
    assert game.lit() == frozenset(), f"asleep with {sorted(game.lit())} lit"
    waking = chip.trace.mark()
    game.tap("go")
    kinds = EventKind.SLEEP | EventKind.WAKE | EventKind.IRQ
    events = list(chip.trace.events(kinds, mark))
    down = next(
        i
        for i, e in enumerate(events)
        if e.kind == EventKind.SLEEP and e.b and sleep_mode_name(chip.mcu, e.b - 1) == "power-down"
    )
    woke = next(i for i, e in enumerate(events) if i > down and e.kind == EventKind.WAKE)
    asleep = [e.a for e in events[down + 1 : woke] if e.kind == EventKind.IRQ]
    assert not asleep, f"{len(asleep)} interrupts while powered down, vectors {sorted(set(asleep))}"
    measured("powered_down_s", f"{(events[woke].cycle - events[down].cycle) / chip.frequency:.3f}")
    chip.run(seconds=0.05)
    assert game.position() == start, f"woke showing {format_position(game.position())}"
    # the waking press is no GO of the game (which, before a step, would beep)
    assert game.notes(waking) == [], f"the waking GO sounded {game.notes(waking)}"
    # and the game goes on: a step clicks
    cell = next(c for c in cells(start) if Move(c, c - 1) in legal_moves(start))
    mark = chip.trace.mark()
    game.tap(str(cells(start).index(cell) + 1))
    notes = game.notes(mark)
    assert [n.name for n in notes] == [name for name, _ in CLICK], f"after the wake: {notes}"


def _on_edges(game: Game, led: str, since: int) -> list[int]:
    """The cycles at which ``led`` turned on: its anode driven high and its
    cathode driven low (from the trace's pin changes)."""
    part = next(x for x in game.board.leds if x.name == led)
    (port, anode), (cathode_port, cathode) = parse_pin(part.anode), parse_pin(part.cathode)
    assert port == cathode_port, f"LED {led}: anode and cathode on two ports"

    def on(state: int) -> bool:
        driven = state >> 8
        return bool(driven >> anode & 1 and state >> anode & 1) and bool(
            driven >> cathode & 1 and not state >> cathode & 1
        )

    changes = game.chip.trace.pin_changes(port, since)
    return [c.cycle for c in changes if on(c.state) and not on(c.before)]


def test_each_lit_cell_is_refreshed_at_about_1_khz_and_no_other_glows(
    game_factory: Factory, fairdie_seed: int, measured: Measured
) -> None:
    for game, start in starts(game_factory, 2, fairdie_seed):
        mark = game.chip.trace.mark()
        periods = []
        for _ in range(int(WATCH_S / 0.005)):
            game.chip.run(seconds=0.005)
            assert game.ghosts() == frozenset(), (
                f"showing {format_position(start)}, {sorted(game.ghosts())} glow too"
            )
        for cell in cells(start):
            edges = _on_edges(game, f"c{cell}", mark)
            gaps = [(b - a) / game.chip.frequency for a, b in pairwise(edges)]
            assert gaps, f"cell {cell} never lit in {WATCH_S} s"
            worst = max(gaps, key=lambda g: abs(g - REFRESH_S))
            assert abs(worst - REFRESH_S) <= REFRESH_TOLERANCE * REFRESH_S, (
                f"cell {cell}: lit again after {worst * 1e3:.3f} ms (refresh ~{REFRESH_S * 1e3} ms)"
            )
            periods.extend(gaps)
        measured("refresh_hz", f"{1 / mean(periods):.1f}")
