"""The core's checks of a recorded run, on any board: the energy it draws and
whether what it stores is stored before something new shows.

The run is the board's scenarios when it names any (each run through
:func:`fairdie.scenario.run_scenarios`, the engine's trace on), else
:data:`RUN_S` simulated seconds of the firmware from power-on with no input
(:func:`~fairdie.verify._timeline.record_run`). The LEDs' states come from
the pins' changes in the trace (:func:`fairdie.sim._vcd.led_lit`, the
engine's rule). A subject may replace either check with a stronger one of
the same name where it applies (the die's judge its presses).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fairdie.board import Board
from fairdie.sim import EventKind, PinChange
from fairdie.sim._vcd import led_lit
from fairdie.verify._check import Check, Context, Result, fail, ok, skip
from fairdie.verify._generic import scenario_results
from fairdie.verify._timeline import (
    Timeline,
    _conversions,
    _led_pins,
    _Registers,
    _sleeps,
    _writes,
    record_run,
    trace_fields,
)

if TYPE_CHECKING:
    from fairdie.device import Device

__all__ = ["RUN_CHECKS", "RUN_S", "lit_steps", "recorded_runs", "scenario_timeline"]

#: how long the firmware runs with no input when the board names no scenarios
RUN_S = 2.0
_CHUNK_S = 0.02  # LED light is summed over windows this long, as the Recorder reads it
_RUNS = "verify.runs"  # the Context.state key of the recorded runs


@dataclass(frozen=True)
class Runs:
    """The recorded runs and what each was."""

    timelines: tuple[Timeline, ...]
    what: tuple[str, ...]


def recorded_runs(ctx: Context) -> Runs:
    """The board's scenarios, or a run of :data:`RUN_S` seconds with no input (once)."""
    found = ctx.state.get(_RUNS)
    if isinstance(found, Runs):
        if ctx.c.board.scenarios:
            scenario_results(ctx)  # links the scenarios' VCDs and replays
        else:
            _link(ctx)
        return found
    bd = ctx.c.board
    if bd.scenarios:
        results = scenario_results(ctx)  # links the scenarios' VCDs and replays
        devices = [r.device for r in results if r.device is not None]
        runs = Runs(
            tuple(scenario_timeline(d) for d in devices),
            tuple(f"scenario {f}" for f, r in zip(bd.scenarios, results, strict=True) if r.device),
        )
        ctx.state[_RUNS] = runs
        return runs
    else:
        from fairdie.device import Device

        dev = Device(ctx.chip(), bd, seed=ctx.o.seed)
        tl = record_run(dev, RUN_S, keep=lambda chip: ctx.add_vcd(chip, "run.vcd"))
        runs = Runs((tl,), (f"{RUN_S:g} s from power-on, no input",))
    ctx.state[_RUNS] = runs
    _link(ctx)
    return runs


def _link(ctx: Context) -> None:
    ctx.link_file("run.vcd", f"VCD of the recorded run ({RUN_S:g} s from power-on, no input)")


def scenario_timeline(device: Device) -> Timeline:
    """The run a scenario left on ``device`` (its chip's whole trace), as a
    :class:`Timeline`. The ADC's conversions are timed at the prescaler
    ADCSRA holds when the run ends."""
    chip = device.chip
    events = trace_fields(chip)
    end = chip.cycle
    pins = tuple(chip.trace.pin_changes())
    ports = {p: chip.port_state(p) for p in chip.ports}
    for change in reversed(pins):  # each port as it was before its first change
        ports[change.port] = change.before
    unpowered: list[tuple[int, int]] = []
    off_at: int | None = 0
    for cycle, kind, a, _, _ in events:
        if kind == EventKind.POWER:
            if a and off_at is not None:
                if cycle > off_at:
                    unpowered.append((off_at, cycle))
                off_at = None
            elif not a and off_at is None:
                off_at = cycle
    if off_at is not None and end > off_at:
        unpowered.append((off_at, end))
    after = chip.eeprom
    before = bytearray(after)
    for _, kind, a, b, _ in reversed(events):  # each byte as it was before its first write
        if kind == EventKind.EEPROM_START and a < len(before):
            before[a] = b
    divider = _Registers(chip).adc_divider()
    board = device.board
    steps = _steps(pins, tuple(ports.items()), board, tuple(unpowered))
    lit = device.lit()
    return Timeline(
        frequency=chip.frequency,
        start=0,
        end=end,
        release=end,
        settled=end,
        pins=pins,
        pin_names=_led_pins(board),
        eeprom=_writes(events, end),
        adc=_conversions(events, {e[0]: divider for e in events if e[1] == EventKind.ADC}),
        sleeps=_sleeps(events, chip.mcu, end),
        led_names=board.led_names,
        led_windows=_windows(steps, 0, end, chip.cycles_for(_CHUNK_S), len(board.leds)),
        first_lit=next((c for c, m in steps if m), None),
        shown="",
        lit=lit,
        end_display="",
        end_lit=lit,
        before=bytes(before),
        after=after,
        codes=chip.adc_codes(),
        sleep_modes="sleep_modes" in chip.simavr_fixes,
        ports=tuple(ports.items()),
        unpowered=tuple(unpowered),
    )


