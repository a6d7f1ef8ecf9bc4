"""The ADC of a :class:`Chip`: sources fed per conversion or a block at a
time, and its log."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from fairdie.errors import FairdieError, SimulationError
from fairdie.sim._chipbase import ChipBase, check, check_range
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._types import AdcConversion

if TYPE_CHECKING:
    from fairdie.sim._chip import Chip

#: A constant in millivolts, or a callable ``channel -> millivolts`` called
#: once per conversion; a callable with ``next_values(channel, n)`` is asked
#: for its values a block at a time instead (see :mod:`fairdie.noise`).
AdcSource = float | int | Callable[[int], float]

# Live chips by id, for the ADC callbacks. The C side holds the id, not a
# reference, so a chip is freed as soon as Python drops it (no cycle to wait for).
CHIPS: weakref.WeakValueDictionary[int, Chip] = weakref.WeakValueDictionary()

_REFILL = lib.FD_ADC_REFILL
_fd_adc_buffer = lib.fd_adc_buffer
_fd_adc_buffered = lib.fd_adc_buffered
_from_buffer = ffi.from_buffer
_float64 = np.float64
# The size of the blocks asked for only decides how often C calls Python,
# never which values are read. A press's first block is what the last press
# took plus _MARGIN; further blocks start at _MORE and double up to _MOST.
_MARGIN = 16
_MORE = 64
_MOST = 4096


@ffi.def_extern()
def fd_py_adc(chip_id: int, channel: int) -> int:
    chip = CHIPS.get(chip_id)
    return -1 if chip is None else chip._feed_adc(channel)


@ffi.def_extern()
def fd_py_adc_block(chip_id: int, channel: int) -> int:
    chip = CHIPS.get(chip_id)
    return -1 if chip is None else chip._feed_adc_block(channel)


class Feed:
    """A channel fed a block at a time: its source, the block C reads (kept
    alive here), the values handed since the source's epoch last moved, how
    many to ask for next, and whether a block may be asked for ahead of a
    run (not from a source that reads a clock: ``bind_clock``)."""

    __slots__ = ("ahead", "block", "epoch", "handed", "next_values", "source", "want")

    def __init__(self, source: Any) -> None:
        self.source = source
        self.next_values: Callable[[int, int], Any] = source.next_values
        self.epoch: object = getattr(source, "epoch", None)
        self.block: Any = None
        self.handed = 0
        self.want = _MORE
        self.ahead = not hasattr(source, "bind_clock")


class AdcMixin(ChipBase):
    """ADC channels fed from Python: constants, callables asked per
    conversion, or sources asked for blocks of values."""

    #: the sources by channel, those fed a block at a time, and the sources
    #: with a state (``snapshot()``): replaced by :meth:`set_adc`, never
    #: changed in place, so that a snapshot keeps them as they are
    _adc: dict[int, Callable[[int], float]]
    _feeds: dict[int, Feed]
    _stateful: tuple[Any, ...]
    _adc_error: BaseException | None

    def set_adc(self, channel: int, source: AdcSource) -> None:
        """Feed an ADC channel: a constant in millivolts, or a callable
        ``channel -> millivolts`` called once per conversion start. A source
        with ``next_values(channel, n)`` hands C its values a block at a time
        (Python is called once per block, not per conversion); when its
        ``epoch`` changes (a ``seek``), the values held ahead are dropped
        before the next run."""
        check_range("ADC channel", channel, 0, 15)
        adc = {ch: s for ch, s in self._adc.items() if ch != channel}
        feeds = {ch: f for ch, f in self._feeds.items() if ch != channel}
        if callable(source):
            adc[channel] = source
            if hasattr(source, "next_values"):
                feeds[channel] = Feed(source)
                rc = _fd_adc_buffer(self._c, channel, ffi.NULL, 0, _REFILL)
            else:
                rc = lib.fd_adc_callback(self._c, channel)
        else:
            check_range("ADC millivolts", float(source), 0, 65535)
            rc = lib.fd_adc_constant(self._c, channel, round(source))
        self._adc, self._feeds = adc, feeds
        self._stateful = tuple([s for s in adc.values() if hasattr(s, "snapshot")])
        check(rc, FairdieError, f"the {self.mcu} has no ADC channel {channel}")

    def set_comparator(self, input: str, millivolts: float) -> None:
        """The analog comparator's input ``"AIN0"``, ``"AIN1"`` or ``"ADCn"``
        (the multiplexer's channel n, used with ACME while the ADC is off), in
        millivolts: ACO is AIN0 (or the 1.1 V bandgap with ACBG) above the
        other input, and ACI rises on the edge ACIS selects."""
        name = input.upper()
        index = {"AIN0": 0, "AIN1": 1}.get(name)
        if index is None and name.startswith("ADC") and name[3:].isdigit():
            index = 2 + int(name[3:])
        if index is None or index > 17:
            raise FairdieError(f"comparator input {input!r}: choose AIN0, AIN1 or ADC0..ADC15")
        check_range("comparator millivolts", float(millivolts), 0, 65535)
        rc = lib.fd_acomp_input(self._c, index, round(millivolts))
        check(rc, FairdieError, f"the {self.mcu} has no analog comparator")
        self._drain()

    def _feed_adc(self, channel: int) -> int:
        try:
            mv = float(self._adc[channel](channel))
            check_range("ADC millivolts", mv, 0, 65535)
            return round(mv)
        except BaseException as e:  # reported from run(), never lost in C
            self._adc_error = e
            return -1

    def _feed_adc_block(self, channel: int) -> int:
        f = self._feeds[channel]
        try:
            block = np.ascontiguousarray(f.next_values(channel, f.want), dtype=_float64)
            if block.ndim != 1:
                raise SimulationError(
                    f"ADC channel {channel}: the source {f.source!r} gave values shaped"
                    f" {block.shape}, not a sequence"
                )
            n = len(block)
            if not n:
                raise SimulationError(
                    f"ADC channel {channel}: the source {f.source!r} gave no more values"
                )
            if _fd_adc_buffer(self._c, channel, _from_buffer("double[]", block), n, _REFILL):
                bad = block[~((block >= 0) & (block <= 65535))]
                check_range("ADC millivolts", float(bad[0]), 0, 65535)
            f.block = block
            f.want = _MORE if not f.handed else min(2 * f.want, _MOST)
            f.handed += n
            return 0
        except BaseException as e:  # reported from run(), never lost in C
            self._adc_error = e
            return -1

    def _sync_feeds(self, ahead: bool = False) -> None:
        """Drop the values held ahead for a source whose epoch moved (it was
        sought): its next conversion asks for a block of the new position.
        With ``ahead``, a channel left without a block is handed its first
        block now, before the run, rather than at its first conversion (the
        same values: a block source's values do not depend on when they are
        asked for, unless it reads a clock, ``Feed.ahead``); a source's error
        raises here."""
        c = self._c
        for channel, f in self._feeds.items():
            epoch = getattr(f.source, "epoch", None)
            now = ahead and f.ahead
            if epoch != f.epoch:
                taken = f.handed - _fd_adc_buffered(c, channel)
                if taken > 0:  # a hint only (a restore leaves it rough)
                    f.want = min(taken + _MARGIN, _MOST)
                if not now:  # (else the block handed now replaces them)
                    _fd_adc_buffer(c, channel, ffi.NULL, 0, _REFILL)
                f.epoch, f.block, f.handed = epoch, None, 0
            if now and f.block is None and self._feed_adc_block(channel):
                _fd_adc_buffer(c, channel, ffi.NULL, 0, _REFILL)  # none of the old position
                err, self._adc_error = self._adc_error, None
                raise SimulationError(f"the ADC source raised {err!r}") from err

    def adc_log(self, since: int = 0) -> list[AdcConversion]:
        """Every conversion since trace position ``since``: channel, reference,
        millivolts and the code the firmware reads, as logged in C."""
        return self.trace.adc(since)

    def adc_codes(self, since: int = 0) -> tuple[int, ...]:
        """The codes the firmware read, conversion by conversion, since trace
        position ``since``: ``tuple(c.code for c in chip.adc_log(since))``, faster."""
        return self.trace.adc_codes(since)
