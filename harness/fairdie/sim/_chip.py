"""The typed facade over the compiled shim: one simulated AVR chip.

Everything here speaks Python types; cdata never leaves this module. Time is
counted in CPU cycles; seconds appear only as conveniences at the edges.
"""

from __future__ import annotations

import itertools
import logging
import struct
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdie.errors import FairdieError, FirmwareError, SimulationError
from fairdie.sim._firmware import Firmware, Symbol, check_fits, load_firmware, mcu_matches
from fairdie.sim._pinout import compare_pins
from fairdie.sim._regs import bit_location, register_map
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._types import (
    TRACEABLE,
    AdcConversion,
    EepromWrite,
    Event,
    EventKind,
    Level,
    PinChange,
    StopReason,
    Until,
    parse_pin,
)

__all__ = ["SIMAVR_FIXES", "AdcSource", "Chip", "Snapshot", "Trace"]

#: A constant in millivolts, or a callable ``channel -> millivolts`` called once per conversion.
AdcSource = float | int | Callable[[int], float]

_EE_MODES = ("erase+write", "erase", "write")
_EVENT = struct.Struct("<QIIII")  # fd_event: cycle, kind, a, b, c
_TRACE_BATCH = 1 << 14
_EVENTS = ffi.new("fd_event[]", _TRACE_BATCH)  # drain buffer, shared: drains copy at once
_LOG_BUF = ffi.new("char[]", 1 << 13)
# snapshot buffers: the shim writes every byte it reads back, no need to clear them
_NEW_UNCLEARED = ffi.new_allocator(should_clear_after_alloc=False)
_SIMAVR_LOG = logging.getLogger("fairdie.simavr")
# The calls and constants of a press, looked up once (each lookup on the
# compiled module costs as much as a short C call).
_fd_cycle = lib.fd_cycle
_fd_run = lib.fd_run
_fd_pending = lib.fd_pending
_fd_powered = lib.fd_powered
_fd_power_on = lib.fd_power_on
_fd_power_off = lib.fd_power_off
_fd_eeprom_busy = lib.fd_eeprom_busy
_fd_eeprom_read = lib.fd_eeprom_read
_fd_leds_restart = lib.fd_leds_restart
_fd_leds_first_lit = lib.fd_leds_first_lit
_fd_leds_lit_cycles = lib.fd_leds_lit_cycles
_STOP_DEADLINE = lib.FD_STOP_DEADLINE
_STOP_EVENT = lib.FD_STOP_EVENT
_STOP_TRACE_FULL = lib.FD_STOP_TRACE_FULL
_STOP_FAILED = lib.FD_STOP_CALLBACK_ERROR | lib.FD_STOP_CRASHED
_PIN_KIND = int(EventKind.PIN)
_ADC_KIND = int(EventKind.ADC)
# simavr's levels (LOG_OUTPUT, LOG_ERROR, LOG_WARNING, LOG_TRACE, LOG_DEBUG)
_LOG_LEVELS = {1: logging.INFO, 2: logging.ERROR, 3: logging.WARNING, 4: logging.DEBUG}


def _simavr_log_level() -> int:
    """The simavr level the "fairdie.simavr" logger wants: lines above it are
    never formatted (simavr traces every watchdog tick at LOG_TRACE)."""
    if _SIMAVR_LOG.isEnabledFor(logging.DEBUG):
        return 5
    if _SIMAVR_LOG.isEnabledFor(logging.WARNING):
        return 3
    return 2 if _SIMAVR_LOG.isEnabledFor(logging.ERROR) else 0


# Live chips by id, for the ADC callback. The C side holds the id, not a
# reference, so a chip is freed as soon as Python drops it (no cycle to wait for).
_CHIPS: weakref.WeakValueDictionary[int, Chip] = weakref.WeakValueDictionary()
_IDS = itertools.count(1)
_MAX_F_CPU = 32_000_000
_SUPPLY = ("VCC", "GND")

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
}


