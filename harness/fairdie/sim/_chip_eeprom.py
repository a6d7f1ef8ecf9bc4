"""The EEPROM of a :class:`Chip`: stored bytes, the write in flight, programming times."""

from __future__ import annotations

from typing import Any

from fairdie.errors import FairdieError, FirmwareError
from fairdie.sim._chipbase import ChipBase, check, check_range
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._types import EepromWrite

_EE_MODES = ("erase+write", "erase", "write")
_fd_eeprom_read = lib.fd_eeprom_read
_fd_eeprom_in_flight = lib.fd_eeprom_in_flight
_fd_cycle = lib.fd_cycle


class EepromMixin(ChipBase):
    """EEPROM: its bytes, as stored, and the write the CPU has in flight."""

    _ee_buf: Any
    _ew_buf: Any  #: fd_eeprom_in_flight's out, one per chip (read at once)

    @property
    def eeprom(self) -> bytes:
        """The stored bytes (a write in flight is not stored until it completes)."""
        buf, size = self._ee_buf, self.eeprom_size
        _fd_eeprom_read(self._c, 0, buf, size)  # all of it: never out of range
        return ffi.buffer(buf, size)[:]  # type: ignore[no-any-return]

    def read_eeprom(self, address: int, size: int) -> bytes:
        """``size`` stored bytes from ``address``."""
        buf = self._ee_buf
        if _fd_eeprom_read(self._c, address, buf, size) != 0:
            raise FairdieError(
                f"EEPROM read {address}+{size} is outside the {self.mcu}'s {self.eeprom_size} bytes"
            )
        return ffi.buffer(buf, size)[:]  # type: ignore[no-any-return]

    def write_eeprom(self, address: int, data: bytes) -> None:
        check(
            lib.fd_eeprom_write(self._c, address, bytes(data), len(data)),
            FirmwareError,
            f"EEPROM image of {len(data)} bytes at {address} does not fit"
            f" the {self.mcu}'s {self.eeprom_size} bytes",
        )

    def erase_eeprom(self) -> None:
        """All 0xFF, as a new or chip-erased part."""
        self.write_eeprom(0, b"\xff" * self.eeprom_size)

    @property
    def eeprom_in_flight(self) -> EepromWrite | None:
        flight = self.eeprom_flight()
        if flight is None:
            return None
        address, old, new, mode, done = flight
        return EepromWrite(
            address=int(address),
            old=int(old),
            new=int(new),
            cycles_left=max(0, int(done) - _fd_cycle(self._c)),
            mode=_EE_MODES[mode],
        )

    def eeprom_flight(self) -> tuple[int, int, int, int, int] | None:
        """The write in flight as numbers, ``(address, old, new, mode, done)``
        (EEPM mode 0..2, the cycle it completes), or None: what
        :attr:`eeprom_in_flight` says, without an object (for a loop that asks
        at every instruction)."""
        w = self._ew_buf
        _fd_eeprom_in_flight(self._c, w)
        if not w.active:
            return None
        return w.address, w.old_value, w.new_value, w.mode, w.done_cycle

    def set_eeprom_times(self, *, erase_write_us: int = 3400, single_us: int = 1800) -> None:
        """Programming times (datasheet: 3.4 ms erase+write, 1.8 ms erase or write)."""
        check_range("erase_write_us", erase_write_us, 1, 100_000)
        check_range("single_us", single_us, 1, 100_000)
        lib.fd_eeprom_set_times(self._c, erase_write_us, single_us)
