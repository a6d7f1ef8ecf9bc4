"""The Silver Dollar Game as a device: its position read off the strip, its
moves made through the buttons, its replies and tunes read back.

Everything is read the way a person would: the position is the set of lit
cells an eye sees (the board's display ``strip``, whose 792 symbols are the
positions), a move is one press of the dollar's button per cell and then GO,
and a reply is the next steady position. Where the firmware names its
variable ``sdg_pos`` (an ELF), :meth:`Game.ghosts` also compares the lit
cells with the position the device holds, so a wrong LED table or a glowing
cell is caught even when the lit set happens to be a position.

Positions and moves are the solver's (:mod:`._solver`): a position is a
12-bit mask, a :class:`~._solver.Move` a dollar's source and destination.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from fairdie.device import Device, steady_symbol
from fairdie.errors import FairdieError
from fairdie.subjects.silver_dollar._solver import (
    CELLS,
    DOLLARS,
    Move,
    Position,
    PositionError,
    button,
    cells,
    format_position,
    from_cells,
    legal_moves,
    move_between,
    parse_position,
)

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.device import Setup
    from fairdie.sim import Chip

__all__ = [
    "DISPLAY",
    "GAP_S",
    "HOLD_S",
    "MARKER",
    "NOTE_MIN_HZ",
    "NOTE_NAMES",
    "Game",
    "GhostError",
    "Note",
    "device_for",
    "is_game_board",
    "note_named",
]

#: the board's display of positions
DISPLAY = "strip"
#: the dollar buttons, leftmost dollar first, and GO
BUTTONS = ("1", "2", "3", "4", "5")
GO = "go"
#: a press is held this long, and the next comes this long after the release:
#: well over the firmware's debounce (8 frames of 1 ms) and the board's bounce
HOLD_S = 0.03
GAP_S = 0.03
#: how often a wait looks at the strip (seconds of emulated time)
_POLL_S = 0.005
#: the test-position build's EEPROM marker: magic, cell mask, 32 bits of chance
MARKER = struct.Struct("<BHI")
MAGIC = 0x5D
#: Timer1's prescaler: a note's frequency is F_CPU / (2 * PRESCALER * (OCR1A + 1))
PRESCALER = 64
#: the octave the game plays, with equal-tempered pitches (A5 = 880 Hz)
NOTE_NAMES = ("C5", "D5", "E5", "F5", "G5", "A5", "B5")
_SEMITONES = (-9, -7, -5, -4, -2, 0, 2)  # from A5
#: a gap in the speaker's edges longer than a period of this is silence
#: (the game's lowest note, C5, is 523 Hz)
NOTE_MIN_HZ = 200.0
_PITCHES = {n: 880.0 * 2 ** (s / 12) for n, s in zip(NOTE_NAMES, _SEMITONES, strict=True)}
#: the variable in which the firmware keeps the dollars' cells, leftmost first
POSITION_SYMBOL = "sdg_pos"
#: the variable that holds the firmware's state, and its value before a game
STATE_SYMBOL = "sdg_state"
ST_IDLE = 0
#: light over this span (two refreshes of the strip) outside the position
#: the device holds is a ghost
RECENT_S = 0.002


class Note(NamedTuple):
    """A tone of the speaker as a note of the game's octave."""

    name: str  #: "C5".."B5", or "" when no note of the octave is within a timer step
    hz: float
    seconds: float


class GhostError(FairdieError):
    """A lit LED that no position explains (ghosting, or a wrong LED table)."""


def note_named(hz: float, f_cpu: int) -> str:
    """The note of C5..B5 whose pitch ``hz`` is within one Timer1 step of
    (a step of OCR1A at ``f_cpu`` and the /64 prescaler), else ""."""
    for name, pitch in _PITCHES.items():
        n = f_cpu / (2 * PRESCALER * pitch)  # OCR1A + 1 for the exact pitch
        step = f_cpu / (2 * PRESCALER * n * (n + 1))
        if abs(hz - pitch) <= step:
            return name
    return ""


def is_game_board(board: Board) -> bool:
    """Whether ``board`` is one the game runs on: a display ``strip`` of the
    12 LEDs c12..c1, buttons 1..5 and go."""
    try:
        strip = board.display(DISPLAY)
    except KeyError:
        return False
    names = {b.name for b in board.buttons}
    return set(strip.leds) == {f"c{c}" for c in range(1, CELLS + 1)} and names >= {
        *BUTTONS,
        GO,
    }