@ffi.def_extern()
def fd_py_adc(chip_id: int, channel: int) -> int:
    chip = _CHIPS.get(chip_id)
    return -1 if chip is None else chip._feed_adc(channel)


def _check(rc: int, error: type[FairdieError], message: str) -> None:
    """The one place a shim status becomes an exception: 0 is success."""
    if rc != 0:
        raise error(message)


def _check_range(what: str, value: float, lo: float, hi: float) -> None:
    if not lo <= value <= hi:  # NaN fails every comparison: out of range too
        raise FairdieError(f"{what} {value} is out of range ({lo}..{hi})")


class Trace:
    """The events recorded so far, kept as the C shim wrote them (24 bytes each).

    Nothing is decoded until asked for: :meth:`events` and the typed views
    decode lazily, so a long run costs one copy per drain, not one Python
    object per event.
    """

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = bytearray()

    def __len__(self) -> int:
        return len(self._buf) // _EVENT.size

    def clear(self) -> None:
        self._buf.clear()

    def raw(self) -> bytes:
        """The packed events (``<QIIII``: cycle, kind, a, b, c), e.g. for numpy."""
        return bytes(self._buf)

    def mark(self) -> int:
        """A position to pass as ``since`` later."""
        return len(self)

    def tuples(self, since: int = 0) -> Iterator[tuple[int, int, int, int, int]]:
        if not since:
            return _EVENT.iter_unpack(self._buf)
        return _EVENT.iter_unpack(memoryview(self._buf)[since * _EVENT.size :])

    def events(self, kinds: EventKind = TRACEABLE, since: int = 0) -> Iterator[Event]:
        for cycle, kind, a, b, c in self.tuples(since):
            if kind & kinds:
                yield Event(cycle, EventKind(kind), a, b, c)

    def pin_changes(self, port: str | None = None, since: int = 0) -> list[PinChange]:
        want = ord(port.upper()) if port else 0
        return [
            PinChange(cycle, chr(a), b, c)
            for cycle, kind, a, b, c in self.tuples(since)
            if kind == _PIN_KIND and (not want or a == want)
        ]

    def adc(self, since: int = 0) -> list[AdcConversion]:
        make = AdcConversion.from_fields
        return [
            make(cycle, a, b, c) for cycle, kind, a, b, c in self.tuples(since) if kind == _ADC_KIND
        ]

    def adc_codes(self, since: int = 0) -> tuple[int, ...]:
        """The codes of :meth:`adc` alone (what the firmware read), without
        an object per conversion."""
        return tuple(c & 0xFFFF for _, kind, _, _, c in self.tuples(since) if kind == _ADC_KIND)

    def signal(self, kind: EventKind, since: int = 0) -> list[Event]:
        return list(self.events(kind, since))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A whole chip at one cycle; :meth:`Chip.restore` puts it back."""

    chip_id: int
    cycle: int
    data: Any  #: the shim's bytes (a cffi buffer, kept as it was written)
    python: tuple[Any, ...]


class Chip:
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
        _check_range("f_cpu", f, 1_000, _MAX_F_CPU)
        vcc = vcc_mv or fw.vcc_mv or 3000
        _check_range("vcc_mv", vcc, 1800, 5500)
        _check_range("seed", seed, 0, 2**64 - 1)

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
        _CHIPS[self._id] = self
        handle = ffi.cast("void *", self._id)
        raw = ffi.NULL
        # simavr names the "A" parts' cores without the A (attiny84a -> attiny84)
        for core in dict.fromkeys([self.mcu.removesuffix("a"), self.mcu]):
            raw = lib.fd_new(core.encode(), handle, mask, seed)
            if raw != ffi.NULL:
                break
        if raw == ffi.NULL:
            raise FirmwareError(f"simavr has no model of the MCU {self.mcu!r}")
        self._c = ffi.gc(raw, lib.fd_free)
        self._configure_pins()
        _check(lib.fd_start(self._c, self.frequency, self.vcc_mv), FirmwareError, "simavr init")
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

        check_fits(
            fw,
            self.mcu,
            flash_size=self.flash_size,
            sram_size=self.ramend + 1 - self.sram_start,
            eeprom_size=self.eeprom_size,
        )
        _check(lib.fd_load_flash(self._c, fw.flash, len(fw.flash), 0), FirmwareError, "flash load")
        image = eeprom if eeprom is not None else fw.eeprom
        if image:
            self.write_eeprom(0, image)

        self._adc: dict[int, Callable[[int], float]] = {}
        self._adc_error: BaseException | None = None
        self._stops = ffi.new("fd_stops *")
        self._why = ffi.new("fd_event *")
        self._led_out = ffi.new("uint64_t[32]")
        self._nleds = 0
        self.trace = Trace()
        self.stop_event: Event | None = None
        self.power_on_cycle = 0
        self.power_ons = 0
        self.trace_kinds = TRACEABLE if trace is True else EventKind(trace or 0)
        self._log_level = -1
        self._follow_log_level()
        self._drain()

    def _follow_log_level(self) -> None:
        level = _simavr_log_level()
        if level != self._log_level:
            self._log_level = level
            lib.fd_log_level(self._c, level)

    def _configure_pins(self) -> None:
        """Tell the shim what simavr 1.6 does not know: compare output pins, PUD."""
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

    # ---- power ----------------------------------------------------------

    @property
    def powered(self) -> bool:
        return _fd_powered(self._c) != 0

    def power_on(self) -> None:
        """Power-on reset: I/O registers at reset values, PORF set, SRAM and
        registers filled with (seeded) junk; EEPROM, flash and the outside
        world's drives and pulls are kept."""
        c = self._c
        if _fd_powered(c):
            raise SimulationError("power_on: the chip is already powered")
        _fd_power_on(c)
        self.power_ons += 1
        self.power_on_cycle = _fd_cycle(c)
        if _fd_pending(c):
            self._drain()

    def power_off(self, *, torn_value: int | None = None) -> EepromWrite | None:
        """Cut the power. An EEPROM write in flight is lost (the byte keeps its
        old value) unless ``torn_value`` says what the cut leaves there.
        Returns the write that was cut, if any."""
        c = self._c
        if torn_value is not None:
            _check_range("torn_value", torn_value, 0, 255)
        cut = self.eeprom_in_flight if _fd_eeprom_busy(c) else None
        _fd_power_off(c, -1 if torn_value is None else torn_value)
        if _fd_pending(c):
            self._drain()
        return cut

    # ---- running --------------------------------------------------------

    @property
    def cycle(self) -> int:
        """Cycles since the chip was created (monotonic across power cycles)."""
        return _fd_cycle(self._c)

    @property
    def seconds(self) -> float:
        return self.cycle / self.frequency

    @property
    def cycles_powered(self) -> int:
        """Cycles since the last power-on."""
        return self.cycle - self.power_on_cycle

    @property
    def pc(self) -> int:
        """Program counter, as a byte address."""
        return int(lib.fd_pc(self._c))

    @property
    def sleep_steps(self) -> int:
        """Sleep fast-forward steps taken so far: few when sleep is cheap."""
        return int(lib.fd_sleep_steps(self._c))

    @property
    def skip_polling(self) -> bool:
        """Skip whole passes of a loop polling EEPE or ADSC up to the next
        cycle timer: the run is cycle for cycle the same, only faster."""
        return self._skip_polling

    @skip_polling.setter
    def skip_polling(self, on: bool) -> None:
        self._skip_polling = bool(on)
        lib.fd_set_poll_skip(self._c, int(on))

    @property
    def batch_instructions(self) -> bool:
        """Let simavr run the instructions between two cycle timers in one
        call, while nothing of ours needs a look after each one: the run is
        cycle for cycle the same, only faster."""
        return self._batch

    @batch_instructions.setter
    def batch_instructions(self, on: bool) -> None:
        self._batch = bool(on)
        lib.fd_set_batch(self._c, int(on))

    @property
    def poll_skipped_cycles(self) -> int:
        """Cycles of EEPE/ADSC polling loops skipped whole (``skip_polling``)."""
        return int(lib.fd_poll_skipped(self._c))

    @property
    def sleeping(self) -> bool:
        return bool(lib.fd_sleeping(self._c))

    def cycles_for(self, seconds: float) -> int:
        if not 0 <= seconds <= 1e6:
            _check_range("seconds", seconds, 0, 1e6)
        return round(seconds * self.frequency)

    def run(
        self,
        cycles: int | None = None,
        *,
        seconds: float | None = None,
        to_cycle: int | None = None,
        until: Until | None = None,
    ) -> StopReason:
        """Run in C for ``cycles``, ``seconds``, or to the absolute cycle
        ``to_cycle``, or until an engine event of ``until``.

        Returns why it stopped; a stop on an event has that event's kind set
        and leaves the event in :attr:`stop_event`.
        """
        c = self._c
        now = _fd_cycle(c)
        if to_cycle is None and (cycles is None) != (seconds is None):
            if seconds is None:
                n = int(cycles or 0)
            elif 0 <= seconds <= 1e6:
                n = round(seconds * self.frequency)
            else:
                n = self.cycles_for(seconds)  # raises
            if n < 0:
                raise FairdieError(f"run: cycles {n} is negative")
            deadline = now + n
        elif to_cycle is not None and cycles is None and seconds is None:
            deadline = int(to_cycle)
            if deadline < now:
                raise FairdieError(f"run: cycle {deadline} is in the past (now {now})")
        else:
            raise FairdieError("run: give exactly one of cycles, seconds and to_cycle")
        if not _fd_powered(c):
            raise SimulationError("run: the chip is not powered")
        stops = ffi.NULL if until is None else self._set_stops(until)
        if _simavr_log_level() != self._log_level:
            self._follow_log_level()
        why = self._why
        self.stop_event = None
        while True:
            bits = _fd_run(c, deadline, stops, why)
            if _fd_pending(c):
                self._drain()
            if bits & _STOP_FAILED:
                self._raise_failure(bits)
            if bits & ~_STOP_TRACE_FULL:
                break
        if bits == _STOP_DEADLINE:  # the common case, without enum arithmetic
            return StopReason.DEADLINE
        return self._reason(bits)

    def _raise_failure(self, bits: int) -> None:
        if bits & lib.FD_STOP_CALLBACK_ERROR:
            err, self._adc_error = self._adc_error, None
            raise SimulationError(f"the ADC source raised {err!r}") from err
        raise SimulationError(
            f"simavr stopped the core at pc=0x{self.pc:04x}, cycle {self.cycle}"
            " (bad opcode or address)"
        )

    def _reason(self, bits: int) -> StopReason:
        reason = StopReason(0)
        if bits & _STOP_EVENT:
            w = self._why
            self.stop_event = Event(int(w.cycle), EventKind(w.kind), int(w.a), int(w.b), int(w.c))
            reason |= StopReason(int(w.kind))
        for bit, flag in (
            (lib.FD_STOP_DEADLINE, StopReason.DEADLINE),
            (lib.FD_STOP_QUIET, StopReason.QUIET),
            (lib.FD_STOP_HALTED, StopReason.HALTED),
            (lib.FD_STOP_OFF, StopReason.OFF),
        ):
            if bits & bit:
                reason |= flag
        return reason

    def _set_stops(self, until: Until) -> Any:
        s = self._stops
        s.kinds = int(until.kinds)
        ffi.memmove(s.pins, bytes(12), 12)
        for p in until.pins:
            port, bit = self._pin(p)
            s.pins[ord(port) - ord("A")] |= 1 << bit
        s.vectors = 0
        for v in until.vectors:
            _check_range("interrupt vector", v, 1, 63)
            s.vectors |= 1 << v
        s.pc = -1
        if until.pc is not None:
            s.pc = self.symbol(until.pc).address if isinstance(until.pc, str) else int(until.pc)
        s.quiet_cycles = 0
        if until.quiet_seconds is not None:
            s.quiet_cycles = max(1, self.cycles_for(until.quiet_seconds))
        return s

    def run_raw(self, cycles: int) -> None:
        """``avr->run`` in a C loop with nothing of ours in it (the benchmark's baseline)."""
        lib.fd_run_raw(self._c, self.cycle + cycles)
        self._drain()

    def step_from_python(self, cycles: int) -> None:
        """One simavr step per Python call, as the old pysimavr binding ran.

        A benchmark yardstick only: many times slower than :meth:`run`.
        """
        end = self.cycle + cycles
        step, c = lib.fd_step, self._c
        while step(c) < end:
            pass
        self._drain()

    # ---- debugging (fairdie.debug) -------------------------------------------------

    def set_breakpoints(self, addresses: Iterable[int]) -> None:
        """Stop a run whose ``until`` includes ``EventKind.PC`` when the PC
        reaches any of these byte addresses (replacing the previous set).
        Checked in C before each instruction, and only while breakpoints,
        watches or a step range are set; ``stop_event.b`` is 1."""
        pcs = sorted(set(addresses))
        arr = ffi.new("uint32_t[]", pcs or [0])
        _check(
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
        _check(
            lib.fd_debug_watches(self._c, addrs, sizes, len(items)),
            FairdieError,
            f"watches {items}: at most {lib.FD_DBG_MAX_WATCHES} of at most"
            f" {lib.FD_DBG_MAX_WATCH_SIZE} bytes each, inside data space",
        )

    def set_step_range(self, start: int, end: int) -> None:
        """Stop such a run once the PC leaves ``[start, end)`` (byte
        addresses; ``start == end``: no range); ``stop_event.b`` is 3."""
        _check(
            lib.fd_debug_range(self._c, start, end),
            FairdieError,
            f"step range 0x{start:x}..0x{end:x} is outside the flash",
        )

    def read_flash(self, address: int, size: int) -> bytes:
        """``size`` bytes of program memory from byte ``address``."""
        buf = ffi.new("uint8_t[]", max(size, 1))
        _check(
            lib.fd_flash_read(self._c, address, buf, size),
            FairdieError,
            f"flash read 0x{address:x}+{size} is outside the {self.mcu}",
        )
        return bytes(ffi.buffer(buf, size))

    def write_flash(self, address: int, data: bytes) -> None:
        """Program memory, written as a programmer would."""
        _check(
            lib.fd_load_flash(self._c, bytes(data), len(data), address),
            FairdieError,
            f"flash write 0x{address:x}+{len(data)} is outside the {self.mcu}",
        )

    def set_pc(self, pc: int) -> None:
        """Move the program counter (a byte address)."""
        _check(lib.fd_set_pc(self._c, pc), FairdieError, f"pc 0x{pc:x} is outside the flash")

    def set_sreg(self, value: int) -> None:
        """Set the status register's flags."""
        _check_range("SREG", value, 0, 255)
        lib.fd_set_sreg(self._c, value)

    def read_io_at(self, address: int) -> int:
        """An I/O register by data-space address, as :meth:`read_io` reads it."""
        v = int(lib.fd_io_read(self._c, address))
        if v < 0:
            raise FairdieError(f"0x{address:x} is no I/O register of the {self.mcu}")
        return v

    def write_io_at(self, address: int, value: int) -> None:
        """An I/O register by data-space address, as :meth:`write_io` writes it."""
        _check_range(f"I/O 0x{address:x}", value, 0, 255)
        _check(
            lib.fd_io_write(self._c, address, value),
            FairdieError,
            f"0x{address:x} is no I/O register of the {self.mcu}",
        )
        self._drain()

    # ---- snapshots -----------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The whole chip now: CPU, memories, peripherals, pending timers and
        interrupts, the EEPROM write in flight, the pin model, the LED
        history and the ADC sources' positions (a source with ``snapshot()``
        and ``restore(state)`` methods is asked for its state; other callables
        are taken as stateless)."""
        c = self._c
        buf = _NEW_UNCLEARED("uint8_t[]", self._snapshot_size)
        lib.fd_snapshot(c, buf)
        sources = tuple(
            (ch, src, src.snapshot() if hasattr(src, "snapshot") else None)
            for ch, src in self._adc.items()
        )
        return Snapshot(self._id, _fd_cycle(c), buf, (self.power_ons, self.power_on_cycle, sources))

    def restore(self, snap: Snapshot) -> None:
        """Put back a snapshot this chip made; running on repeats the first run."""
        if snap.chip_id != self._id:
            raise SimulationError("restore: the snapshot was made by another chip")
        _check(lib.fd_restore(self._c, snap.data), SimulationError, "restore: snapshot mismatch")
        self.power_ons, self.power_on_cycle, sources = snap.python
        self._adc = {ch: src for ch, src, _ in sources}
        for _, src, state in sources:
            if state is not None:
                src.restore(state)
        if _fd_pending(self._c):
            self._drain()

    # ---- memory ------------------------------------------------------------

    def read_data(self, address: int, size: int = 1) -> bytes:
        """Data space: registers, I/O and SRAM, by data-space address (raw memory)."""
        buf = ffi.new("uint8_t[]", max(size, 1))
        _check(
            lib.fd_data_read(self._c, address, buf, size),
            FairdieError,
            f"data read 0x{address:x}+{size} is outside the {self.mcu}",
        )
        return bytes(ffi.buffer(buf, size))

    def write_data(self, address: int, data: bytes) -> None:
        """Poke data space directly (no peripheral sees it)."""
        _check(
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
        _check_range(name, value, 0, 255)
        address = self.register(name)
        _check(
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

    # ---- EEPROM --------------------------------------------------------------

    @property
    def eeprom(self) -> bytes:
        """The stored bytes (a write in flight is not stored until it completes)."""
        return self.read_eeprom(0, self.eeprom_size)

    def read_eeprom(self, address: int, size: int) -> bytes:
        """``size`` stored bytes from ``address``."""
        buf = self._ee_buf
        if _fd_eeprom_read(self._c, address, buf, size) != 0:
            raise FairdieError(
                f"EEPROM read {address}+{size} is outside the {self.mcu}'s {self.eeprom_size} bytes"
            )
        return ffi.buffer(buf, size)[:]  # type: ignore[no-any-return]

    def write_eeprom(self, address: int, data: bytes) -> None:
        _check(
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
        w = ffi.new("fd_ee_write *")
        lib.fd_eeprom_in_flight(self._c, w)
        if not w.active:
            return None
        return EepromWrite(
            address=int(w.address),
            old=int(w.old_value),
            new=int(w.new_value),
            cycles_left=max(0, int(w.done_cycle) - self.cycle),
            mode=_EE_MODES[w.mode],
        )

    def set_eeprom_times(self, *, erase_write_us: int = 3400, single_us: int = 1800) -> None:
        """Programming times (datasheet: 3.4 ms erase+write, 1.8 ms erase or write)."""
        _check_range("erase_write_us", erase_write_us, 1, 100_000)
        _check_range("single_us", single_us, 1, 100_000)
        lib.fd_eeprom_set_times(self._c, erase_write_us, single_us)

    # ---- pins ------------------------------------------------------------------

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
        _check(
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
        _check(
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
        _check(
            lib.fd_pin_pull(self._c, port.encode(), bit, code), FairdieError, f"cannot pull {pin}"
        )
        self._drain()

    def pin_changes(self, port: str | None = None, since: int = 0) -> list[PinChange]:
        """The pin trace (optionally of one port): shorthand for ``trace.pin_changes``."""
        return self.trace.pin_changes(port, since)

    # ---- LEDs: light integrated in C -----------------------------------------------

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
        _check(lib.fd_leds_set(self._c, arr, len(items)), FairdieError, "bad LED pins")
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

    # ---- ADC ------------------------------------------------------------------------

    def set_adc(self, channel: int, source: AdcSource) -> None:
        """Feed an ADC channel: a constant in millivolts, or a callable
        ``channel -> millivolts`` called once per conversion start."""
        _check_range("ADC channel", channel, 0, 15)
        if callable(source):
            self._adc[channel] = source
            rc = lib.fd_adc_callback(self._c, channel)
        else:
            _check_range("ADC millivolts", float(source), 0, 65535)
            self._adc.pop(channel, None)
            rc = lib.fd_adc_constant(self._c, channel, round(source))
        _check(rc, FairdieError, f"the {self.mcu} has no ADC channel {channel}")

    def _feed_adc(self, channel: int) -> int:
        try:
            mv = float(self._adc[channel](channel))
            _check_range("ADC millivolts", mv, 0, 65535)
            return round(mv)
        except BaseException as e:  # reported from run(), never lost in C
            self._adc_error = e
            return -1

    def adc_log(self, since: int = 0) -> list[AdcConversion]:
        """Every conversion since trace position ``since``: channel, reference,
        millivolts and the code the firmware reads, as logged in C."""
        return self.trace.adc(since)

    def adc_codes(self, since: int = 0) -> tuple[int, ...]:
        """The codes the firmware read, conversion by conversion, since trace
        position ``since``: ``tuple(c.code for c in chip.adc_log(since))``, faster."""
        return self.trace.adc_codes(since)

    # ---- trace ----------------------------------------------------------------------

    @property
    def trace_kinds(self) -> EventKind:
        """The kinds of event the trace records (fewer is faster)."""
        return self._trace_kinds

    @trace_kinds.setter
    def trace_kinds(self, kinds: EventKind) -> None:
        self._trace_kinds = EventKind(kinds) & TRACEABLE
        lib.fd_trace_mask(self._c, int(self._trace_kinds))

    def _drain(self) -> None:
        c = self._c
        pending = _fd_pending(c)
        if not pending:
            return
        ev, buf = _EVENTS, self.trace._buf
        while pending & 1:
            n = lib.fd_trace_drain(c, ev, _TRACE_BATCH)
            buf += ffi.buffer(ev, n * _EVENT.size)
            if n < _TRACE_BATCH:
                break
        if not pending & 2:
            return
        n = lib.fd_log_drain(c, _LOG_BUF, len(_LOG_BUF))
        if n:
            for line in ffi.buffer(_LOG_BUF, n)[:].decode("utf-8", "replace").splitlines():
                if line:
                    level = _LOG_LEVELS.get(ord(line[0]) - 48, logging.DEBUG)
                    _SIMAVR_LOG.log(level, "%s: %s", self.mcu, line[1:].strip())

    def clear_trace(self) -> None:
        self.trace.clear()

    def write_vcd(
        self,
        path: str | Path,
        *,
        pins: Iterable[str] | None = None,
        signals: Iterable[str] = ("sleep", "eeprom_busy", "adc_mv"),
        since: int = 0,
        comment: str = "",
    ) -> Path:
        """Write the recorded trace (from trace position ``since``) as a VCD file
        (pyvcd; ``fairdie.sim._vcd`` lists the signals). Pins default to every
        pin of every port; a value no event changes is the chip's now."""
        from fairdie.sim._vcd import ChipState, write_vcd

        names = (
            list(pins) if pins is not None else [f"P{p}{b}" for p in self.ports for b in range(8)]
        )
        for n in names:
            self._pin(n)
        state = ChipState(
            ports={p: self.port_state(p) for p in self.ports},
            powered=self.powered,
            sleeping=self.sleeping,
            eeprom_busy=self.eeprom_in_flight is not None,
        )
        return write_vcd(
            Path(path),
            frequency=self.frequency,
            pins=names,
            events=list(self.trace.events(since=since)),
            signals=list(signals),
            end=self.cycle,
            state=state,
            comment=comment,
        )
