"""``fairdie roll``: press the emulated die from the terminal.

A key press is a press of the die, and holding the key holds it. A terminal
sends a key once, then (after its repeat delay, typically 0.25 to 0.6 s)
repeats it while it is held; it never says when a key goes up. So keys less
than :data:`REPEAT_GAP_S` apart are one continuous hold
(:class:`KeyHolds`), which ends once no key has come for that long. The hold
runs from the first key to the last repeat plus one repeat interval (the key
went up somewhere in the interval after the last repeat); a key that did
not repeat is a press of :data:`TAP_S`. Then the die rolls with that hold
(emulated, so a 10 s hold takes milliseconds) and the screen is redrawn in
place: the last faces as dice, the die's table and the number of presses.

Space or enter presses; q or Ctrl-C quits (Ctrl-C with status 130, as an
interrupted command). The terminal's mode is restored on every way out.
"""

from __future__ import annotations

import os
import select
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from fairdie._terminal import raw_keys
from fairdie.device import MAX_HOLD_S
from fairdie.subjects.die._art import draw_dice, draw_table

if TYPE_CHECKING:  # the grouping of keys needs no simulator
    from fairdie.subjects.die import Die, Press

__all__ = ["CLEAR_S", "REPEAT_GAP_S", "TAP_S", "KeyHolds", "RollScreen", "run_roll"]

#: keys closer together than this are one hold (above a terminal's repeat delay)
REPEAT_GAP_S = 0.6
#: the hold of a key that did not repeat (the default hold of ``fairdie press``)
TAP_S = 0.2
#: a hold this long powers the die long enough to clear its table (the firmware's
#: watchdog clears it at 9.92 s)
CLEAR_S = 10.0

_PRESS_KEYS = frozenset(b" \r\n")
_QUIT_KEYS = frozenset(b"qQ\x04")  # and Ctrl-D
_INTERRUPT = 0x03  # Ctrl-C (the terminal's signals are off: it arrives as a key)
_REFRESH_S = 0.1  # how often a hold in progress redraws its time


