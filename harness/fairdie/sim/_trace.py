"""The trace (events as the C shim recorded them) and simavr's log, for :class:`Chip`."""

from __future__ import annotations

import dataclasses
import logging
import struct
from collections.abc import Iterable, Iterator
from itertools import compress
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie.sim._chipbase import ChipBase
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._types import (
    TRACEABLE,
    AdcConversion,
    Event,
    EventFields,
    EventKind,
    PinChange,
)

if TYPE_CHECKING:
    from fairdie.sim._vcd import Parts

EVENT = struct.Struct("<QIIII")  # fd_event: cycle, kind, a, b, c
_HALVES, _KIND_BYTE, _CODE_HALF = EVENT.size // 2, 8, 20 // 2  # kind at byte 8, c at 20
_TRACE_BATCH = 1 << 14
_EVENTS = ffi.new("fd_event[]", _TRACE_BATCH)  # drain buffer, shared: drains copy at once
_LOG_BUF = ffi.new("char[]", 1 << 13)
_SIMAVR_LOG = logging.getLogger("fairdie.simavr")
_fd_pending = lib.fd_pending
_PIN_KIND = int(EventKind.PIN)
_ADC_KIND = int(EventKind.ADC)
_TRACEABLE = int(TRACEABLE)
# Event and PinChange made field by field through their slots: what their
# (frozen) __init__ does, a third of its time, for the long traces
_new = object.__new__
_event_cycle, _event_kind, _event_a, _event_b, _event_c = (
    getattr(Event, f).__set__ for f in ("cycle", "kind", "a", "b", "c")
)
_pin_cycle, _pin_port, _pin_state, _pin_before = (
    getattr(PinChange, f).__set__ for f in ("cycle", "port", "state", "before")
)
_KINDS = {int(k): k for k in EventKind}  # the single kinds, without an enum call per event
# simavr's levels (LOG_OUTPUT, LOG_ERROR, LOG_WARNING, LOG_TRACE, LOG_DEBUG)
_LOG_LEVELS = {1: logging.INFO, 2: logging.ERROR, 3: logging.WARNING, 4: logging.DEBUG}


