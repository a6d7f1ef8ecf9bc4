"""The ADC of a :class:`Chip`: sources fed once per conversion, and its log."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from fairdie.errors import FairdieError
from fairdie.sim._chipbase import ChipBase, check, check_range
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._types import AdcConversion

if TYPE_CHECKING:
    from fairdie.sim._chip import Chip

#: A constant in millivolts, or a callable ``channel -> millivolts`` called once per conversion.
AdcSource = float | int | Callable[[int], float]

# Live chips by id, for the ADC callback. The C side holds the id, not a
# reference, so a chip is freed as soon as Python drops it (no cycle to wait for).
CHIPS: weakref.WeakValueDictionary[int, Chip] = weakref.WeakValueDictionary()


@ffi.def_extern()
def fd_py_adc(chip_id: int, channel: int) -> int:
    chip = CHIPS.get(chip_id)
    return -1 if chip is None else chip._feed_adc(channel)


class AdcMixin(ChipBase):
    """ADC channels fed from Python: constants, or callables asked per conversion."""

    _adc: dict[int, Callable[[int], float]]
    _adc_error: BaseException | None

    def set_adc(self, channel: int, source: AdcSource) -> None:
        """Feed an ADC channel: a constant in millivolts, or a callable
        ``channel -> millivolts`` called once per conversion start."""
        check_range("ADC channel", channel, 0, 15)
        if callable(source):
            self._adc[channel] = source
            rc = lib.fd_adc_callback(self._c, channel)
        else:
            check_range("ADC millivolts", float(source), 0, 65535)
            self._adc.pop(channel, None)
            rc = lib.fd_adc_constant(self._c, channel, round(source))
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

    def adc_log(self, since: int = 0) -> list[AdcConversion]:
        """Every conversion since trace position ``since``: channel, reference,
        millivolts and the code the firmware reads, as logged in C."""
        return self.trace.adc(since)

    def adc_codes(self, since: int = 0) -> tuple[int, ...]:
        """The codes the firmware read, conversion by conversion, since trace
        position ``since``: ``tuple(c.code for c in chip.adc_log(since))``, faster."""
        return self.trace.adc_codes(since)
