"""fairdie debug's target on the engine, without gdb: a breakpoint after sleep
costs no wall time, a run without breakpoints batches, and breakpoints, watches
and steps stop where a step-by-step trace of the chip says they should (the
stub under avr-gdb is in test_debug.py)."""

from __future__ import annotations

import time

# ---- the engine under the debugger ------------------------------------------------


def test_a_breakpoint_after_seconds_of_sleep_costs_no_wall_time():
    from fairdie.debug._target import Target
    from fairdie.subjects.die import Die

    die = Die(seed=1)
    chip = die.chip
    die.power_on()
    target = Target(chip)
    target.add_break(chip.symbol("store_save").address)
    never = lambda: False  # noqa: E731
    target.resume(never)  # the press's save
    t0 = time.perf_counter()
    target.resume(never)  # the clear's save, after 155 watchdog ticks of sleep
    wall = time.perf_counter() - t0
    assert chip.pc == chip.symbol("store_save").address
    assert 9.9 < chip.cycles_powered / chip.frequency < 10.0
    assert chip.sleep_steps < 400  # fast-forwarded: a few steps per tick
    assert wall < 1.0


def test_a_run_without_breakpoints_is_not_checked_per_instruction():
    # the debugger asks the engine for no PC stop when nothing is armed, so
    # the run batches; with a breakpoint it checks every instruction in C
    from fairdie.debug._target import Target
    from fairdie.subjects.die import Die

    chip = Die(seed=1).chip
    seen: list[object] = []
    run = chip.run

    def spy(*args: object, **kw: object) -> object:
        seen.append(kw.get("until"))
        return run(*args, **kw)

    chip.run = spy
    chip.power_on()
    target = Target(chip)
    stop = target.resume(lambda: len(seen) > 3)
    assert stop.signal == 2 and seen and all(u is None for u in seen)
    target.add_break(chip.symbol("store_save").address)
    seen.clear()
    chip.power_off()
    chip.power_on()
    target.resume(lambda: False)
    assert seen and all(u is not None for u in seen)


def _powered_die():
    from fairdie.debug._target import Target
    from fairdie.subjects.die import Die

    die = Die(seed=1)
    die.power_on()
    return die.chip, Target(die.chip)


def _pc_trace(chip, n: int) -> list[int]:
    """The PC before each of ``n`` instructions, one run per instruction
    (polling loops run pass by pass, as they do while breakpoints are set)."""
    pcs = []
    chip.skip_polling = False
    for _ in range(n):
        pcs.append(chip.pc)
        chip.run(1)
    chip.skip_polling = True
    return pcs


def test_breakpoints_stop_at_each_arrival_as_a_step_trace_says():
    chip, target = _powered_die()
    snap = chip.snapshot()
    trace = _pc_trace(chip, 3000)  # the press: ADC, store_load, fair_roll, store_save
    chip.restore(snap)
    # pairs of addresses that share a slot of the engine's filter ((pc >> 1) & 255)
    breaks = {b for a in trace[100::97] for b in (a, a ^ 0x200)}
    for b in breaks:
        target.add_break(b)
    want = [pc for pc in trace[1:] if pc in breaks][:40]
    stops = []
    for _ in want:
        target.resume(lambda: False)
        stops.append(chip.pc)
    assert stops == want


def test_watch_stops_match_the_bytes_changing():
    chip, target = _powered_die()
    rec = chip.symbol("store_record")
    snap = chip.snapshot()
    changes = []
    before = chip.read_data(rec.address, rec.size)
    for _ in range(40_000):
        chip.run(1)
        now = chip.read_data(rec.address, rec.size)
        if now != before:
            changes.append(chip.cycle)
        before = now
    chip.restore(snap)
    target.add_watch(0x800000 + rec.address, rec.size)
    stops = []
    while chip.cycle < changes[-1]:
        stop = target.resume(lambda: False)
        assert stop.watch == 0x800000 + rec.address
        stops.append(chip.cycle)
    assert stops == changes and len(changes) > 6


def test_stepi_from_sleep_stops_at_the_vector_that_wakes_it():
    from fairdie.sim import EventKind, Until

    chip, target = _powered_die()
    chip.run(seconds=1, until=Until.event(EventKind.SLEEP))
    assert chip.sleeping
    stop = target.step(lambda: False)
    assert stop.signal == 5 and not chip.sleeping
    assert chip.pc == 8 * 2  # WDT_vect, vector 8 of the ATtiny13A (one word each)


def test_a_range_step_runs_an_interrupt_whole_unless_it_breaks_inside():
    from fairdie.sim import EventKind, Until

    chip, target = _powered_die()
    chip.run(seconds=1, until=Until.event(EventKind.SLEEP))
    after_sleep, ticks = chip.pc, chip.read_var("wdt_ticks")
    snap = chip.snapshot()
    stop = target.resume(lambda: False, step_range=(after_sleep - 2, after_sleep + 2))
    assert stop.signal == 5 and chip.read_var("wdt_ticks") == ticks + 1
    assert not after_sleep - 2 <= chip.pc < after_sleep + 2  # left the range, not in the ISR
    assert chip.pc > chip.symbol("__vector_8").address + chip.symbol("__vector_8").size
    chip.restore(snap)
    target.add_break(chip.symbol("__vector_8").address)
    target.resume(lambda: False, step_range=(after_sleep - 2, after_sleep + 2))
    assert chip.pc == chip.symbol("__vector_8").address
