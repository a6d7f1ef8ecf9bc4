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
        if rc == -2:
            raise SimulationError(f"the LED window ends at cycle {end}, after now ({self.cycle})")
        if rc != 0:
            raise SimulationError(
                f"the LED history no longer reaches cycle {start}: ask for a shorter window"
            )
        return ffi.unpack(out, self._nleds)  # type: ignore[no-any-return]