class KeyHolds:
    """Key times (seconds, any clock) grouped into holds.

    ``key(t)`` for each press key, ``expire(now)`` while waiting; each
    returns the length of a hold that has ended, or None.
    """

    def __init__(self, gap_s: float = REPEAT_GAP_S, tap_s: float = TAP_S) -> None:
        if not (gap_s > 0 and tap_s > 0):
            raise ValueError("gap_s and tap_s must be positive")
        self.gap_s = gap_s
        self.tap_s = tap_s
        self._first: float | None = None  # the hold in progress: its first key,
        self._last = 0.0  # its last key
        self._repeats: deque[float] = deque(maxlen=64)  # and its last repeat intervals
        self._keys = 0

    @property
    def holding(self) -> bool:
        """A key has come and its hold has not ended yet."""
        return self._first is not None

    def held_s(self) -> float:
        """The hold in progress as measured so far (0 with none)."""
        if self._first is None:
            return 0.0
        # the first gap is the terminal's repeat delay, the others its repeat
        # interval; with one repeat only, the interval is not known (taken as 0)
        interval = statistics.median(self._repeats) if self._repeats else 0.0
        return max(self.tap_s, self._last - self._first + interval)

    def deadline(self) -> float | None:
        """When the hold in progress ends if no key comes (None with none)."""
        return None if self._first is None else self._last + self.gap_s

    def key(self, t: float) -> float | None:
        """A key at ``t``: it continues the hold in progress or starts one.
        Returns the previous hold if ``t`` came too late to continue it."""
        done = self.expire(t)
        if self._first is None:
            self._first = t
        elif self._keys >= 2:
            self._repeats.append(t - self._last)
        self._last = t
        self._keys += 1
        return done

    def expire(self, now: float) -> float | None:
        """The hold in progress, if no key has come for ``gap_s`` by ``now``."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return None
        return self.end()

    def end(self) -> float | None:
        """End the hold in progress now and return it (None with none)."""
        if self._first is None:
            return None
        hold = self.held_s()
        self._first = None
        self._repeats.clear()
        self._keys = 0
        return hold


class RollScreen:
    """What ``fairdie roll`` shows, redrawn in place on ``out``."""

    def __init__(
        self, die: Die, out: TextIO, *, title: str, width: Callable[[], int] | None = None
    ) -> None:
        self.die = die
        self.out = out
        self.title = title
        self.presses: list[Press] = []
        self._width = width or _terminal_width
        self._lines = 0  # lines of the frame on screen

    def roll(self, hold: float) -> Press:
        press = self.die.roll(min(hold, MAX_HOLD_S))
        self.presses.append(press)
        return press

    def frame(self, status: str) -> list[str]:
        cols = max(20, self._width())
        fit = max(1, (cols + 1) // 11)  # dice of 9 columns, 2 apart
        shown = [_shown(p) for p in self.presses[-fit:]] or ["off"]
        lines = [
            self.title,
            "space or enter: press (hold the key to hold"
            + (f"; {CLEAR_S:g} s clears the table)" if self.die.has_counters else ")")
            + "   q: quit",
            "",
            *draw_dice(shown, per_row=fit, faces=self.die.faces).split("\n"),
            "",
        ]
        if self.die.has_counters:
            faces = [p.face for p in self.presses]
            lines += draw_table(self.die.counts, kind=self.die.table_kind, shown=faces).split("\n")
        else:
            lines.append("(this die keeps no table)")
        lines += [f"presses {len(self.presses)}", status]
        return [line[: cols - 1] for line in lines]  # a wrapped line would spoil the redraw

    def status(self) -> str:
        """The line under the table when no hold is in progress."""
        if not self.presses:
            return "press space or enter"
        p = self.presses[-1]
        n = len(self.presses)
        if p.display == "all":
            first = f"face {p.face}, then " if p.face else ""
            return (
                f"press {n}: held {p.hold_s:.2f} s: {first}all LEDs lit: the die cleared its table"
            )
        if p.face is None:
            return f"press {n}: held {p.hold_s:.2f} s: no face shown (display {p.display})"
        return f"press {n}: face {p.face}, held {p.hold_s:.2f} s"

    def holding(self, held: float) -> str:
        past = (
            f" (past {CLEAR_S:g} s: the die clears its table)"
            if held >= CLEAR_S and self.die.has_counters
            else ""
        )
        return f"holding {held:.1f} s{past}"

    def show(self, status: str | None = None) -> None:
        lines = self.frame(self.status() if status is None else status)
        up = f"\x1b[{self._lines}A\r" if self._lines else "\r"
        self.out.write(up + "\x1b[J" + "\n".join(lines) + "\n")
        self.out.flush()
        self._lines = len(lines)


def _shown(p: Press) -> str:
    """What the die shows when the key goes up: its face, or the clear."""
    return p.display if p.face is None or p.display == "all" else str(p.face)


def _terminal_width() -> int:
    try:
        cols = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        return 80
    return cols if cols > 0 else 80  # 0: the terminal does not say


def run_roll(
    die: Die,
    *,
    title: str,
    fd_in: int | None = None,
    out: TextIO | None = None,
    clock: Callable[[], float] | None = None,
) -> int:
    """Press ``die`` from the terminal on ``fd_in`` until q (0) or Ctrl-C (130)."""
    fd = sys.stdin.fileno() if fd_in is None else fd_in
    out = sys.stdout if out is None else out
    now_s = time.monotonic if clock is None else clock
    screen = RollScreen(die, out, title=title)
    with raw_keys(fd, out):
        return _loop(screen, fd, now_s)


def _loop(screen: RollScreen, fd: int, now_s: Callable[[], float]) -> int:
    holds = KeyHolds()
    screen.show()
    while True:
        deadline = holds.deadline()
        timeout = None if deadline is None else min(_REFRESH_S, max(0.0, deadline - now_s()))
        ready, _, _ = select.select([fd], [], [], timeout)
        try:
            data = os.read(fd, 1024) if ready else b""
        except OSError:  # EIO: the terminal hung up
            data = b""
        now = now_s()
        if ready and not data:  # the terminal is gone
            return 0
        for byte in data:
            if byte in _PRESS_KEYS:
                done = holds.key(now)
                if done is not None:
                    screen.roll(done)
            elif byte in _QUIT_KEYS or byte == _INTERRUPT:
                done = holds.end()  # a press in progress is made before quitting
                if done is not None:
                    screen.roll(done)
                screen.show()
                return 130 if byte == _INTERRUPT else 0
        done = holds.expire(now)
        if done is not None:
            screen.roll(done)
            screen.show()
        elif holds.holding:
            screen.show(screen.holding(holds.held_s()))