def lit_steps(tl: Timeline, board: Board) -> list[tuple[int, int]]:
    """The LEDs lit over ``tl``: (cycle, mask from then on; bit i = the i-th LED)."""
    return _steps(tl.pins, tl.ports, board, tl.unpowered, tl.start)


def _steps(
    pins: Sequence[PinChange],
    ports: Sequence[tuple[str, int]],
    board: Board,
    unpowered: Sequence[tuple[int, int]],
    start: int = 0,
) -> list[tuple[int, int]]:
    words = dict(ports)
    leds = [(led.anode, led.cathode) for led in board.leds]
    masks: dict[tuple[tuple[str, int], ...], int] = {}  # by the words: a port cycles few

    def mask() -> int:
        key = tuple(words.items())
        m = masks.get(key)
        if m is None:
            m = masks[key] = sum(1 << i for i, (a, c) in enumerate(leds) if led_lit(words, a, c))
        return m

    #: (cycle, 0: a pin change, 1: power off, 2: power on; the pin change's index)
    changes: list[tuple[int, int, int]] = []
    for i, change in enumerate(pins):
        changes.append((change.cycle, 0, i))
    for a, b in unpowered:
        changes += [(a, 1, 0), (b, 2, 0)]
    steps = [(start, mask())]
    off = False
    for cycle, kind, i in sorted(changes):
        if kind == 0:
            change = pins[i]
            words[change.port] = change.state
        else:
            off = kind == 1
        now = 0 if off else mask()
        if now != steps[-1][1]:
            steps.append((max(cycle, start), now))
    return steps


def _windows(
    steps: Sequence[tuple[int, int]], start: int, end: int, chunk: int, n: int
) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """Each LED's lit cycles over consecutive windows of ``chunk`` cycles."""
    out = []
    for a in range(start, end, max(1, chunk)):
        b = min(end, a + chunk)
        lit = [0] * n
        for j, (c, m) in enumerate(steps):
            nxt = steps[j + 1][0] if j + 1 < len(steps) else end
            lo, hi = max(a, c), min(b, nxt)
            if hi > lo and m:
                for i in range(n):
                    if m >> i & 1:
                        lit[i] += hi - lo
        out.append((a, b, tuple(lit)))
    return tuple(out)


def _lit_in(steps: Sequence[tuple[int, int]], a: int, b: int) -> int:
    """The LEDs lit at some moment of ``[a, b)``."""
    found = 0
    for j, (c, m) in enumerate(steps):
        nxt = steps[j + 1][0] if j + 1 < len(steps) else None
        if c < b and (nxt is None or nxt > a):
            found |= m
    return found


def _energy(ctx: Context) -> Result:
    from fairdie.verify._energy import estimate_run

    runs = recorded_runs(ctx)
    board = ctx.c.board
    e = estimate_run(runs.timelines, board, runs.what)
    if board.leds and e.led_s <= 0:
        # the LEDs are what a battery's charge goes to on such a board: an
        # estimate without them would pass a firmware that never shows anything
        where = "; ".join(runs.what)
        return skip(
            f"the recorded run ({where}) lit none of the board's {len(board.leds)} LEDs:"
            " no charge of use to estimate"
        )
    ctx.energy = e
    return ok(e.summary(), **e.as_json())


def _stored(ctx: Context) -> Result:
    runs = recorded_runs(ctx)
    bd = ctx.c.board
    writes = 0
    first: tuple[str, Timeline, int, int, int, int] | None = None
    for tl, what in zip(runs.timelines, runs.what, strict=True):
        steps = lit_steps(tl, bd)
        window = bd.persistence_cycles_at(tl.frequency)
        for s, e, address in tl.eeprom:
            writes += 1
            new = _lit_in(steps, s, e) & ~_lit_in(steps, s - window, s)
            if new and first is None:
                first = (what, tl, s, e, address, new)
    where = "; ".join(runs.what)
    if not writes:
        return skip(f"the recorded run ({where}) wrote no EEPROM: nothing stored to show")
    if first is not None:
        what, tl, s, e, address, new = first
        names = ", ".join(n for i, n in enumerate(bd.led_names) if new >> i & 1)
        return fail(
            f"{names} lit while the EEPROM write of address {address} was in flight"
            f" ({tl.ms(s):.1f}..{tl.ms(e):.1f} ms, {what}), dark in the {bd.persistence_ms:g} ms"
            " before it began: something new showed before it was stored",
            writes=writes,
            address=address,
        )
    return ok(
        f"{writes} EEPROM writes ({where}): no LED lit while one was in flight that was dark"
        f" in the {bd.persistence_ms:g} ms before it began",
        writes=writes,
    )


#: the core's checks of a recorded run; a subject's check of the same name replaces one
#: where the subject applies
RUN_CHECKS: tuple[Check, ...] = (
    Check(
        "stored-before-shown",
        "no LED lights while an EEPROM write is in flight that was dark all through the"
        " persistence window before it began: what is stored, is stored before something new"
        " shows (skipped when the run writes no EEPROM)",
        _stored,
        weight=0.2,
    ),
    Check(
        "energy",
        "the charge of a recorded run (the board's scenarios, else 2 s with no input) and the"
        " hours a CR2032 lasts at it (an estimate)",
        _energy,
    ),
)
