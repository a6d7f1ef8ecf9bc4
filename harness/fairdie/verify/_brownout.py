"""The brown-out check: a firmware that writes EEPROM must have the brown-out
detector on, at a level at or above the minimum supply its clock needs.

Below its minimum voltage an AVR's CPU may misexecute, and a firmware that
writes EEPROM may then write a wrong byte or a wrong address (the
datasheets' "Preventing EEPROM Corruption"); the detector holds the chip in
reset there instead. The fuses come from the ELF's ``.fuse`` section
(avr-libc's ``FUSES``); a HEX carries none, so a HEX that is byte for byte a
build of the board's target takes that build's, and any other file is taken
at the MCU's factory values (the detector off). Whether it writes EEPROM:
the recorded run's writes (:func:`~fairdie.verify._recorded.recorded_runs`),
else its code, statically: an ``SBI EECR, EEPE`` (how avr-libc and
hand-written code start a write; a write started by ``OUT`` or ``STS`` to
EECR is seen only in the run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairdie.errors import FairdieError
from fairdie.verify._check import Check, Context, Result, fail, ok, skip
from fairdie.verify._recorded import recorded_runs

if TYPE_CHECKING:
    from fairdie.sim import Firmware, Fuses

__all__ = ["BROWNOUT_CHECKS", "sets_eepe_at"]

_SBI = 0x9A00  # SBI A, b: 1001 1010 AAAA Abbb


def sets_eepe_at(fw: Firmware, mcu: str) -> int | None:
    """The byte address of the first ``SBI EECR, EEPE`` (or EEWE) in ``fw``'s
    flash, None if there is none (or the MCU's headers name no EECR)."""
    from fairdie.sim._regs import bit_location

    where = None
    for bit in ("EEPE", "EEWE"):
        where = bit_location(mcu, bit, ("EECR",))
        if where is not None:
            break
    if where is None or not 0x20 <= where[0] < 0x40:  # SBI reaches I/O 0..31 only
        return None
    word = _SBI | (where[0] - 0x20) << 3 | where[1]
    flash = fw.flash
    for at in range(0, len(flash) - 1, 2):
        if flash[at] | flash[at + 1] << 8 == word:
            return at
    return None


def _fuses(ctx: Context) -> tuple[Fuses | None, str]:
    """The candidate's fuses, and where they come from (one phrase)."""
    ctx.c.identify()  # a HEX that is a build of the board's target: that build's
    return ctx.c.setup.fuses()


def _writes(ctx: Context) -> tuple[bool, str]:
    """Whether the firmware writes EEPROM, and the evidence (one phrase)."""
    runs = recorded_runs(ctx)
    n = sum(len(tl.eeprom) for tl in runs.timelines)
    if n:
        return True, f"{n} EEPROM writes in the recorded run, {'; '.join(runs.what)}"
    at = sets_eepe_at(ctx.c.file, ctx.c.board.mcu)
    if at is not None:
        return True, f"none in the recorded run, but its code sets EEPE at 0x{at:04X}"
    return (
        False,
        f"none in the recorded run, {'; '.join(runs.what)}, nor an SBI EECR,EEPE in its code",
    )


def _brownout(ctx: Context) -> Result:
    c = ctx.c
    mcu, hz = c.board.mcu, c.f_cpu
    try:
        f, source = _fuses(ctx)
    except FairdieError as e:
        return fail(str(e))
    if f is None:
        return skip(f"the fuse tables know no {mcu}: its brown-out detector is not judged")
    ctx.facts["fuses"] = f.burn
    writes, evidence = _writes(ctx)
    need = f.layout.min_mv(hz)
    safe = f.safe_bod_mv(hz)
    details = {
        "fuses": f.as_json(),
        "burn": f.burn,
        "source": source,
        "writes_eeprom": writes,
        "evidence": evidence,
        "min_mv": need,
    }
    at = f"{hz / 1e6:g} MHz"
    if not writes:
        return ok(
            f"writes no EEPROM: {evidence}; brown-out detector {f.bod}, {source}; burn {f.burn}",
            **details,
        )
    fix = f"; burn {f.with_bod(safe).burn} instead" if safe is not None else ""
    if not f.bod_on or f.bod_mv is None:
        return fail(
            f"writes EEPROM ({evidence}) with the brown-out detector {f.bod}, {source}:"
            f" below {need} mV the CPU may misexecute and corrupt it{fix}",
            **details,
        )
    if need is not None and f.bod_mv < need:
        return fail(
            f"writes EEPROM ({evidence}); the brown-out detector trips at {f.bod}, below the"
            f" {need / 1000:.2f} V the datasheet needs at {at}{fix}",
            **details,
        )
    return ok(
        f"writes EEPROM ({evidence}); brown-out detector on at {f.bod}, {source}, at or above"
        f" the minimum supply at {at}; burn {f.burn}",
        **details,
    )


#: the core's brown-out check, after the checks of a recorded run
BROWNOUT_CHECKS: tuple[Check, ...] = (
    Check(
        "brown-out",
        "a firmware that writes EEPROM has the brown-out detector on (its fuses: the ELF's"
        " .fuse section, else the MCU's factory values), at or above the minimum supply at"
        " its clock; prints the fuse bytes to burn",
        _brownout,
        weight=0.1,
    ),
)
