"""The checks every board gets: the build against the board (its MCU and
memories, its clock, its LED wiring) and the scenarios the board names.

They need no product: a subject's checks (:class:`~fairdie.verify.Checks`)
run between the build checks (:data:`BUILD_CHECKS`) and the scenarios
(:data:`LATE_CHECKS`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairdie.errors import BoardError, FairdieError
from fairdie.verify._check import Check, Context, Result, fail, ok, skip

if TYPE_CHECKING:
    from fairdie.scenario import ScenarioResult

__all__ = ["BUILD_CHECKS", "LATE_CHECKS", "scenario_results"]

_SCENARIOS = "verify.scenarios"  # the Context.state key of the scenarios' results

#: how long mcu-and-memory runs the firmware from power-on (simulated seconds)
_FIRST_RUN_S = 0.1


def _mcu(ctx: Context) -> Result:
    c = ctx.c
    bd = c.board
    try:
        fw = c.setup.load()
        chip = ctx.chip(trace=False)
    except FairdieError as e:
        return fail(f"{e} (board {bd.name}: {bd.mcu})")
    ctx.runs = True
    # its first moments on the board: what it touches that the engine does not
    # model is reported (Context.unmodelled), whatever checks follow
    chip.power_on()
    chip.run(seconds=_FIRST_RUN_S)
    sec = fw.sections.get
    flash = sec(".text", 0) + sec(".data", 0) if fw.sections else len(fw.flash)
    ram = chip.ramend + 1 - chip.sram_start
    eeprom = sec(".eeprom", 0) if fw.sections else len(fw.eeprom or b"")
    parts = [f"flash {flash}/{chip.flash_size} B"]
    if fw.sections:
        parts.append(f"static SRAM {sec('.data', 0) + sec('.bss', 0) + sec('.noinit', 0)}/{ram} B")
    parts.append(f"EEPROM {eeprom}/{chip.eeprom_size} B")
    named = c.file.device.name if c.file.device else c.file.mcu
    head = f"built for the {named}" if named else f"a HEX: taken as the board's {bd.mcu}"
    return ok(
        f"{head}; {', '.join(parts)}",
        flash=flash,
        flash_size=chip.flash_size,
        eeprom=eeprom,
        eeprom_size=chip.eeprom_size,
    )


def _clock(ctx: Context) -> Result:
    c = ctx.c
    f, board_f = c.file_f_cpu, c.board.f_cpu
    where = f"board {c.board.name}: {board_f} Hz"
    if f is None:
        what = "a HEX names no clock" if not c.file.sections else "the ELF has no avr_mcu section"
        return skip(f"{what}: it runs at the board's clock ({where})", board_f_cpu=board_f)
    if f != board_f:
        return fail(
            f"the ELF's avr_mcu section says {f} Hz, the board runs at {board_f} Hz: its"
            f" timing (ADC instants, timers, timeouts) would be off by x{board_f / f:.3g}",
            f_cpu=f,
            board_f_cpu=board_f,
        )
    return ok(f"{f} Hz in the ELF's avr_mcu section, as the board ({where})", f_cpu=f)


def _wiring(ctx: Context) -> Result:
    from fairdie.board import check_build

    c = ctx.c
    bd = c.board
    if bd.firmware is None:
        return skip(
            f"board {bd.name} names no firmware target, so no build to pair with:"
            " its wiring is judged by what its LEDs show"
        )
    c.identify()
    try:
        check_build(bd, c.identified)
    except BoardError as e:
        return fail(str(e).removeprefix(f"{bd.source}: "), build=c.identified)
    wired = {"direct": "direct drive", "charlieplex": "charlieplexing", "mixed": "mixed drive"}
    how = wired.get(bd.led_drive or "", "its LEDs")
    if c.identified is None:
        return skip(
            f"{c.identify_note}: no build to pair with; the board's own build"
            f" ({bd.variant or 'default'}) fits its {how}, the file's LED drive is judged"
            " by what its LEDs show"
        )
    return ok(f"{c.identify_note}, made for {how}; board {bd.name} is wired for it")


def scenario_results(ctx: Context) -> list[ScenarioResult]:
    """The board's scenarios run on the candidate (once a verify run; the
    chips they ran are tracked for what they did not model)."""
    from fairdie.scenario import run_scenarios

    found = ctx.state.get(_SCENARIOS)
    if found is None:
        c = ctx.c
        found = run_scenarios(c.board.scenarios, firmware=c.path, board=c.board, seed=ctx.o.seed)
        for i, r in enumerate(found):
            if r.device is not None:
                ctx.track(r.device.chip)
                ctx.add_vcd(r.device.chip, scenario_vcd(i), f"scenario {c.board.scenarios[i]}")
        ctx.state[_SCENARIOS] = found
    for i, (name, r) in enumerate(zip(ctx.c.board.scenarios, found, strict=True)):
        if r.device is not None:
            ctx.link_file(scenario_vcd(i), f"VCD of scenario {name}")
        if all(e.command != r.replay for e in ctx.evidence.get(ctx.current, ())):
            ctx.link(ctx.current, f"scenario {name}: its replay", command=r.replay)
    return list(found)


def scenario_vcd(i: int) -> str:
    """The report's name of the VCD of the board's ``i``-th scenario (from 0)."""
    return f"scenario-{i + 1}.vcd"


def _scenarios(ctx: Context) -> Result:
    files = ctx.c.board.scenarios
    if not files:
        return skip("no scenarios on this board")
    results = scenario_results(ctx)
    ctx.tick(1.0)
    rows = {name: r.as_json() for name, r in zip(files, results, strict=True)}
    failed = [r for r in results if not r.passed]
    if failed:
        first = failed[0]
        more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
        return fail(
            f"{len(failed)} of {len(files)} scenarios failed: {first.message().splitlines()[0]}"
            f"{more}",
            scenarios=rows,
        )
    return ok(f"{len(files)} scenarios passed: {', '.join(files)}", scenarios=rows)


#: the checks of the build against the board, first, in order
BUILD_CHECKS: tuple[Check, ...] = (
    Check(
        "mcu-and-memory",
        "built for the board's MCU; fits its flash, SRAM and EEPROM",
        _mcu,
        always=True,
    ),
    Check("clock", "the clock the build expects (its avr_mcu section) is the board's", _clock),
    Check(
        "board-wiring",
        "the board file is wired as the build drives its LEDs",
        _wiring,
        always=True,
    ),
)
#: the checks after every subject's
LATE_CHECKS: tuple[Check, ...] = (
    Check("scenarios", "the scenario files the board names ([board] scenarios) pass", _scenarios),
)
