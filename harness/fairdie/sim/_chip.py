"""The typed facade over the compiled shim: one simulated AVR chip.

Everything here speaks Python types; cdata never leaves this package. Time is
counted in CPU cycles; seconds appear only as conveniences at the edges.
:class:`Chip` is made here and put together from one mixin per concern:
running and power (``_chip_run``), pins (``_chip_pins``), LEDs
(``_chip_leds``), the ADC (``_chip_adc``), EEPROM (``_chip_eeprom``), memory
(``_chip_memory``), snapshots (``_chip_snapshot``), debugging
(``_chip_debug``), coverage (``_chip_coverage``), the trace (``_trace``) and
what the engine does not model (``_chip_unmodelled``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from pathlib import Path

from fairdie.errors import FairdieError, FirmwareError
from fairdie.sim._chip_adc import CHIPS, AdcMixin, AdcSource, Feed
from fairdie.sim._chip_coverage import ChipRecorder, CoverageMixin, record_chips, watch_new_chip
from fairdie.sim._chip_debug import DebugMixin
from fairdie.sim._chip_eeprom import EepromMixin
from fairdie.sim._chip_leds import LedsMixin
from fairdie.sim._chip_memory import MemoryMixin
from fairdie.sim._chip_pins import PinsMixin
from fairdie.sim._chip_run import RunMixin
from fairdie.sim._chip_snapshot import Snapshot, SnapshotMixin
from fairdie.sim._chip_unmodelled import UnmodelledMixin
from fairdie.sim._chipbase import check, check_range
from fairdie.sim._firmware import Firmware, check_fits, load_firmware, mcu_matches
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._trace import Trace, TraceMixin
from fairdie.sim._types import TRACEABLE, Event, EventKind

__all__ = [
    "SIMAVR_FIXES",
    "AdcSource",
    "Chip",
    "ChipRecorder",
    "Snapshot",
    "Trace",
    "record_chips",
    "simavr_models",
]


def _new_core(mcu: str, handle: object, mask: int, seed: int) -> object:
    """A new simavr core of ``mcu`` (a ``fd_chip *``), or ``ffi.NULL``."""
    raw = ffi.NULL
    # simavr names the "A" parts' cores without the A (attiny84a -> attiny84)
    for core in dict.fromkeys([mcu.removesuffix("a"), mcu]):
        raw = lib.fd_new(core.encode(), handle, mask, seed)
        if raw != ffi.NULL:
            break
    return raw


def simavr_models(mcu: str) -> bool:
    """Whether simavr has a model of ``mcu`` (lower case, e.g. ``attiny13a``)."""
    raw = _new_core(mcu, ffi.NULL, 0, 0)
    if raw == ffi.NULL:
        return False
    lib.fd_free(raw)
    return True


_IDS = itertools.count(1)
_MAX_F_CPU = 32_000_000

#: The simavr 1.6 fixes a chip applies (all by default); see README "The engine".
SIMAVR_FIXES = {
    "sleep": lib.FD_FIX_SLEEP,  # sleep fast-forwards instead of sleeping the host
    "extint": lib.FD_FIX_EXTINT,  # no per-cycle INT0 level polling
    "ioend": lib.FD_FIX_IOEND,  # a reset clears the I/O registers (ATtiny13 core)
    "porf": lib.FD_FIX_PORF,  # power-on sets PORF in MCUSR
    "eeprom": lib.FD_FIX_EEPROM,  # datasheet EEPROM programming time, EEPM modes
    "irq": lib.FD_FIX_IRQ,  # interrupt response: 4 cycles, 8 when it wakes the CPU
    "pin_bit": lib.FD_FIX_PIN_BIT,  # SBI/CBI on PINx toggles one pin
    "wdt": lib.FD_FIX_WDT,  # the watchdog's interrupt mode is not one-shot
    "sram": lib.FD_FIX_SRAM,  # power-on fills registers and SRAM with seeded junk
    "pullup": lib.FD_FIX_PULLUP,  # one pin model: no pull-up re-applied over a drive
    "compare": lib.FD_FIX_COMPARE,  # compare outputs drive their datasheet pin
    "memory": lib.FD_FIX_MEMORY,  # stray accesses stay inside the shim's buffers
    "adc": lib.FD_FIX_ADC,  # ADC channel and reference latched when a conversion starts
    "sleep_modes": lib.FD_FIX_SLEEP_MODES,  # SE and SM honoured: timers stop, wake sources only
}


class Chip(
    RunMixin,
    PinsMixin,
    LedsMixin,
    AdcMixin,
    EepromMixin,
    MemoryMixin,
    SnapshotMixin,
    DebugMixin,
    CoverageMixin,
    TraceMixin,
    UnmodelledMixin,
):
    """One simulated AVR, created powered off with its firmware in flash.

    >>> chip = Chip(load_firmware("die.elf"), seed=1)   # doctest: +SKIP
    >>> chip.power_on(); chip.run(seconds=0.1)          # doctest: +SKIP

    Several chips may live in one process; they share nothing.
    """

    def __init__(
        self,
        firmware: Firmware | str | Path,
        *,
        mcu: str | None = None,
        f_cpu: int | None = None,
        vcc_mv: int | None = None,
        seed: int = 0,
        eeprom: bytes | None = None,
        trace: bool | EventKind = True,
        simavr_fixes: Iterable[str] | None = None,
        skip_polling: bool = True,
        batch_instructions: bool = True,
        coverage: bool = False,
    ) -> None:
        fw = firmware if isinstance(firmware, Firmware) else load_firmware(firmware, mcu=mcu)
        name = fw.path.name if fw.path else "firmware"
        mcu = mcu or fw.mcu
        if not mcu:
            raise FirmwareError(f"{name} does not name its MCU: give the MCU explicitly")
        if fw.mcu and mcu and not mcu_matches(mcu, fw.mcu):
            raise FirmwareError(f"{name}: built for {fw.mcu}, not {mcu}")
        f = f_cpu or fw.f_cpu
        if not f:
            raise FirmwareError(f"{name} does not name its clock: give f_cpu explicitly")
        check_range("f_cpu", f, 1_000, _MAX_F_CPU)
        vcc = vcc_mv or fw.vcc_mv or 3000
        check_range("vcc_mv", vcc, 1800, 5500)
        check_range("seed", seed, 0, 2**64 - 1)

        self.firmware = fw
        self.mcu = mcu.lower()
        self.frequency = int(f)
        self.vcc_mv = int(vcc)
        self.seed = seed
        fixes = set(SIMAVR_FIXES if simavr_fixes is None else simavr_fixes)
        if unknown := fixes - SIMAVR_FIXES.keys():
            raise FairdieError(f"unknown simavr fix {sorted(unknown)[0]!r}")
        self.simavr_fixes = frozenset(fixes)
        mask = sum(SIMAVR_FIXES[f] for f in fixes)
        self._id = next(_IDS)
        CHIPS[self._id] = self
        handle = ffi.cast("void *", self._id)
        raw = _new_core(self.mcu, handle, mask, seed)
        if raw == ffi.NULL:
            raise FirmwareError(f"simavr has no model of the MCU {self.mcu!r}")
        self._c = ffi.gc(raw, lib.fd_free)
        self._configure_pins()
        check(lib.fd_start(self._c, self.frequency, self.vcc_mv), FirmwareError, "simavr init")
        self.skip_polling = skip_polling
        self.batch_instructions = batch_instructions
        info = ffi.new("fd_info *")
        lib.fd_get_info(self._c, info)
        self.flash_size = int(info.flash_size)
        self.sram_start = int(info.sram_start)
        self.ramend = int(info.ramend)
        self.eeprom_size = int(info.eeprom_size)
        self.ports = ffi.string(info.ports).decode()
        self._snapshot_size = int(info.snapshot_size)
        self._ee_buf = ffi.new("uint8_t[]", max(1, self.eeprom_size))
        self._ew_buf = ffi.new("fd_ee_write *")
        self._watch_unmodelled(bool(info.self_programming))

        check_fits(
            fw,
            self.mcu,
            flash_size=self.flash_size,
            sram_size=self.ramend + 1 - self.sram_start,
            eeprom_size=self.eeprom_size,
        )
        check(lib.fd_load_flash(self._c, fw.flash, len(fw.flash), 0), FirmwareError, "flash load")
        image = eeprom if eeprom is not None else fw.eeprom
        if image:
            self.write_eeprom(0, image)

        self._adc: dict[int, Callable[[int], float]] = {}
        self._feeds: dict[int, Feed] = {}
        self._stateful = ()
        self._adc_error: BaseException | None = None
        self._stops = ffi.new("fd_stops *")
        self._why = ffi.new("fd_event *")
        self._led_out = ffi.new("uint64_t[32]")
        self._cycle_bufs = self._cycle_buffers(8)
        self._cycle_steps = None
        self._nleds = 0
        self.trace = Trace()
        self.stop_event: Event | None = None
        self.power_on_cycle = 0
        self.power_ons = 0
        self.trace_kinds = TRACEABLE if trace is True else EventKind(trace or 0)
        self._log_level = -1
        self._follow_log_level()
        self._drain()
        if coverage:
            self.coverage_on()
        watch_new_chip(self)
