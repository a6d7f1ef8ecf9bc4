"""What the parts of :class:`fairdie.sim.Chip` share: the shim handle, the
chip's facts, and the one place a shim status becomes an exception.

``Chip`` is put together from one mixin per concern (``_chip_*.py``); each
mixin derives from :class:`ChipBase`, which declares the attributes
``Chip.__init__`` sets and the methods one concern calls on another, so each
module type-checks on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairdie.errors import FairdieError

if TYPE_CHECKING:
    from fairdie.sim._firmware import Firmware, Symbol
    from fairdie.sim._trace import Trace
    from fairdie.sim._types import EepromWrite


def check(rc: int, error: type[FairdieError], message: str) -> None:
    """The one place a shim status becomes an exception: 0 is success."""
    if rc != 0:
        raise error(message)


def check_range(what: str, value: float, lo: float, hi: float) -> None:
    if not lo <= value <= hi:  # NaN fails every comparison: out of range too
        raise FairdieError(f"{what} {value} is out of range ({lo}..{hi})")


class ChipBase:
    """The state every part of a chip reads (set by ``Chip.__init__``)."""

    _c: Any  #: the shim's fd_chip (cffi cdata, freed with the chip)
    _id: int  #: the key of this chip in the ADC callback's registry
    firmware: Firmware
    mcu: str
    frequency: int
    vcc_mv: int
    seed: int
    simavr_fixes: frozenset[str]
    flash_size: int
    sram_start: int
    ramend: int
    eeprom_size: int
    ports: str
    trace: Trace
    _sleep_names: dict[int, str]  #: sleep modes by SM bits

    if TYPE_CHECKING:
        # one concern's methods that another calls

        def _drain(self) -> None: ...
        def _sync_feeds(self, ahead: bool = False) -> None: ...
        def _note_unmodelled(self) -> None: ...
        def _follow_log_level(self) -> None: ...
        def _pin(self, name: str) -> tuple[str, int]: ...
        def write_eeprom(self, address: int, data: bytes) -> None: ...
        def port_state(self, port: str) -> int: ...
        def read_data(self, address: int, size: int = 1) -> bytes: ...
        def cycles_for(self, seconds: float) -> int: ...
        def symbol(self, name: str) -> Symbol: ...
        @property
        def cycle(self) -> int: ...
        @property
        def eeprom_in_flight(self) -> EepromWrite | None: ...
        @property
        def eeprom(self) -> bytes: ...
        @property
        def powered(self) -> bool: ...
        @property
        def sleeping(self) -> bool: ...
        @property
        def sleep_mode(self) -> str | None: ...