def simavr_log_level() -> int:
    """The simavr level the "fairdie.simavr" logger wants: lines above it are
    never formatted (simavr traces every watchdog tick at LOG_TRACE)."""
    if _SIMAVR_LOG.isEnabledFor(logging.DEBUG):
        return 5
    if _SIMAVR_LOG.isEnabledFor(logging.WARNING):
        return 3
    return 2 if _SIMAVR_LOG.isEnabledFor(logging.ERROR) else 0


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
        return len(self._buf) // EVENT.size

    def clear(self) -> None:
        self._buf.clear()

    def copy(self) -> Trace:
        """The events recorded so far, kept apart: later runs do not change them."""
        kept = Trace.__new__(Trace)
        kept._buf = self._buf[:]
        return kept

    def raw(self) -> bytes:
        """The packed events (``<QIIII``: cycle, kind, a, b, c), e.g. for numpy."""
        return bytes(self._buf)

    def mark(self) -> int:
        """A position to pass as ``since`` later."""
        return len(self)

    def tuples(self, since: int = 0) -> Iterator[EventFields]:
        if not since:
            return EVENT.iter_unpack(self._buf)
        return EVENT.iter_unpack(memoryview(self._buf)[since * EVENT.size :])

    def events(self, kinds: EventKind = TRACEABLE, since: int = 0) -> Iterator[Event]:
        mask, known = int(kinds), _KINDS
        for cycle, kind, a, b, c in self.tuples(since):
            if kind & mask:
                e = _new(Event)
                _event_cycle(e, cycle)
                _event_kind(e, known.get(kind) or EventKind(kind))
                _event_a(e, a)
                _event_b(e, b)
                _event_c(e, c)
                yield e

    def pin_words(self, port: str | None = None, since: int = 0) -> list[tuple[int, str, int, int]]:
        """:meth:`pin_changes` as plain tuples (cycle, port, state, before),
        without an object per change."""
        want = ord(port.upper()) if port else 0
        return [
            (cycle, chr(a), b, c)
            for cycle, kind, a, b, c in self.tuples(since)
            if kind == _PIN_KIND and (not want or a == want)
        ]

    def pin_edges(
        self, port: str, bit: int, since: int = 0, *, level: bool | None = None
    ) -> tuple[list[int], bool | None]:
        """The cycles at which pin ``bit`` of ``port`` changed level in the
        pin changes of that port from position ``since``, and its level after
        them. Each change is compared with the level before it: ``level``
        (None: unknown, the first change only sets it), then each change's.

        The same as a loop over :meth:`pin_changes`, read off the packed
        events with numpy, without an object per event: a speaker that
        shares its port with a multiplexed display, whose refresh fills the
        trace, is read in milliseconds.
        """
        import numpy as np

        names = ("cycle", "kind", "a", "b", "c")  # EVENT's fields, in its format's order
        event = np.dtype(list(zip(names, ("<u8", "<u4", "<u4", "<u4", "<u4"), strict=True)))
        assert event.itemsize == EVENT.size
        events = np.frombuffer(self.raw(), dtype=event)[since:]
        mine = events[(events["kind"] == _PIN_KIND) & (events["a"] == ord(port.upper()))]
        if not len(mine):
            return [], level
        high = (mine["b"] >> bit) & 1
        changed = np.empty(len(mine), dtype=bool)
        changed[0] = level is not None and bool(high[0]) != level
        np.not_equal(high[1:], high[:-1], out=changed[1:])
        return mine["cycle"][changed].tolist(), bool(high[-1])

    def pin_changes(self, port: str | None = None, since: int = 0) -> list[PinChange]:
        out = []
        for cycle, letter, state, before in self.pin_words(port, since):
            ch = _new(PinChange)
            _pin_cycle(ch, cycle)
            _pin_port(ch, letter)
            _pin_state(ch, state)
            _pin_before(ch, before)
            out.append(ch)
        return out

    def adc(self, since: int = 0) -> list[AdcConversion]:
        make = AdcConversion.from_fields
        return [
            make(cycle, a, b, c) for cycle, kind, a, b, c in self.tuples(since) if kind == _ADC_KIND
        ]

    def adc_codes(self, since: int = 0) -> tuple[int, ...]:
        """The codes of :meth:`adc` alone (what the firmware read), without
        an object per conversion."""
        # the codes: c's low half of each event (16-bit halves, little-endian
        # as EVENT); the conversions: the events whose kind's low byte is the
        # ADC's (kinds are single bits: no other has that low byte)
        buf = self._buf
        codes = memoryview(buf).cast("H")[since * _HALVES + _CODE_HALF :: _HALVES]
        kinds = buf[since * EVENT.size + _KIND_BYTE :: EVENT.size]
        n = kinds.count(_ADC_KIND)
        if n == len(kinds):  # conversions only (a press's trace, by default)
            return tuple(codes.tolist())
        if 4 * n > len(kinds):  # mostly conversions: picked in C
            return tuple(compress(codes.tolist(), map(_ADC_KIND.__eq__, kinds)))
        # few conversions among many events (pins): each found by a scan in C
        find, at = kinds.find, -1
        picked = []
        for _ in range(n):
            at = find(_ADC_KIND, at + 1)
            picked.append(codes[at])
        return tuple(picked)

    def signal(self, kind: EventKind, since: int = 0) -> list[Event]:
        return list(self.events(kind, since))


class TraceMixin(ChipBase):
    """The trace and the log of a chip: what is recorded, and draining it from C."""

    _trace_kinds: EventKind
    _log_level: int

    def _follow_log_level(self) -> None:
        level = simavr_log_level()
        if level != self._log_level:
            self._log_level = level
            lib.fd_log_level(self._c, level)

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
            buf += ffi.buffer(ev, n * EVENT.size)
            if n < _TRACE_BATCH:
                break
        if pending & 4:
            self._note_unmodelled()
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
        parts: Parts | None = None,
    ) -> Path:
        """Write the recorded trace (from trace position ``since``) as a VCD file
        (pyvcd; ``fairdie.sim._vcd`` lists the signals), with a board's LEDs,
        buttons and speaker when ``parts`` names them. Pins default to every pin of
        every port; a value no event changes is the chip's now."""
        from fairdie.sim._vcd import ChipState, Parts, write_vcd

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
            sleep_mode=self.sleep_mode,
        )
        if parts is None or not parts.sleep_names:
            parts = dataclasses.replace(parts or Parts(), sleep_names=self._sleep_names)
        return write_vcd(
            Path(path),
            frequency=self.frequency,
            pins=names,
            events=[e for e in self.trace.tuples(since) if e[1] & _TRACEABLE],
            signals=list(signals),
            end=self.cycle,
            state=state,
            comment=comment,
            parts=parts,
        )
