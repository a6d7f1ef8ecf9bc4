"""One press of a die, recorded for verify's timing diagram and energy estimate."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fairdie.device import steady_symbol
from fairdie.verify import KINDS, Recorder, Timeline

if TYPE_CHECKING:
    from fairdie.sim import Chip
    from fairdie.subjects.die import Die

__all__ = ["record_press"]


def record_press(
    die: Die, hold: float, *, tail: float = 0.0, keep: Callable[[Chip], object] | None = None
) -> Timeline:
    """Press ``die`` for ``hold`` seconds and record it.

    A power-switch die is powered for ``hold`` seconds. A button die (powered
    on first if it is not) has its button held ``hold`` seconds without
    bounce, then is watched ``settle_ms`` and ``tail`` seconds more. The die's
    EEPROM and noise are as the caller left them. ``keep(chip)`` is called
    while the chip's trace still holds the press (to write it as a VCD).
    """
    chip = die.chip
    kinds = chip.trace_kinds
    chip.trace_kinds = KINDS
    try:
        timeline = _record(die, hold, tail)
        if keep is not None:
            keep(chip)
        return timeline
    finally:
        chip.trace_kinds = kinds


def _record(die: Die, hold: float, tail: float) -> Timeline:
    chip = die.chip
    before = chip.eeprom
    rec = Recorder(chip, die.board)
    if die.rolls_by_power:
        die.power_on()  # clears the trace
        rec.restart()
        start = chip.power_on_cycle
        rec.run_to(start + chip.cycles_for(min(hold, die.settle_s)))
        first = die.first_lit()
        shown = steady_symbol(die, die.faces, from_power_on=True)
        lit = die.lit() if shown != "off" else frozenset()
        release = start + chip.cycles_for(hold)
        rec.run_to(release)
        end_display, end_lit = die.display(), die.lit()
        codes = chip.adc_codes()
        end = settled = chip.cycle
        die.power_off()
    else:
        if not chip.powered:
            die.power_on()
            chip.run(seconds=die.settle_s)
        chip.clear_trace()
        chip.leds_restart()  # light, and the first LED lit, counted from the press on
        rec.restart()
        start = chip.cycle
        die.press(die.roll_control, bounce=False)
        release = start + chip.cycles_for(hold)
        rec.run_to(release)
        die.release(die.roll_control, bounce=False)
        rec.run_to(release + chip.cycles_for(die.settle_s))
        settled = chip.cycle
        shown = steady_symbol(die, die.faces)
        lit = die.lit() if shown != "off" else frozenset()
        first = die.first_lit()
        rec.run_to(chip.cycle + chip.cycles_for(tail))
        end_display, end_lit = die.display(), die.lit()
        codes = chip.adc_codes()
        end = chip.cycle
    return rec.timeline(
        start=start,
        end=end,
        release=release,
        settled=settled,
        first_lit=first,
        shown=shown,
        lit=lit,
        end_display=end_display,
        end_lit=end_lit,
        before=before,
        codes=codes,
    )
