"""A chip as gdb sees it: avr-gdb's registers and address spaces, breakpoints,
watches, and runs that stop on them.

avr-gdb numbers 35 registers: r0..r31 (one byte each), SREG (32, one byte),
SP (33, two bytes) and PC (34, four bytes, a byte address), all little-endian.
It folds the AVR's memories into one address space: flash from 0, data
(registers, I/O, SRAM) from 0x800000, EEPROM from 0x810000.

Runs go through :meth:`fairdie.sim.Chip.run`, in chunks so that gdb's Ctrl-C
is seen between two of them; breakpoints, watches and a step range are
checked by the engine in C (``Chip.set_breakpoints`` and friends), so a run
with none of them set batches at full speed and sleep fast-forwards either
way. Python never steps the chip one instruction at a time, except for
gdb's own ``stepi``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from fairdie.errors import FairdieError, SimulationError
from fairdie.sim import EventKind, StopReason, Until
from fairdie.sim._chip import Chip
from fairdie.sim._regs import register_map

__all__ = [
    "DATA",
    "EEPROM",
    "NUM_REGS",
    "PC",
    "SIGINT",
    "SIGPWR",
    "SIGTRAP",
    "SP",
    "SREG",
    "Stop",
    "Target",
    "TargetError",
]

DATA = 0x800000  #: avr-gdb's data space starts here
EEPROM = 0x810000  #: ... and EEPROM here
_SPACE_END = 0x820000  # fuses, lock bits and signature follow: not modelled
_MMCU = 0x910000  # where our builds put simavr's .mmcu tags (the MCU, clock, supply)
_R_SREG, _R_SPL, _R_SPH = 0x5F, 0x5D, 0x5E
NUM_REGS = 35
SREG, SP, PC = 32, 33, 34  #: avr-gdb's numbers of the registers past r31
_REG_SIZES = (1,) * 33 + (2, 4)

# gdb's own signal numbers (gdb/signals.def), as the remote protocol sends them
SIGINT = 2  #: gdb's Ctrl-C
SIGILL = 4  #: the core stopped on a bad opcode or address
SIGTRAP = 5  #: a breakpoint, a watch, a step
SIGPWR = 32  #: the chip is not powered

# Watch hits name the chip's engine stop (Chip.stop_event.b, the shim's FD_DBG_*)
_DBG_WATCH = 2

# a continue runs in chunks between two looks for gdb's Ctrl-C: the first
# short, then doubling while a chunk takes less than _CHUNK_WALL_S
_FIRST_CHUNK = 1 << 16
_MAX_CHUNK = 1 << 28
_CHUNK_WALL_S = 0.05
_K = TypeVar("_K")


class TargetError(Exception):
    """A request gdb made that the chip cannot serve (answered ``E01``)."""


@dataclass(frozen=True, slots=True)
class Stop:
    """Why the chip stopped, as a stop reply tells gdb."""

    signal: int = SIGTRAP
    watch: int | None = None  #: avr-gdb address of the watch that fired
    note: str | None = None  #: a line for gdb's console


class Target:
    """One chip under the debugger: registers, memory, breakpoints, runs."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self._breaks: Counter[int] = Counter()
        self._watches: Counter[tuple[int, int]] = Counter()  # (gdb address, length)
        self.last_stop = Stop()
        self.cycles_run = 0
        self._say: Callable[[str], None] = lambda _: None
        # registers whose memory byte is stale, read through simavr's handler:
        # SREG (kept as eight flags) and the timer counters (computed when
        # read). Other I/O registers are read as memory: some handlers have
        # side effects (ADCL locks the result, EECR may skip a polling loop).
        try:
            timers = [a for n, a in register_map(chip.mcu).items() if n.startswith("TCNT")]
        except FairdieError:
            timers = []
        self._live_io = frozenset([_R_SREG, *timers])

    # ---- registers ------------------------------------------------------------

    def registers(self) -> bytes:
        """All 35 registers as the ``g`` packet carries them."""
        chip = self.chip
        regs = chip.read_data(0, 32)
        sreg = chip.read_io_at(_R_SREG)
        sp, pc = self._sp().to_bytes(2, "little"), chip.pc.to_bytes(4, "little")
        return regs + bytes((sreg,)) + sp + pc

    def _sp(self) -> int:
        lo, hi = self.chip.read_data(_R_SPL, 2)
        return lo | (hi << 8 if self.chip.ramend > 0xFF else 0)

    def register(self, n: int) -> bytes:
        if not 0 <= n < NUM_REGS:
            raise TargetError(f"no register {n}")
        start = sum(_REG_SIZES[:n])
        return self.registers()[start : start + _REG_SIZES[n]]

    def set_registers(self, data: bytes) -> None:
        if len(data) < sum(_REG_SIZES):
            raise TargetError("short register packet")
        at = 0
        for n, size in enumerate(_REG_SIZES):
            self.set_register(n, data[at : at + size])
            at += size

    def set_register(self, n: int, value: bytes) -> None:
        if not 0 <= n < NUM_REGS or len(value) != _REG_SIZES[n]:
            raise TargetError(f"bad register {n}")
        chip, v = self.chip, int.from_bytes(value, "little")
        try:
            if n < SREG:
                chip.write_data(n, value)
            elif n == SREG:
                chip.set_sreg(v)
            elif n == SP:
                chip.write_data(_R_SPL, bytes((v & 0xFF,)))
                if chip.ramend > 0xFF:
                    chip.write_data(_R_SPH, bytes((v >> 8,)))
            else:
                chip.set_pc(v)
        except FairdieError as e:
            raise TargetError(str(e)) from None

    # ---- memory ----------------------------------------------------------------

    def read(self, address: int, size: int) -> bytes:
        """``size`` bytes at an avr-gdb address; fewer where the space ends."""
        chip = self.chip
        space, base, end = self._space(address)
        size = min(size, end - (address - base))
        if size <= 0:
            raise TargetError(f"0x{address:x} is outside the {chip.mcu}")
        a = address - base
        if space == "flash":
            return chip.read_flash(a, size)
        if space == "eeprom":
            return chip.read_eeprom(a, size)
        data = bytearray(chip.read_data(a, size))
        for r in self._live_io:
            if a <= r < a + size:
                data[r - a] = chip.read_io_at(r)
        return bytes(data)

    def write(self, address: int, data: bytes) -> None:
        """Write at an avr-gdb address: I/O registers as the CPU writes them."""
        chip = self.chip
        if _MMCU <= address < _MMCU + 0x10000:
            return  # simavr's .mmcu section (gdb's `load` sends it): no memory of the chip
        space, base, end = self._space(address)
        a = address - base
        if a + len(data) > end:
            raise TargetError(f"0x{address:x}+{len(data)} is outside the {chip.mcu}")
        try:
            if space == "flash":
                chip.write_flash(a, data)
            elif space == "eeprom":
                chip.write_eeprom(a, data)
            else:
                for i, b in enumerate(data):
                    if a + i == _R_SREG:
                        chip.set_sreg(b)
                    elif 0x20 <= a + i < chip.sram_start:
                        chip.write_io_at(a + i, b)
                    else:
                        chip.write_data(a + i, bytes((b,)))
        except FairdieError as e:
            raise TargetError(str(e)) from None

    def _space(self, address: int) -> tuple[str, int, int]:
        chip = self.chip
        if 0 <= address < DATA:
            return "flash", 0, chip.flash_size
        if address < EEPROM:
            return "data", DATA, chip.ramend + 1
        if address < _SPACE_END:
            return "eeprom", EEPROM, chip.eeprom_size
        raise TargetError(f"0x{address:x}: fuses, lock bits and signature are not modelled")

    # ---- breakpoints and watches -------------------------------------------------

    @property
    def breakpoints(self) -> list[int]:
        return sorted(self._breaks)

    def add_break(self, address: int) -> None:
        self._breaks[address] += 1
        try:
            self.chip.set_breakpoints(self._breaks)
        except FairdieError as e:
            self._remove(self._breaks, address)
            raise TargetError(str(e)) from None

    def remove_break(self, address: int) -> None:
        self._remove(self._breaks, address)
        self.chip.set_breakpoints(self._breaks)

    def add_watch(self, address: int, length: int) -> None:
        """A data-write watch at an avr-gdb data address (0x800000 + a)."""
        if not DATA <= address < EEPROM:
            raise TargetError("only data (SRAM, registers, I/O) can be watched")
        self._watches[(address, length)] += 1
        try:
            self._set_watches()
        except FairdieError as e:
            self._remove(self._watches, (address, length))
            raise TargetError(str(e)) from None

    def remove_watch(self, address: int, length: int) -> None:
        self._remove(self._watches, (address, length))
        self._set_watches()

    def _set_watches(self) -> None:
        self.chip.set_watches((a - DATA, n) for a, n in self._watches)

    @staticmethod
    def _remove(counter: Counter[_K], key: _K) -> None:
        if counter[key] > 1:
            counter[key] -= 1
        else:
            counter.pop(key, None)

    def clear(self) -> None:
        """Forget every breakpoint and watch (a new gdb session starts clean)."""
        self._breaks.clear()
        self._watches.clear()
        self.chip.set_breakpoints(())
        self.chip.set_watches(())
        self.chip.set_step_range(0, 0)

    # ---- running -----------------------------------------------------------------

    def resume(
        self,
        interrupted: Callable[[], bool],
        say: Callable[[str], None] = lambda _: None,
        *,
        step_range: tuple[int, int] | None = None,
    ) -> Stop:
        """Run until a breakpoint, a watch, the PC leaving ``step_range``, or
        ``interrupted()`` (asked between chunks) says gdb sent Ctrl-C;
        ``say`` tells once when the CPU sleeps with interrupts off.

        A range step (gdb's ``step`` and ``next``) runs an interrupt that
        comes in the middle whole, as if it were one instruction, and stops
        inside it only at a breakpoint or a watch.
        """
        if not self.chip.powered:
            return self._stopped(Stop(SIGPWR, note=_OFF))
        try:
            self._say = say
            if step_range is None:
                return self._stopped(self._go(interrupted))
            return self._stopped(self._range_step(interrupted, *step_range))
        except _Crash as e:
            return self._stopped(Stop(SIGILL, note=str(e)))

    def step(
        self, interrupted: Callable[[], bool], say: Callable[[str], None] = lambda _: None
    ) -> Stop:
        """One instruction (gdb's ``stepi``). Asleep, the CPU runs until it
        wakes (``say`` tells when nothing can wake it): the stop is at the
        interrupt vector that woke it."""
        chip = self.chip
        if not chip.powered:
            return self._stopped(Stop(SIGPWR, note=_OFF))
        try:
            if chip.sleeping:
                return self._stopped(self._until_wake(interrupted, say))
            # the watches are checked in C after the instruction; a
            # breakpoint at the next PC is a stop anyway
            until = Until.event(EventKind.PC) if self._watches else None
            reason = self._run(1, until)
            return self._stopped(self._hit() if reason & StopReason.PC else Stop())
        except _Crash as e:
            return self._stopped(Stop(SIGILL, note=str(e)))

    def _range_step(self, interrupted: Callable[[], bool], start: int, end: int) -> Stop:
        chip = self.chip
        end = min(end, chip.flash_size)
        while True:
            chip.set_step_range(start, end)
            try:
                stop = self._go(interrupted, irq=True)
            finally:
                chip.set_step_range(0, 0)
            if stop is not _ISR:
                return stop
            inside = self._finish_interrupt(interrupted)
            if inside is not None:
                return inside
            if not start <= chip.pc < end:  # the interrupt returned outside the range
                return Stop()

    def _finish_interrupt(self, interrupted: Callable[[], bool]) -> Stop | None:
        """Run the interrupt just entered until it returns (None), or until
        a breakpoint, a watch or Ctrl-C stops it inside (that stop)."""
        chip = self.chip
        sp = self._sp()
        width = 3 if chip.flash_size > 0x20000 else 2  # bytes of the pushed PC
        pushed = chip.read_data(sp + 1, width)
        back = int.from_bytes(pushed, "big") * 2
        chip.set_breakpoints([*self._breaks, back])
        try:
            while True:
                stop = self._go(interrupted, extra=True)
                if stop is _ISR:
                    continue  # cannot happen: no IRQ stop asked
                if stop.signal != SIGTRAP or stop.watch is not None or chip.pc != back:
                    return stop
                if self._sp() == sp + width:  # returned from this interrupt
                    return Stop() if back in self._breaks else None
                if back in self._breaks:
                    return stop
        finally:
            chip.set_breakpoints(self._breaks)

    def _go(
        self, interrupted: Callable[[], bool], *, irq: bool = False, extra: bool = False
    ) -> Stop:
        """Run in chunks until the engine stops on what is armed (returns
        :data:`_ISR` at an interrupt's entry when ``irq``), power goes, the
        core stops, or gdb interrupts. Breakpoints and the rest are checked
        in C, and only when some are armed (``extra``: the caller armed
        more than the session's)."""
        kinds = EventKind.IRQ if irq else EventKind(0)
        if self._breaks or self._watches or irq or extra:
            kinds |= EventKind.PC
        until = Until.event(kinds) if kinds else None
        chunk, told = _FIRST_CHUNK, False
        while True:
            t0 = time.perf_counter()
            reason = self._run(chunk, until)
            if reason & StopReason.IRQ:
                return _ISR
            if reason & StopReason.PC:
                return self._hit()
            if reason & StopReason.OFF:
                return Stop(SIGPWR, note=_OFF)
            if reason & StopReason.HALTED:
                if not reason & StopReason.DEADLINE:
                    return Stop(SIGTRAP, note="the core has stopped: nothing runs")
                if not told:  # as on a chip: it runs on, only timers can change anything
                    self._say(_HALTED)
                    told = True
            if interrupted():
                return Stop(SIGINT)
            if time.perf_counter() - t0 < _CHUNK_WALL_S:
                chunk = min(chunk * 2, _MAX_CHUNK)

    def _until_wake(self, interrupted: Callable[[], bool], say: Callable[[str], None]) -> Stop:
        chunk, told = _FIRST_CHUNK, False
        while True:
            reason = self._run(chunk, Until.event(EventKind.WAKE))
            if reason & StopReason.WAKE:
                return Stop()
            if reason & StopReason.HALTED and not told:  # as on a chip: the step never ends
                say(_HALTED)
                told = True
            if reason & StopReason.OFF:
                return Stop(SIGPWR, note=_OFF)
            if interrupted():
                return Stop(SIGINT)
            chunk = min(chunk * 2, _MAX_CHUNK)

    def _run(self, cycles: int, until: Until | None) -> StopReason:
        chip = self.chip
        c0 = chip.cycle
        try:
            return chip.run(cycles, until=until)
        except SimulationError as e:
            raise _Crash(str(e)) from None
        finally:
            self.cycles_run += chip.cycle - c0

    def _hit(self) -> Stop:
        ev = self.chip.stop_event
        if ev is not None and ev.b == _DBG_WATCH:
            address = DATA + ev.c
            for a, n in self._watches:  # report the watch gdb set, as gdb gave it
                if a <= address < a + n:
                    return Stop(watch=a)
            return Stop(watch=address)
        return Stop()

    def _stopped(self, stop: Stop) -> Stop:
        self.last_stop = stop
        return stop


class _Crash(Exception):
    """The engine stopped the core (bad opcode or address)."""


_OFF = "the chip is powered off: `monitor power on` (or `monitor press`) first"
_HALTED = "asleep with interrupts off: nothing but a reset wakes the CPU (Ctrl-C stops it)"
#: what _go returns when a range step meets an interrupt's entry
_ISR = Stop(signal=-1)
