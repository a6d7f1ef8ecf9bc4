"""The pins of a :class:`Chip`: the one pin model, the outside world's drives and pulls."""

from __future__ import annotations

from fairdie.errors import FairdieError
from fairdie.sim._chipbase import ChipBase, check
from fairdie.sim._pinout import compare_pins
from fairdie.sim._regs import bit_location, register_map
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._sleep import sleep_bits, sleep_modes
from fairdie.sim._types import Level, PinChange, parse_pin


class PinsMixin(ChipBase):
    """Pins: levels in the pin model, drives and pulls from outside."""

    def _configure_pins(self) -> None:
        """Tell the shim what simavr 1.6 does not know: compare output pins, PUD,
        SLEEP's enable and mode bits."""
        regs = register_map(self.mcu)
        for cp in compare_pins(self.mcu):
            port, bit = parse_pin(cp.pin)
            if cp.register in regs:
                lib.fd_set_compare_pin(
                    self._c, cp.timer.encode(), cp.comp, regs[cp.register], cp.shift,
                    port.encode(), bit,
                )  # fmt: skip
        pud = bit_location(self.mcu, "PUD", ("MCUCR", "SFIOR"))
        if pud is not None:
            lib.fd_set_pud(self._c, *pud)
        self._sleep_names = {}
        se, sm = sleep_bits(self.mcu)
        if se is not None and sm:
            lib.fd_set_sleep_bits(self._c, *se, *sm[0], len(sm))
            self._sleep_names = sleep_modes(self.mcu)

    def _pin(self, name: str) -> tuple[str, int]:
        try:
            port, bit = parse_pin(name)
        except ValueError as e:
            raise FairdieError(str(e)) from None
        if port not in self.ports:
            raise FairdieError(f"the {self.mcu} has no port {port} (pin {name})")
        return port, bit

    def port_regs(self, port: str) -> tuple[int, int, int]:
        """(DDR, PORT, PIN) of a port as raw memory, e.g. ``chip.port_regs("B")``."""
        d, o, p = ffi.new("uint8_t *"), ffi.new("uint8_t *"), ffi.new("uint8_t *")
        check(
            lib.fd_port_regs(self._c, port.upper().encode(), d, o, p),
            FairdieError,
            f"the {self.mcu} has no port {port}",
        )
        return int(d[0]), int(o[0]), int(p[0])

    def port_state(self, port: str) -> int:
        """A port's state word in the pin model (see :class:`PinChange`)."""
        v = int(lib.fd_port_state(self._c, port.upper().encode()))
        if v < 0:
            raise FairdieError(f"the {self.mcu} has no port {port}")
        return v

    def level(self, pin: str) -> Level:
        """The pin in the one pin model: driven (by the chip or from outside),
        pulled, or floating."""
        port, bit = self._pin(pin)
        return Level.of(self.port_state(port), bit)

    def high(self, pin: str) -> bool:
        """The wire's logic level: what the firmware reads on this pin."""
        port, bit = self._pin(pin)
        return bool((self.port_state(port) >> bit) & 1)

    def drive(self, pin: str, level: bool | int | None) -> None:
        """Drive a pin from outside (True/False), or release it (None). The
        drive outlasts power cycles, as a wire does."""
        port, bit = self._pin(pin)
        lvl = -1 if level is None else int(bool(level))
        check(
            lib.fd_pin_drive(self._c, port.encode(), bit, lvl), FairdieError, f"cannot drive {pin}"
        )
        self._drain()

    def pull(self, pin: str, direction: str | None) -> None:
        """An external resistor: ``"up"``, ``"down"`` or None (removed). It
        holds the pin while nothing drives it, and wins over the internal
        pull-up (it is the stronger resistor)."""
        code = {"up": 1, "down": -1, None: 0}.get(direction)
        if code is None:
            raise FairdieError(f"pull {direction!r}: choose 'up', 'down' or None")
        port, bit = self._pin(pin)
        check(
            lib.fd_pin_pull(self._c, port.encode(), bit, code), FairdieError, f"cannot pull {pin}"
        )
        self._drain()

    def pin_changes(self, port: str | None = None, since: int = 0) -> list[PinChange]:
        """The pin trace (optionally of one port): shorthand for ``trace.pin_changes``."""
        return self.trace.pin_changes(port, since)
