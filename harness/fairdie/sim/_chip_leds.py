"""The LEDs of a :class:`Chip`: light integrated in C over any window."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fairdie.errors import FairdieError, SimulationError
from fairdie.sim._chipbase import ChipBase, check
from fairdie.sim._simavr import ffi, lib

_SUPPLY = ("VCC", "GND")
_fd_leds_restart = lib.fd_leds_restart
_fd_leds_first_lit = lib.fd_leds_first_lit
_fd_leds_lit_cycles = lib.fd_leds_lit_cycles
_fd_leds_seen = lib.fd_leds_seen


def check_led_window(rc: int, chip: ChipBase, start: int, end: int) -> None:
    """Raise for the LED history's error ``rc`` (negative) over ``[start, end)``."""
    if rc == -2:
        raise SimulationError(f"the LED window ends at cycle {end}, after now ({chip.cycle})")
    raise SimulationError(
        f"the LED history no longer reaches cycle {start}: ask for a shorter window"
    )


class LedsMixin(ChipBase):
    """LEDs between pins (or a pin and the supply), lit as the pin model drives them."""

    _led_out: Any
    _nleds: int

    def set_leds(self, leds: Iterable[tuple[str, str]]) -> None:
        """LEDs as (anode, cathode) pins; ``"VCC"``/``"GND"`` for the supply. An
        LED is lit while its anode is driven high and its cathode driven low."""
        items = list(leds)
        if len(items) > 32:
            raise FairdieError(f"at most 32 LEDs, not {len(items)}")
        arr = ffi.new("fd_led[]", max(1, len(items)))
        for i, (anode, cathode) in enumerate(items):
            for end, name in ((0, anode), (1, cathode)):
                if name.upper() in _SUPPLY:
                    continue
                port, bit = self._pin(name)
                if end == 0:
                    arr[i].anode_port, arr[i].anode_bit = ord(port), bit
                else:
                    arr[i].cathode_port, arr[i].cathode_bit = ord(port), bit
        check(lib.fd_leds_set(self._c, arr, len(items)), FairdieError, "bad LED pins")
        self._nleds = len(items)

    def leds_restart(self) -> None:
        """Forget the LED history: light is counted from now on."""
        _fd_leds_restart(self._c)

    def leds_now(self) -> int:
        """A mask of the LEDs lit now (bit i = the i-th of :meth:`set_leds`)."""
        return int(lib.fd_leds_now(self._c))

    def leds_first_lit(self) -> int | None:
        """The cycle at which some LED first lit since the last restart."""
        v: int = _fd_leds_first_lit(self._c)
        return None if v < 0 else v

    def leds_lit_cycles(self, start: int, end: int) -> list[int]:
        """Each LED's lit cycles over ``[start, end)``."""
        out = self._led_out
        rc = _fd_leds_lit_cycles(self._c, start, end, out)
        if rc != 0:
            check_led_window(rc, self, start, end)
        return ffi.unpack(out, self._nleds)  # type: ignore[no-any-return]

    def leds_seen(self, start: int, end: int, *, relative: float, floor: float) -> int:
        """The LEDs an eye sees lit over ``[start, end)``, as a mask (bit i: the
        i-th of :meth:`set_leds`), computed in C by the rule of
        :meth:`fairdie.board.LedDecoder.visible` from :meth:`leds_lit_cycles`:
        none unless the brightest LED's lit cycles exceed ``floor`` times the
        window, then each lit at least ``relative`` times the brightest's."""
        mask: int = _fd_leds_seen(self._c, start, end, relative, floor)
        if mask < 0:
            check_led_window(mask, self, start, end)
        return mask
