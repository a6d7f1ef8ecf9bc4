"""The typed facade over the compiled shim: one simulated AVR chip.

Everything here speaks Python types; cdata never leaves this module. Time is
counted in CPU cycles; seconds appear only as conveniences at the edges.
"""

from __future__ import annotations

import itertools
import math
import random
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdie.errors import FairdieError, FirmwareError, SimulationError
from fairdie.sim._firmware import Firmware, Symbol, load_firmware, mcu_matches
from fairdie.sim._regs import register_map
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._types import EepromWrite, Level, PortChange, StopReason, parse_pin

__all__ = ["SIMAVR_FIXES", "AdcSource", "Chip", "SignalChange"]

#: A constant in millivolts, or a callable ``channel -> millivolts`` called once per conversion.
AdcSource = float | int | Callable[[int], float]

_STOP_BITS = (
    (lib.FD_STOP_DEADLINE, StopReason.DEADLINE),
    (lib.FD_STOP_PIN, StopReason.PIN),
    (lib.FD_STOP_PC, StopReason.PC),
    (lib.FD_STOP_QUIET, StopReason.QUIET),
    (lib.FD_STOP_HALTED, StopReason.HALTED),
)
_EE_MODES = ("erase+write", "erase", "write")
_TRACE_BATCH = 1 << 14
_EVENTS = ffi.new("fd_event[]", _TRACE_BATCH)  # drain buffer, shared: drains copy at once

# Live chips by id, for the ADC callback. The C side holds the id, not a
# reference, so a chip is freed as soon as Python drops it (no cycle to wait for).
_CHIPS: weakref.WeakValueDictionary[int, Chip] = weakref.WeakValueDictionary()
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
    "sram": 0,  # power-on refills registers and SRAM (done here, not in C)
}


@dataclass(frozen=True, slots=True)
class SignalChange:
    """A change of an internal signal: ``sleep``, ``eeprom_busy`` or ``adc_mv``."""

    cycle: int
    name: str
    value: int


@ffi.def_extern()  # type: ignore[untyped-decorator]
def fd_py_adc(handle: Any, channel: int) -> int:
    chip = _CHIPS.get(int(ffi.cast("uintptr_t", handle)))
    return -1 if chip is None else chip._feed_adc(channel)


def _check(rc: int, error: type[FairdieError], message: str) -> None:
    """The one place a shim status becomes an exception: 0 is success."""
    if rc != 0:
        raise error(message)


