"""``fairdie silver-dollar play``: the emulated game in the terminal.

The firmware runs in step with the wall clock (its idle light, its 250 ms
before a reply, its tunes and its 30 s to power-down take their real time).
Keys 1..5 press the dollars' buttons (the k-th dollar from the left), space
presses GO; each press is held and released as :meth:`Game.tap` does, with
the board's bounce. The strip is redrawn whenever what an eye sees changes:
each cell lit or dark, what the strip shows, and the notes the speaker has
played, by name. q quits (0), Ctrl-C too (130); the terminal's mode is
restored on every way out.
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from fairdie._terminal import raw_keys
from fairdie.device import tones_from_edges
from fairdie.errors import FairdieError
from fairdie.sim import parse_pin
from fairdie.subjects.silver_dollar._game import GO, NOTE_MIN_HZ, note_named
from fairdie.subjects.silver_dollar._solver import CELLS, format_position

if TYPE_CHECKING:
    from fairdie.subjects.silver_dollar._game import Game

__all__ = ["DARK", "LIT", "PlayScreen", "play_command", "run_play"]

#: how a cell is drawn
LIT, DARK = "[@]", "[ ]"
#: the emulation is never more than this behind the wall clock (a slow redraw)
_CATCH_UP_S = 0.5
#: how often the loop looks at the strip while no key comes
_TICK_S = 0.02
#: a speaker quiet this long has finished its note: the trace can go
_QUIET_S = 0.03
#: the notes kept on screen
_KEEP_NOTES = 24
_DOLLAR_KEYS = {ord(str(k)): str(k) for k in range(1, 6)}
_GO_KEYS = frozenset(b" ")
_QUIT_KEYS = frozenset(b"qQ\x04")  # and Ctrl-D
_INTERRUPT = 0x03  # Ctrl-C (the terminal's signals are off: it arrives as a key)


class PlayScreen:
    """The game on ``out``: the strip, what it shows and the notes heard,
    redrawn in place."""

    def __init__(self, game: Game, out: TextIO, *, title: str) -> None:
        self.game = game
        self.out = out
        self.title = title
        self.heard: list[str] = []  #: the names of the notes played, oldest first
        self.shown: list[str] = []  #: the positions shown steadily, in turn
        self.presses = 0
        self._heard_to = 0  # the cycle up to which notes are heard
        self._edges: list[int] = []  # the speaker's edges since it was last quiet
        self._level: bool | None = None
        port, self._bit = parse_pin(game.board.speaker or "")
        self._port = port
        self._lines = 0
        self._last: list[str] | None = None

    # ---- the emulation ----------------------------------------------------------

    def press(self, name: str) -> None:
        self.presses += 1
        self.game.tap(name)

    def listen(self) -> None:
        """Take the speaker's edges from the trace and drop the trace (it grows
        by the strip's refresh, ~57k events/s); name the notes that have ended."""
        chip = self.game.chip
        edges, self._level = chip.trace.pin_edges(self._port, self._bit, level=self._level)
        self._edges.extend(edges)
        chip.clear_trace()
        quiet_from = chip.cycle - chip.cycles_for(_QUIET_S)
        for t in tones_from_edges(self._edges, chip.frequency, min_hz=NOTE_MIN_HZ):
            if t.start >= self._heard_to and t.end < quiet_from and t.duration_s >= 0.005:
                self.heard.append(note_named(t.frequency_hz, chip.frequency) or "?")
                self._heard_to = t.end
        if self._edges and self._edges[-1] < quiet_from:
            self._edges.clear()  # every note has ended and been heard

    # ---- drawing ----------------------------------------------------------------

    def status(self) -> str:
        """What the strip shows, in words."""
        game = self.game
        shown = game.read(game.strip)
        if shown == "off":
            return "dark: the device sleeps (space wakes it)" if game.powered else "off"
        if shown == "invalid":
            lit = game.lit() & set(game.strip.leds)
            if len(lit) == 1:
                return "the idle light: space starts a game"
            return f"{len(lit)} cells lit: no position"
        steady = game.shown()
        if steady is not None and (not self.shown or self.shown[-1] != format_position(steady)):
            self.shown.append(format_position(steady))
        return f"position {shown}"

    def frame(self) -> list[str]:
        lit = self.game.lit()
        numbers = " ".join(f"{c:>3}" for c in range(CELLS, 0, -1))
        strip = " ".join(LIT if f"c{c}" in lit else DARK for c in range(CELLS, 0, -1))
        return [
            self.title,
            "keys 1..5: move that dollar (from the left) one cell   space: GO   q: quit",
            "",
            numbers,
            strip,
            "",
            self.status(),
            "heard: " + (" ".join(self.heard[-_KEEP_NOTES:]) if self.heard else "nothing yet"),
            f"presses {self.presses}",
        ]

    def show(self, *, force: bool = False) -> None:
        lines = self.frame()
        if lines == self._last and not force:
            return
        self._last = lines
        up = f"\x1b[{self._lines}A\r" if self._lines else "\r"
        self.out.write(up + "\x1b[J" + "\n".join(lines) + "\n")
        self.out.flush()
        self._lines = len(lines)


