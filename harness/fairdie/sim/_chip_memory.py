"""Memory of a :class:`Chip`: data space, I/O registers by name, firmware variables."""

from __future__ import annotations

from fairdie.errors import FairdieError
from fairdie.sim._chipbase import ChipBase, check, check_range
from fairdie.sim._firmware import Symbol
from fairdie.sim._regs import register_map
from fairdie.sim._simavr import ffi, lib


class MemoryMixin(ChipBase):
    """Data space as raw memory, I/O registers as the CPU reads them, symbols."""

    def read_data(self, address: int, size: int = 1) -> bytes:
        """Data space: registers, I/O and SRAM, by data-space address (raw memory)."""
        buf = ffi.new("uint8_t[]", max(size, 1))
        check(
            lib.fd_data_read(self._c, address, buf, size),
            FairdieError,
            f"data read 0x{address:x}+{size} is outside the {self.mcu}",
        )
        return bytes(ffi.buffer(buf, size))

    def write_data(self, address: int, data: bytes) -> None:
        """Poke data space directly (no peripheral sees it)."""
        check(
            lib.fd_data_write(self._c, address, data, len(data)),
            FairdieError,
            f"data write 0x{address:x}+{len(data)} is outside the {self.mcu}",
        )
        self._drain()

    def register(self, name: str) -> int:
        """Data-space address of an I/O register by its datasheet name."""
        try:
            return register_map(self.mcu)[name.upper()]
        except KeyError:
            raise FairdieError(f"the {self.mcu} has no register {name!r}") from None

    def read_io(self, name: str) -> int:
        """Read an I/O register as the CPU would, through its peripheral's
        handler (a running timer's TCNTn counts; reading ADCL has its datasheet
        side effect)."""
        address = self.register(name)
        v = lib.fd_io_read(self._c, address)
        if v < 0:
            return self.read_data(address)[0]  # a 16-bit-space register beyond the I/O area
        return int(v)

    def write_io(self, name: str, value: int) -> None:
        """Write an I/O register as the CPU would (the peripheral reacts)."""
        check_range(name, value, 0, 255)
        address = self.register(name)
        check(
            lib.fd_io_write(self._c, address, value),
            FairdieError,
            f"{name} (0x{address:x}) is no I/O register of the {self.mcu}",
        )
        self._drain()

    def symbol(self, name: str) -> Symbol:
        return self.firmware.symbol(name)

    def read_symbol(self, name: str) -> bytes:
        s = self.symbol(name)
        if s.kind == "eeprom":
            return self.eeprom[s.address : s.address + s.size]
        if s.kind != "data":
            raise FairdieError(f"{name!r} is code, not a variable")
        return self.read_data(s.address, s.size)

    def read_var(self, name: str) -> int:
        """A firmware variable as an unsigned little-endian integer."""
        return int.from_bytes(self.read_symbol(name), "little")
