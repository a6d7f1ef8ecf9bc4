"""Which LEDs an eye sees lit, from the light the engine integrates in C.

The engine (``Chip.set_leds``, ``Chip.leds_lit_cycles``) counts, per LED,
the cycles it is lit: its anode driven high and its cathode driven low in
the one pin model (a ``VCC`` anode counts as high and a ``GND`` cathode as
low). A pull-up or a floating input never lights an LED: its current (tens
of microamps) is too weak to see. This module turns those counts into what an
eye reads over a persistence window.
"""

from __future__ import annotations

from collections.abc import Mapping

from fairdie.board._model import Board

__all__ = ["LedDecoder"]


class LedDecoder:
    """A board's LEDs, and the visibility rule of :meth:`visible`."""

    def __init__(self, board: Board, *, relative: float = 0.25, floor: float = 0.02) -> None:
        if not 0 < relative <= 1:
            raise ValueError(f"relative must be in (0, 1], got {relative}")
        if not 0 <= floor < 1:
            raise ValueError(f"floor must be in [0, 1), got {floor}")
        self.board = board
        self.relative = relative
        self.floor = floor
        self.names: tuple[str, ...] = board.led_names
        #: (anode, cathode) per LED, in :attr:`names` order, for ``Chip.set_leds``.
        self.pairs: tuple[tuple[str, str], ...] = tuple(
            (led.anode, led.cathode) for led in board.leds
        )
        self._sets: dict[int, frozenset[str]] = {}

    def duties(self, lit_cycles: list[int], window: int) -> dict[str, float]:
        """Each LED's duty: its lit cycles (in :attr:`names` order) over the window."""
        if window <= 0:
            raise ValueError(f"empty window of {window} cycles")
        return {n: c / window for n, c in zip(self.names, lit_cycles, strict=True)}

    def visible_cycles(self, lit_cycles: list[int], window: int) -> frozenset[str]:
        """:meth:`visible` of the duties of ``lit_cycles`` over ``window`` cycles."""
        return self.lit(self._visible_mask(lit_cycles, window))

    def _visible_mask(self, amounts: list[int] | list[float], scale: float) -> int:
        """The visibility rule (see :meth:`visible`) over light amounts in units
        where ``scale`` is fully lit: bit i set when the i-th is seen."""
        top = max(amounts, default=0)
        if top <= self.floor * scale:
            return 0
        cut = self.relative * top
        mask = 0
        for i, a in enumerate(amounts):
            if a >= cut:
                mask |= 1 << i
        return mask

    def lit(self, mask: int) -> frozenset[str]:
        """The LEDs of a lit mask (bit i = the i-th LED), as ``Chip.leds_now`` gives it."""
        found = self._sets.get(mask)
        if found is None:
            found = frozenset(n for i, n in enumerate(self.names) if mask >> i & 1)
            self._sets[mask] = found
        return found

    def visible(self, duties: Mapping[str, float]) -> frozenset[str]:
        """The LEDs an eye would see lit, given their duties over a window.

        An LED is visible when its duty is at least ``relative`` (0.25) times
        the brightest LED's duty and the brightest duty exceeds ``floor``
        (0.02). The threshold is relative so that a multiplexed display,
        where each LED is lit about 1/n of the time, decodes like a direct
        one lit all the time, and so that a display mixing the two (one pair
        steady, two others taking turns at half duty) shows all of them, as
        an eye sees it. A ghost (an LED caught lit for a few cycles per
        refresh while the pins switch over) stays far below a quarter of the
        brightness of the real ones. The floor keeps a dark display dark
        even when some LED glitches on for a moment.
        """
        names = list(duties)
        mask = self._visible_mask(list(duties.values()), 1.0)
        return frozenset(n for i, n in enumerate(names) if mask >> i & 1)