def run_play(
    screen: PlayScreen,
    *,
    fd_in: int | None = None,
    clock: Callable[[], float] | None = None,
) -> int:
    """Play ``screen``'s game from the terminal on ``fd_in`` until q (0) or Ctrl-C (130)."""
    fd = sys.stdin.fileno() if fd_in is None else fd_in
    now_s = time.monotonic if clock is None else clock
    out = screen.out
    with raw_keys(fd, out):
        return _loop(screen, fd, now_s)


def _loop(screen: PlayScreen, fd: int, now_s: Callable[[], float]) -> int:
    game = screen.game
    chip = game.chip
    if not game.powered:
        game.power_on()
    t0, c0 = now_s(), chip.cycle
    screen.show(force=True)
    while True:
        ready, _, _ = select.select([fd], [], [], _TICK_S)
        try:
            data = os.read(fd, 1024) if ready else b""
        except OSError:  # EIO: the terminal hung up
            data = b""
        if ready and not data:  # the terminal is gone
            return 0
        # the chip catches up with the wall clock (a press runs it ahead: then it waits)
        target = c0 + chip.cycles_for(now_s() - t0)
        if target - chip.cycle > chip.cycles_for(_CATCH_UP_S):
            c0 += target - chip.cycle - chip.cycles_for(_CATCH_UP_S)
            target = c0 + chip.cycles_for(now_s() - t0)
        if target > chip.cycle:
            chip.run(to_cycle=target)
        for byte in data:
            if byte in _DOLLAR_KEYS:
                screen.press(_DOLLAR_KEYS[byte])
            elif byte in _GO_KEYS:
                screen.press(GO)
            elif byte in _QUIT_KEYS or byte == _INTERRUPT:
                screen.listen()
                screen.show()
                return 130 if byte == _INTERRUPT else 0
        screen.listen()
        screen.show()


def play_command(a: Any) -> int:
    """``fairdie silver-dollar play``: refuse without a terminal, else play."""
    import json

    from fairdie.subjects.silver_dollar._cli import make_setup

    setup = make_setup(a)  # its inputs checked first, a terminal or not
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise FairdieError(
            "silver-dollar play needs a terminal (use fairdie silver-dollar starts or reply)"
        )
    game = setup.device()
    screen = PlayScreen(
        game, sys.stdout, title=f"fairdie silver-dollar play: board {setup.board.name}"
    )
    status = run_play(screen)
    if a.json:
        print(
            json.dumps(
                {
                    "positions": screen.shown,
                    "notes": screen.heard,
                    "presses": screen.presses,
                    "board": setup.board.name,
                    "firmware": str(setup.firmware),
                }
            )
        )
    return status
