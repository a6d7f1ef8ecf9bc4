"""The chip's side of :mod:`fairdie.sim._unmodelled`: hook the registers,
note the firmware's first use of each part, warn once."""

from __future__ import annotations

import logging

from fairdie.sim._chipbase import ChipBase
from fairdie.sim._regs import bit_location, register_map
from fairdie.sim._simavr import lib
from fairdie.sim._unmodelled import UNMODELLED, Unmodelled

__all__ = ["UnmodelledMixin"]

_LOG = logging.getLogger("fairdie")


def _mask(mcu: str, register: str, bits: tuple[str, ...]) -> int | None:
    """The bits of ``register`` a write must set to count (None: the MCU
    lacks the register or those bits)."""
    if not bits:
        return 0xFF
    found = [bit_location(mcu, b, (register,)) for b in bits]
    return sum(1 << f[1] for f in found if f is not None) or None


class UnmodelledMixin(ChipBase):
    """The parts of the MCU the firmware used that the engine does not model."""

    _unmodelled_seen: list[str]
    _unmodelled_bits: dict[int, tuple[Unmodelled, str]]

    def _watch_unmodelled(self, self_programming: bool) -> None:
        self._unmodelled_seen = []
        self._unmodelled_bits = {}
        regs = register_map(self.mcu)
        for k, u in enumerate(UNMODELLED.values()):
            if u.name == "SPMCSR" and self_programming:
                continue
            for register, bits, reads in u.watches:
                mask = _mask(self.mcu, register, bits) if register in regs else None
                if mask is None:
                    continue
                if lib.fd_unmodelled_watch(self._c, regs[register], mask, int(reads), 2 * k) == 0:
                    self._unmodelled_bits[2 * k] = (u, "writes")
                    self._unmodelled_bits[2 * k + 1] = (u, "reads")

    def _note_unmodelled(self) -> None:
        """Log each newly used part once (called when the shim says one was)."""
        seen = int(lib.fd_unmodelled_seen(self._c))
        for bit, (u, verb) in sorted(self._unmodelled_bits.items()):
            if seen >> bit & 1 and u.name not in self._unmodelled_seen:
                self._unmodelled_seen.append(u.name)
                _LOG.warning("%s", u.warning(self.mcu, verb))

    @property
    def unmodelled(self) -> tuple[str, ...]:
        """The parts the engine does not model that the firmware has used so
        far, by name (:data:`fairdie.sim.UNMODELLED` describes each), in the
        order they were noticed (after each run; those of one run in the
        table's order)."""
        return tuple(self._unmodelled_seen)
