"""Which LEDs are lit: from pin levels, instantaneous or integrated over time.

An LED is lit while its anode is driven high and its cathode driven low
(an output with PORT 1 and an output with PORT 0; a ``VCC`` anode counts as
high and a ``GND`` cathode as low). A pull-up or a floating input never lights
an LED: the pull-up's current (tens of microamps) is too weak to see.

Integration works on the cycle-stamped trace of port register changes the
simulator records: one pass over the trace, integer arithmetic only. The
state of all LED ports is packed into one integer (16 bits per port: DDR in
the high byte, PORT in the low byte), reduced to the bits some LED depends
on, and the set of lit LEDs is computed once per distinct state and cached as
a bit mask. A trace of a charlieplexed display therefore costs a dict lookup
and an addition per change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fairdie.board._model import GND, VCC, Board
from fairdie.sim._types import PortChange, parse_pin

__all__ = ["LedDecoder"]

#: A port's output registers, ``(DDR, PORT)``, as ``Chip.port_state()`` gives them.
PortState = tuple[int, int]


class LedDecoder:
    """Decode a board's LEDs from its port registers.

    ``relative`` and ``floor`` set the visibility rule of :meth:`visible`.
    """

    def __init__(self, board: Board, *, relative: float = 0.5, floor: float = 0.02) -> None:
        if not 0 < relative <= 1:
            raise ValueError(f"relative must be in (0, 1], got {relative}")
        if not 0 <= floor < 1:
            raise ValueError(f"floor must be in [0, 1), got {floor}")
        self.board = board
        self.relative = relative
        self.floor = floor
        self.names: tuple[str, ...] = board.led_names
        ports = sorted({parse_pin(p)[0] for p in board.led_pins})
        self._shift: dict[str, int] = {p: 16 * i for i, p in enumerate(ports)}
        # Per LED: bits of the packed state that must be 1, and bits that must be 0.
        self._need: list[int] = []
        self._forbid: list[int] = []
        for led in board.leds:
            need = forbid = 0
            if led.anode != VCC:
                port, bit = parse_pin(led.anode)
                sh = self._shift[port]
                need |= (1 << (sh + 8 + bit)) | (1 << (sh + bit))  # output, high
            if led.cathode != GND:
                port, bit = parse_pin(led.cathode)
                sh = self._shift[port]
                need |= 1 << (sh + 8 + bit)  # output ...
                forbid |= 1 << (sh + bit)  # ... low
            self._need.append(need)
            self._forbid.append(forbid)
        self._relevant = 0
        for need, forbid in zip(self._need, self._forbid, strict=True):
            self._relevant |= need | forbid
        self._cache: dict[int, int] = {}
        self._sets: dict[int, frozenset[str]] = {}

    @property
    def ports(self) -> tuple[str, ...]:
        """The ports (``"B"``, ...) the LEDs are wired to."""
        return tuple(self._shift)

    def _pack(self, states: Mapping[str, PortState]) -> int:
        key = 0
        for port, sh in self._shift.items():
            ddr, out = states.get(port, (0, 0))
            key |= (((ddr & 0xFF) << 8) | (out & 0xFF)) << sh
        return key & self._relevant

    def _lit_mask(self, key: int) -> int:
        mask = self._cache.get(key)
        if mask is None:
            mask = 0
            for i, (need, forbid) in enumerate(zip(self._need, self._forbid, strict=True)):
                if key & need == need and not key & forbid:
                    mask |= 1 << i
            self._cache[key] = mask
        return mask

    def _names(self, mask: int) -> frozenset[str]:
        s = self._sets.get(mask)
        if s is None:
            s = frozenset(n for i, n in enumerate(self.names) if mask >> i & 1)
            self._sets[mask] = s
        return s

    def lit_at(self, states: Mapping[str, PortState]) -> frozenset[str]:
        """The LEDs lit by one instantaneous state: port letter -> (DDR, PORT).

        A port missing from ``states`` counts as all inputs without pull-ups.
        """
        return self._names(self._lit_mask(self._pack(states)))

    def integrate(
        self,
        initial: Mapping[str, PortState],
        changes: Iterable[PortChange],
        start: int,
        end: int,
    ) -> dict[str, float]:
        """Each LED's duty (the fraction of cycles it is lit) over ``[start, end)``.

        ``initial`` is the state before the first change (as
        ``Chip.port_state()`` gives it when the trace starts); ``changes``
        must be in cycle order. A change at cycle ``c`` takes effect from
        ``c`` on. Changes before ``start`` only set the state; the pass stops
        at the first change at or after ``end``. Ports no LED uses are skipped.
        """
        if end <= start:
            raise ValueError(f"empty window [{start}, {end})")
        shifts = self._shift
        relevant = self._relevant
        cache = self._cache
        key = self._pack(initial)
        cur = self._lit_mask(key)
        acc: dict[int, int] = {}
        t = start
        last = -1
        for ch in changes:
            c = ch.cycle
            if c < last:
                raise ValueError(f"port changes out of order: cycle {c} after {last}")
            last = c
            if c >= end:
                break
            sh = shifts.get(ch.port)
            if sh is None:
                continue
            if c > t:
                acc[cur] = acc.get(cur, 0) + (c - t)
                t = c
            regs = ((ch.ddr & 0xFF) << 8) | (ch.port_value & 0xFF)
            key = (key & ~(0xFFFF << sh)) | (regs << sh)
            k = key & relevant
            m = cache.get(k)
            cur = m if m is not None else self._lit_mask(k)
        acc[cur] = acc.get(cur, 0) + (end - t)

        lit = [0] * len(self.names)
        for mask, cycles in acc.items():
            i = 0
            while mask:
                if mask & 1:
                    lit[i] += cycles
                mask >>= 1
                i += 1
        total = end - start
        return {n: lit[i] / total for i, n in enumerate(self.names)}

    def visible(self, duties: Mapping[str, float]) -> frozenset[str]:
        """The LEDs an eye would see lit, given their duties over a window.

        An LED is visible when its duty is at least ``relative`` (0.5) times
        the brightest LED's duty and the brightest duty exceeds ``floor``
        (0.02). The threshold is relative so that a multiplexed display,
        where each LED is lit about 1/n of the time, decodes like a direct
        one lit all the time; while a ghost (an LED caught lit for a few
        cycles per refresh while the pins switch over) stays far below half
        the brightness of the real ones. The floor keeps a dark display dark
        even when some LED glitches on for a moment.
        """
        top = max(duties.values(), default=0.0)
        if top <= self.floor:
            return frozenset()
        cut = self.relative * top
        return frozenset(n for n, d in duties.items() if d >= cut)

    def decode(
        self,
        initial: Mapping[str, PortState],
        changes: Iterable[PortChange],
        start: int,
        end: int,
    ) -> frozenset[str]:
        """``visible(integrate(...))``: the LEDs seen over ``[start, end)``."""
        return self.visible(self.integrate(initial, changes, start, end))