def _check_range(what: str, value: float, lo: float, hi: float) -> None:
    if not (lo <= value <= hi) or (isinstance(value, float) and math.isnan(value)):
        raise FairdieError(f"{what} {value} is out of range ({lo}..{hi})")


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
        trace: bool = True,
        simavr_fixes: Iterable[str] | None = None,
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
            raw = lib.fd_new(core.encode(), self.frequency, self.vcc_mv, handle, mask)
            if raw != ffi.NULL:
                break
        if raw == ffi.NULL:
            raise FirmwareError(f"simavr has no model of the MCU {self.mcu!r}")
        self._c = ffi.gc(raw, lib.fd_free)
        info = ffi.new("fd_info *")
        lib.fd_get_info(self._c, info)
        self.flash_size = int(info.flash_size)
        self.sram_start = int(info.sram_start)
        self.ramend = int(info.ramend)
        self.eeprom_size = int(info.eeprom_size)
        self.ports = ffi.string(info.ports).decode()

        if len(fw.flash) > self.flash_size:
            raise FirmwareError(
                f"{name} needs {len(fw.flash)} bytes of flash; the {self.mcu} has {self.flash_size}"
            )
        _check(lib.fd_load_flash(self._c, fw.flash, len(fw.flash), 0), FirmwareError, "flash load")
        image = eeprom if eeprom is not None else fw.eeprom
        if image:
            self.write_eeprom(0, image)

        self._rng = random.Random(seed)
        self._adc: dict[int, Callable[[int], float]] = {}
        self._adc_error: BaseException | None = None
        self.port_changes: list[PortChange] = []
        self.signal_changes: list[SignalChange] = []
        self.power_on_cycle = 0
        self.power_ons = 0
        lib.fd_trace_enable(self._c, int(trace))
        self._drain()
        self.port_changes.clear()

    # ---- power ----------------------------------------------------------

    @property
    def powered(self) -> bool:
        return bool(lib.fd_powered(self._c))

    def power_on(self) -> None:
        """Power-on reset: I/O registers at reset values, PORF set, SRAM and
        registers filled with (seeded) garbage; EEPROM and flash kept."""
        if self.powered:
            raise SimulationError("power_on: the chip is already powered")
        fill = self._rng.randbytes(32 + self.ramend + 1 - self.sram_start)
        if "sram" in self.simavr_fixes:
            lib.fd_power_on(self._c, fill, len(fill))
        else:
            lib.fd_power_on(self._c, ffi.NULL, 0)
        self.power_ons += 1
        self.power_on_cycle = self.cycle
        self._drain()

    def power_off(self, *, torn_value: int | None = None) -> EepromWrite | None:
        """Cut the power. An EEPROM write in flight is lost (the byte keeps its
        old value) unless ``torn_value`` says what the cut leaves there.
        Returns the write that was cut, if any."""
        if torn_value is not None:
            _check_range("torn_value", torn_value, 0, 255)
        cut = self.eeprom_in_flight
        lib.fd_power_off(self._c, -1 if torn_value is None else torn_value)
        self._drain()
        return cut

    # ---- running --------------------------------------------------------

    @property
    def cycle(self) -> int:
        """Cycles since the chip was created (monotonic across power cycles)."""
        return int(lib.fd_cycle(self._c))

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
    def sleeping(self) -> bool:
        return bool(lib.fd_sleeping(self._c))

    def cycles_for(self, seconds: float) -> int:
        _check_range("seconds", seconds, 0, 1e6)
        return round(seconds * self.frequency)

    def run(
        self,
        cycles: int | None = None,
        *,
        seconds: float | None = None,
        until_pin: str | Iterable[str] | None = None,
        until_pc: int | str | None = None,
        until_quiet: float | None = None,
    ) -> StopReason:
        """Run for ``cycles`` (or ``seconds``) or until a condition, in C.

        ``until_pin``: stop when one of these pins changes level.
        ``until_pc``: stop when the program counter reaches a byte address or symbol.
        ``until_quiet``: stop once asleep with no pin change for that many seconds.
        """
        if (cycles is None) == (seconds is None):
            raise FairdieError("run: give exactly one of cycles and seconds")
        n = self.cycles_for(seconds) if seconds is not None else int(cycles or 0)
        if n < 0:
            raise FairdieError(f"run: cycles {n} is negative")
        if not self.powered:
            raise SimulationError("run: the chip is not powered")
        watch = ffi.NULL
        if until_pin is not None:
            pins = [until_pin] if isinstance(until_pin, str) else list(until_pin)
            w = bytearray(12)
            for p in pins:
                port, bit = self._pin(p)
                w[ord(port) - ord("A")] |= 1 << bit
            watch = ffi.new("uint8_t[12]", bytes(w))
        pc = -1
        if until_pc is not None:
            pc = self.symbol(until_pc).address if isinstance(until_pc, str) else int(until_pc)
        quiet = self.cycles_for(until_quiet) if until_quiet is not None else 0
        deadline = self.cycle + n
        while True:
            bits = lib.fd_run(self._c, deadline, watch, pc, quiet)
            self._drain()
            if bits & lib.FD_STOP_CALLBACK_ERROR:
                err, self._adc_error = self._adc_error, None
                raise SimulationError(f"the ADC source raised {err!r}") from err
            if bits & lib.FD_STOP_CRASHED:
                raise SimulationError(
                    f"simavr stopped the core at pc=0x{self.pc:04x}, cycle {self.cycle}"
                    " (bad opcode or address)"
                )
            if bits & ~lib.FD_STOP_TRACE_FULL:
                break
        reason = StopReason(0)
        for bit, flag in _STOP_BITS:
            if bits & bit:
                reason |= flag
        return reason

    def run_raw(self, cycles: int) -> None:
        """simavr's own run loop with nothing of ours in it (for benchmarks)."""
        lib.fd_run_raw(self._c, self.cycle + cycles)
        self._drain()

    def step_from_python(self, cycles: int) -> None:
        """One simavr step per Python call, as the old pysimavr binding ran.

        A benchmark yardstick only: fifteen-odd times slower than :meth:`run`.
        """
        end = self.cycle + cycles
        step, c = lib.fd_step, self._c
        while lib.fd_cycle(c) < end:
            step(c)
        self._drain()

    # ---- memory ------------------------------------------------------------

    def read_data(self, address: int, size: int = 1) -> bytes:
        """Data space: registers, I/O and SRAM, by data-space address."""
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

    def register(self, name: str) -> int:
        """Data-space address of an I/O register by its datasheet name."""
        try:
            return register_map(self.mcu)[name.upper()]
        except KeyError:
            raise FairdieError(f"the {self.mcu} has no register {name!r}") from None

    def read_io(self, name: str) -> int:
        return self.read_data(self.register(name))[0]

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
        buf = ffi.new("uint8_t[]", self.eeprom_size)
        lib.fd_eeprom_read(self._c, 0, buf, self.eeprom_size)
        return bytes(ffi.buffer(buf, self.eeprom_size))

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

    # ---- pins and ADC ------------------------------------------------------------

    def _pin(self, name: str) -> tuple[str, int]:
        try:
            port, bit = parse_pin(name)
        except ValueError as e:
            raise FairdieError(str(e)) from None
        if port not in self.ports:
            raise FairdieError(f"the {self.mcu} has no port {port} (pin {name})")
        return port, bit

    def port_regs(self, port: str) -> tuple[int, int, int]:
        """(DDR, PORT, PIN) of a port, e.g. ``chip.port_regs("B")``."""
        d, o, p = ffi.new("uint8_t *"), ffi.new("uint8_t *"), ffi.new("uint8_t *")
        _check(
            lib.fd_port_regs(self._c, port.upper().encode(), d, o, p),
            FairdieError,
            f"the {self.mcu} has no port {port}",
        )
        return int(d[0]), int(o[0]), int(p[0])

    def level(self, pin: str) -> Level:
        """What the pin drives: LOW/HIGH as an output, PULLUP or Z as an input."""
        port, bit = self._pin(pin)
        if not self.powered:
            return Level.Z
        ddr, out, _ = self.port_regs(port)
        return PortChange(self.cycle, port, ddr, out).level(bit)

    def drive(self, pin: str, level: bool | int | None) -> None:
        """Drive an input pin from outside (True/False), or release it (None:
        it then reads its pull-up, or low when floating, as simavr does)."""
        port, bit = self._pin(pin)
        lvl = -1 if level is None else int(bool(level))
        _check(
            lib.fd_pin_drive(self._c, port.encode(), bit, lvl), FairdieError, f"cannot drive {pin}"
        )
        self._drain()

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

    # ---- trace ----------------------------------------------------------------------

    def _drain(self) -> None:
        ev = _EVENTS
        while True:
            n = lib.fd_trace_drain(self._c, ev, _TRACE_BATCH)
            for i in range(n):
                e = ev[i]
                k = e.kind
                if k == lib.FD_EV_PORT:
                    self.port_changes.append(PortChange(int(e.cycle), chr(e.a), int(e.b), int(e.c)))
                elif k == lib.FD_EV_SLEEP:
                    self.signal_changes.append(SignalChange(int(e.cycle), "sleep", int(e.a)))
                elif k == lib.FD_EV_EEPROM:
                    self.signal_changes.append(SignalChange(int(e.cycle), "eeprom_busy", int(e.a)))
                elif k == lib.FD_EV_ADC:
                    self.signal_changes.append(SignalChange(int(e.cycle), "adc_mv", int(e.c)))
            if n < _TRACE_BATCH:
                return

    def clear_trace(self) -> None:
        self.port_changes.clear()
        self.signal_changes.clear()

    def port_state(self) -> dict[str, tuple[int, int]]:
        """Every port's (DDR, PORT) now, the starting point for a trace."""
        return {p: self.port_regs(p)[:2] for p in self.ports}

    def write_vcd(
        self,
        path: str | Path,
        *,
        pins: Iterable[str] | None = None,
        signals: Iterable[str] = ("sleep", "eeprom_busy", "adc_mv"),
        start: int = 0,
    ) -> Path:
        """Write the recorded trace (since ``start``) as a VCD file."""
        from fairdie.sim._vcd import write_vcd

        names = (
            list(pins) if pins is not None else [f"P{p}{b}" for p in self.ports for b in range(8)]
        )
        for n in names:
            self._pin(n)
        return write_vcd(
            Path(path),
            frequency=self.frequency,
            pins=names,
            port_changes=[c for c in self.port_changes if c.cycle >= start],
            signals=list(signals),
            signal_changes=[c for c in self.signal_changes if c.cycle >= start],
            end=self.cycle,
        )
