"""What a debugger needs of a :class:`Chip` (fairdie.debug): breakpoints,
watches, a step range, flash, the PC and SREG."""

from __future__ import annotations

from collections.abc import Iterable

from fairdie.errors import FairdieError
from fairdie.sim._chipbase import ChipBase, check, check_range
from fairdie.sim._simavr import ffi, lib


class DebugMixin(ChipBase):
    """Breakpoints, data watches and a step range, checked in C during a run."""

    def set_breakpoints(self, addresses: Iterable[int]) -> None:
        """Stop a run whose ``until`` includes ``EventKind.PC`` when the PC
        reaches any of these byte addresses (replacing the previous set).
        Checked in C before each instruction, and only while breakpoints,
        watches or a step range are set; ``stop_event.b`` is 1."""
        pcs = sorted(set(addresses))
        arr = ffi.new("uint32_t[]", pcs or [0])
        check(
            lib.fd_debug_breaks(self._c, arr, len(pcs)),
            FairdieError,
            f"breakpoints {[hex(p) for p in pcs]}: at most {lib.FD_DBG_MAX_BREAKS},"
            f" at even addresses below 0x{self.flash_size:x}",
        )

    def set_watches(self, ranges: Iterable[tuple[int, int]]) -> None:
        """Stop such a run when a byte of these data-space ``(address, size)``
        ranges changes (replacing the previous set); ``stop_event.b`` is 2
        and ``stop_event.c`` the byte's address."""
        items = list(ranges)
        addrs = ffi.new("uint32_t[]", [a for a, _ in items] or [0])
        sizes = ffi.new("uint32_t[]", [n for _, n in items] or [0])
        check(
            lib.fd_debug_watches(self._c, addrs, sizes, len(items)),
            FairdieError,
            f"watches {items}: at most {lib.FD_DBG_MAX_WATCHES} of at most"
            f" {lib.FD_DBG_MAX_WATCH_SIZE} bytes each, inside data space",
        )

    def set_step_range(self, start: int, end: int) -> None:
        """Stop such a run once the PC leaves ``[start, end)`` (byte
        addresses; ``start == end``: no range); ``stop_event.b`` is 3."""
        check(
            lib.fd_debug_range(self._c, start, end),
            FairdieError,
            f"step range 0x{start:x}..0x{end:x} is outside the flash",
        )

    def read_flash(self, address: int, size: int) -> bytes:
        """``size`` bytes of program memory from byte ``address``."""
        buf = ffi.new("uint8_t[]", max(size, 1))
        check(
            lib.fd_flash_read(self._c, address, buf, size),
            FairdieError,
            f"flash read 0x{address:x}+{size} is outside the {self.mcu}",
        )
        return bytes(ffi.buffer(buf, size))

    def write_flash(self, address: int, data: bytes) -> None:
        """Program memory, written as a programmer would."""
        check(
            lib.fd_load_flash(self._c, bytes(data), len(data), address),
            FairdieError,
            f"flash write 0x{address:x}+{len(data)} is outside the {self.mcu}",
        )

    def set_pc(self, pc: int) -> None:
        """Move the program counter (a byte address)."""
        check(lib.fd_set_pc(self._c, pc), FairdieError, f"pc 0x{pc:x} is outside the flash")

    def set_sreg(self, value: int) -> None:
        """Set the status register's flags."""
        check_range("SREG", value, 0, 255)
        lib.fd_set_sreg(self._c, value)

    def read_io_at(self, address: int) -> int:
        """An I/O register by data-space address, as :meth:`read_io` reads it."""
        v = int(lib.fd_io_read(self._c, address))
        if v < 0:
            raise FairdieError(f"0x{address:x} is no I/O register of the {self.mcu}")
        return v

    def write_io_at(self, address: int, value: int) -> None:
        """An I/O register by data-space address, as :meth:`write_io` writes it."""
        check_range(f"I/O 0x{address:x}", value, 0, 255)
        check(
            lib.fd_io_write(self._c, address, value),
            FairdieError,
            f"0x{address:x} is no I/O register of the {self.mcu}",
        )
        self._drain()