class Game(Device):
    """The Silver Dollar Game on its board (boards/silver-dollar.toml).

    >>> game = Setup.make(board="silver-dollar").device()   # doctest: +SKIP
    >>> pos = game.start(); game.move(winning_moves(pos)[0])  # doctest: +SKIP
    """

    def __init__(self, chip: Chip, board: Board, *, seed: int = 0) -> None:
        if not is_game_board(board):
            raise FairdieError(
                f"board {board.name} is no Silver Dollar Game: it needs a display"
                f" {DISPLAY!r} of the LEDs c12..c1 and buttons 1..5 and go"
            )
        super().__init__(chip, board, seed=seed)
        self.strip = self.find_display(DISPLAY)
        self._cell_of = {f"c{c}": c for c in range(1, CELLS + 1)}
        symbol = chip.firmware.symbols.get(POSITION_SYMBOL)
        #: the address of the firmware's ``sdg_pos`` (None: a HEX, or another firmware)
        self.position_address: int | None = (
            symbol.address if symbol is not None and symbol.size == DOLLARS else None
        )

    # ---- reading ----------------------------------------------------------------

    def position(self) -> Position:
        """The position the strip shows now, read from the LEDs.

        A dark strip, or fewer than five lit cells (the idle light), is a
        :class:`FairdieError`. A :class:`GhostError` names the LEDs lit beyond
        the position: more than five lit, or any glow :meth:`ghosts` finds.
        """
        lit = self.lit() & set(self.strip.leds)
        shown = self.strip.decode(lit)
        if shown == "off":
            raise FairdieError("the strip is dark: no position shown")
        if len(lit) < DOLLARS:
            raise FairdieError(f"the strip shows no position: {_names(lit)} lit (the idle light?)")
        ghosts = self.ghosts()
        if ghosts or len(lit) > DOLLARS:
            held = self.held()
            dark = _names(self._leds(held) - lit) if held is not None else "none"
            holds = (
                ""
                if held is None
                else f" (the device holds {format_position(held)}"
                + (f"; {dark} dark)" if dark != "none" else ")")
            )
            raise GhostError(
                f"{len(lit)} cells lit ({_names(lit)}): {_names(ghosts or self._extra(lit))}"
                f" lit beyond the position{holds}"
            )
        return parse_position(shown)

    def held(self) -> Position | None:
        """The position the device holds in its ``sdg_pos`` (None: the firmware
        does not name it, or it holds no position, as before the first game)."""
        if self.position_address is None:
            return None
        try:
            return from_cells(self.chip.read_data(self.position_address, DOLLARS))
        except PositionError:
            return None

    def ghosts(self) -> frozenset[str]:
        """The strip's LEDs lit beyond what the position explains (empty when
        the strip is clean, dark or shows the idle light).

        Where the firmware names ``sdg_pos`` and a game is on, the position is
        the one the device holds, and every LED with any light over the last
        :data:`RECENT_S` (two refreshes) outside it is a ghost: a wrong LED
        table shows up even when the lit cells happen to be a position. Else
        the position is the five brightest cells, and any other cell with
        light over the persistence window is a ghost.
        """
        held = self.held() if self._state() != ST_IDLE else None
        if held is not None:
            return self._glowing(RECENT_S) - self._leds(held)
        if len(self.lit() & set(self.strip.leds)) < DOLLARS:
            return frozenset()
        return self._extra(self._glowing())

    def _counts(self, seconds: float | None = None) -> dict[str, int]:
        """The strip's LEDs' lit cycles over the last ``seconds`` (default:
        the persistence window), counted from the last power-on."""
        end = self.chip.cycle
        span = self.window if seconds is None else self.chip.cycles_for(seconds)
        start = max(self.chip.power_on_cycle, end - span)
        if end <= start or not self.chip.powered:
            return {}
        counts = self.chip.leds_lit_cycles(start, end)
        strip = set(self.strip.leds)
        return {n: c for n, c in zip(self.leds.names, counts, strict=True) if n in strip}

    def _glowing(self, seconds: float | None = None) -> frozenset[str]:
        return frozenset(n for n, c in self._counts(seconds).items() if c > 0)

    def _extra(self, lit: frozenset[str]) -> frozenset[str]:
        """The LEDs of ``lit`` beyond the five brightest (ties: leftmost first)."""
        counts = self._counts()
        ranked = sorted(lit, key=lambda n: (-counts.get(n, 0), -self._cell_of[n]))
        return frozenset(ranked[DOLLARS:])

    def _state(self) -> int | None:
        """The firmware's ``sdg_state`` (0: idle), if it names it."""
        symbol = self.chip.firmware.symbols.get(STATE_SYMBOL)
        return None if symbol is None else self.chip.read_data(symbol.address)[0]

    @staticmethod
    def _leds(pos: Position) -> frozenset[str]:
        return frozenset(f"c{c}" for c in cells(pos))

    def shown(self) -> Position | None:
        """The position the strip shows steadily now (the last two persistence
        windows agree), else None."""
        symbol = steady_symbol(self, self.strip)
        if symbol in ("off", "invalid"):
            return None
        return parse_position(symbol)

    def _wait_shown(self, timeout_s: float, done: Callable[[Position], bool]) -> Position | None:
        """Run until a steady position satisfies ``done``; None at the timeout."""
        end = self.chip.cycle + self.chip.cycles_for(timeout_s)
        step = self.chip.cycles_for(_POLL_S)
        while self.chip.cycle < end:
            self.chip.run(min(step, end - self.chip.cycle))
            pos = self.shown()
            if pos is not None and done(pos):
                return pos
        return None

    def _showing(self) -> str:
        lit = sorted(self.lit() & set(self.strip.leds), key=lambda n: -self._cell_of[n])
        return ", ".join(lit) if lit else "nothing"

    # ---- playing ----------------------------------------------------------------

    def start(self, *, timeout_s: float = 2.0) -> Position:
        """Power on if needed, press GO (the device idle, waiting for a game),
        and wait until a steady five-cell position shows: the start."""
        if not self.powered:
            self.power_on()
            self.chip.run(seconds=GAP_S)
        self.tap(GO)
        found = self._wait_shown(timeout_s, lambda _: True)
        if found is None:
            raise FairdieError(
                f"no start shown within {timeout_s:g} s of GO (lit: {self._showing()})"
            )
        return self.position()  # the steady position, checked for ghosts

    def tap(self, name: str) -> None:
        """One press of button ``name``: held :data:`HOLD_S` with the board's
        bounce, then :data:`GAP_S` for the release to be debounced."""
        self.press(name, hold=HOLD_S)
        self.chip.run(seconds=GAP_S)

    def move(self, move: Move) -> None:
        """Make ``move`` from the position shown: the dollar's button once per
        cell, then GO. An illegal move is a :class:`PositionError` (no press)."""
        pos = self.position()
        if move not in legal_moves(pos):
            raise PositionError(f"move {move} is not legal from {format_position(pos)}")
        which = str(button(pos, move))
        for _ in range(move.steps):
            self.tap(which)
        self.tap(GO)

    def wait_reply(self, before: Position, *, timeout_s: float = 2.0) -> Move | None:
        """Run until the strip steadily shows a position other than ``before``
        (or the device's held position has left it for a persistence window)
        and return the device's move that made it; None when ``before`` leaves
        the device no move (the human has won). A position no legal move
        reaches is a :class:`PositionError`; no reply in ``timeout_s`` a
        :class:`FairdieError`."""
        if not legal_moves(before):
            return None
        moved: list[int] = []  # when the device's held position left ``before``

        def done(pos: Position) -> bool:
            # a reply the strip does not show (a wrong LED table can show the
            # new position as the old) ends the wait too, a window after it
            held = self.held()
            if held is not None and held != before and not moved:
                moved.append(self.chip.cycle)
            return pos != before or bool(moved and self.chip.cycle - moved[0] > self.window)

        after = self._wait_shown(timeout_s, done)
        if after is None:
            raise FairdieError(
                f"no reply from {format_position(before)} within {timeout_s:g} s"
                f" (lit: {self._showing()})"
            )
        return move_between(before, self.position())  # checked for ghosts

    def notes(self, since: int = 0, *, min_s: float = 0.005) -> list[Note]:
        """The speaker's tones from trace position ``since`` as notes of
        C5..B5 (the nearest, within one Timer1 step), with their durations;
        fragments shorter than ``min_s`` (a note's switch-over) left out."""
        f = self.chip.frequency
        return [
            Note(note_named(t.frequency_hz, f), t.frequency_hz, t.duration_s)
            for t in self.tones(since, min_hz=NOTE_MIN_HZ)
            if t.duration_s >= min_s
        ]

    def place(self, position: Position, chance: int = 0) -> None:
        """Give the test-position build (variant ``test-position``) ``position``
        with the device to move, and ``chance`` (32 bits) to stir into its
        choice: the EEPROM marker it reads at power-on. Before power-on only."""
        if self.powered:
            raise FairdieError("place a position before power-on (the firmware reads it then)")
        if len(cells(position)) != DOLLARS or position >> CELLS:
            raise PositionError(f"not a position of {DOLLARS} dollars on cells 1..{CELLS}")
        if not legal_moves(position):
            raise PositionError(
                f"{format_position(position)} is the end: the device has no move to make"
            )
        if not 0 <= chance < 2**32:
            raise FairdieError(f"chance {chance} is out of range (0..{2**32 - 1})")
        self.chip.write_eeprom(0, MARKER.pack(MAGIC, position, chance))


def _names(leds: frozenset[str] | set[str]) -> str:
    return ", ".join(sorted(leds, key=lambda n: -int(n[1:]))) or "none"


def device_for(setup: Setup) -> Game | None:
    """The core's hook (:func:`fairdie.subjects.device_for`): a :class:`Game`
    for a setup whose board the game runs on, else None."""
    if setup.board is None or not is_game_board(setup.board):
        return None
    return Game(setup.chip(), setup.board, seed=setup.seed)
