"""The game's hardware, checked in emulation: its notes (A5 within one
Timer1 step of 880 Hz), its idle power-down (no timer interrupt while
asleep, GO wakes it with the game intact, the current asleep from verify's
energy model) and its display (about 1 kHz a cell, no LED glowing that the
position leaves dark, each cell on its own LED)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairdie.errors import FairdieError
from fairdie.sim import EventKind
from fairdie.subjects.silver_dollar._solver import (
    Position,
    cells,
    format_position,
    move_between,
    parse_position,
    perfect_player,
)
from fairdie.subjects.silver_dollar._trials import play
from fairdie.subjects.silver_dollar.checks._state import GameState
from fairdie.verify import KINDS, Context, Recorder, Result, estimate_run, fail, ok
from fairdie.verify._recorded import lit_steps

if TYPE_CHECKING:
    from fairdie.subjects.silver_dollar._game import Game, Note
    from fairdie.verify import Timeline

__all__ = ["IDLE_S", "REFRESH_HZ", "game_display", "game_sleep", "game_tones", "timer1_step"]

#: no press this long: display off, power-down (the spec)
IDLE_S = 30.0
_EARLY_S = 29.5  # still awake here
_ASLEEP_S = 1.0  # watched (and its current estimated) this long asleep
#: the refresh a lit cell must show (about 1 kHz)
REFRESH_HZ = (900.0, 1100.0)
_WATCH_S = 0.05  # the display watched this long
_TUNE_MIN_S = 0.05  # a tune's notes: longer than a click
#: the gaps between a move's clicks read as a slow tone: none of a tune's
_TUNE_MIN_HZ = 100.0
#: positions placed to see each cell on its own LED (between them, every cell
#: is shown both lit and dark beside lit neighbours)
_PLACED = ("12,10,8,6,4", "11,9,7,5,3", "12,9,6,3,1", "10,8,7,2,1")


def timer1_step(f_cpu: int, hz: float = 880.0, prescaler: int = 64) -> float:
    """The gap between Timer1's CTC tone nearest ``hz`` and the next lower one."""
    top = round(f_cpu / (2 * prescaler * hz)) - 1
    unit = f_cpu / (2 * prescaler)
    return unit / (top + 1) - unit / (top + 2)


def _names(notes: list[Note]) -> str:
    return " ".join(n.name or f"{n.hz:.0f}Hz" for n in notes) or "nothing"


def _tune(game: Game, since: int) -> list[Note]:
    return [n for n in game.notes(since, min_s=_TUNE_MIN_S) if n.hz >= _TUNE_MIN_HZ]


def game_tones(ctx: Context) -> Result:
    st = GameState.of(ctx)
    step = timer1_step(ctx.c.f_cpu)
    tunes: dict[str, list[Note]] = {}
    try:
        game, start = st.started(2)
        played = play(game, perfect_player(), start)
        game.chip.run(seconds=1.5)
        if played.human_won:
            tunes["the human's win"] = _tune(game, played.last_mark)
        if not isinstance(st.placing(), str):
            game = st.placed(parse_position("6,4,3,2,1"), 0)  # its only move wins
            game.chip.run(seconds=1.5)
            tunes["the device's win"] = _tune(game, 0)
    except FairdieError as e:
        return fail(f"playing a game to its end: {e}")
    heard = [n for notes in tunes.values() for n in notes]
    off = [n for n in heard if not n.name]
    said = "; ".join(f"{k}: {_names(v)}" for k, v in tunes.items())
    if not heard:
        return fail("no tune at the end of a game")
    if off:
        return fail(f"notes off the C5..B5 scale: {_names(off)} ({said})")
    a5 = [n.hz for n in heard if n.name == "A5"]
    if not a5:
        return fail(f"no A5 in the tunes ({said})")
    worst = max(a5, key=lambda hz: abs(hz - 880))
    if abs(worst - 880) > step:
        return fail(
            f"A5 at {worst:.1f} Hz, {abs(worst - 880):.1f} Hz from 880 Hz: over one Timer1"
            f" step ({step:.1f} Hz)"
        )
    return ok(
        f"{said}; A5 at {worst:.1f} Hz, within one Timer1 step ({step:.1f} Hz) of 880 Hz",
        a5_hz=round(worst, 2),
        step_hz=round(step, 2),
        tunes={k: [n.name for n in v] for k, v in tunes.items()},
    )


def game_sleep(ctx: Context) -> Result:
    st = GameState.of(ctx)
    try:
        game, start = st.started(3)
    except FairdieError as e:
        return fail(f"starting a game: {e}")
    chip = game.chip
    t0 = chip.cycle
    kinds = chip.trace_kinds
    chip.trace_kinds = EventKind(0)  # the wait's trace is cleared after it: none recorded
    chip.run(to_cycle=t0 + chip.cycles_for(_EARLY_S))
    chip.trace_kinds = kinds
    if chip.sleep_mode == "power-down":
        return fail(f"in power-down after {_EARLY_S:g} s idle, before {IDLE_S:g} s")
    ctx.tick(0.3)
    chip.trace_kinds |= KINDS | EventKind.IRQ
    chip.clear_trace()
    chip.run(to_cycle=t0 + chip.cycles_for(IDLE_S + 0.5))
    lit, mode = game.lit(), chip.sleep_mode if chip.sleeping else "awake"
    mark = chip.trace.mark()
    tl = _record(game, _ASLEEP_S)
    irqs = [e.a for e in chip.trace.events(EventKind.IRQ, mark)]
    ctx.tick(0.3)
    energy = estimate_run([tl], ctx.c.board, [f"{_ASLEEP_S:g} s after {IDLE_S:g} s idle"])
    ua = (energy.mean_ma or 0.0) * 1000
    vectors = ", ".join(str(v) for v in sorted(set(irqs)))
    details = {"mode": mode, "interrupts": len(irqs), "sleep_ua": round(ua, 3)}
    if mode != "power-down" or irqs:
        what = f"after {IDLE_S + 0.5:g} s idle the CPU is {mode}"
        if mode != "awake":
            what = f"after {IDLE_S + 0.5:g} s idle the CPU sleeps in {mode}"
        if irqs:
            what += f"; {len(irqs):,} interrupts (vector {vectors}) in {_ASLEEP_S:g} s"
        return fail(f"{what}, not power-down with no timer running ({ua:.3g} uA)", **details)
    if lit:
        return fail(f"asleep with {', '.join(sorted(lit))} lit: the display stays on", **details)
    try:
        wrong = _wake(game, start)
    except FairdieError as e:
        wrong = f"GO woke it, then: {e}"
    if wrong:
        return fail(wrong, **details)
    return ok(
        f"after {IDLE_S:g} s idle: display off, power-down, no interrupt in {_ASLEEP_S:g} s"
        f" asleep, {ua:.3g} uA (verify's energy model); GO woke it with"
        f" {format_position(start)} intact",
        **details,
    )


def _record(game: Game, seconds: float) -> Timeline:
    """``seconds`` of the game's run recorded from now (the trace since its
    last clear: the events before say what state the run began in)."""
    chip = game.chip
    rec = Recorder(chip, game.board)
    start = chip.cycle
    rec.run_to(start + chip.cycles_for(seconds))
    lit = game.lit()
    return rec.timeline(
        start=start,
        end=chip.cycle,
        release=chip.cycle,
        settled=chip.cycle,
        first_lit=None,
        shown="",
        lit=lit,
        end_display="",
        end_lit=lit,
        before=chip.eeprom,
        codes=(),
    )


def _wake(game: Game, start: Position) -> str:
    game.press("go", hold=0.03)
    game.chip.run(seconds=0.1)
    if game.chip.sleeping and game.chip.sleep_mode == "power-down":
        return "GO did not wake it"
    shown = game.position()
    if shown != start:
        return f"GO woke it showing {format_position(shown)}, not {format_position(start)}"
    return ""


def game_display(ctx: Context) -> Result:
    st = GameState.of(ctx)
    try:
        game, start = st.started(4)
        ghosts = game.ghosts()
    except FairdieError as e:
        return fail(f"reading the strip: {e}")
    if ghosts:
        return fail(f"{', '.join(sorted(ghosts))} glow beside {format_position(start)}: ghosting")
    game.chip.trace_kinds |= KINDS
    game.chip.clear_trace()
    tl = _record(game, _WATCH_S)
    board = ctx.c.board
    names = board.led_names
    lit = sum(1 << names.index(f"c{c}") for c in cells(start))
    steps = lit_steps(tl, board)
    glow = 0
    for _, mask in steps:
        glow |= mask & ~lit
    if glow:
        extra = ", ".join(n for i, n in enumerate(names) if glow >> i & 1)
        return fail(f"{extra} lit for a moment beside {format_position(start)}: ghosting")
    rates = {}
    for i, name in enumerate(names):
        if lit >> i & 1:
            flashes = sum(
                1
                for j in range(1, len(steps))
                if steps[j][1] >> i & 1 and not steps[j - 1][1] >> i & 1
            )
            rates[name] = flashes / _WATCH_S
    lo, hi = REFRESH_HZ
    slow = {k: v for k, v in rates.items() if not lo <= v <= hi}
    if slow:
        k = next(iter(slow))
        return fail(f"{k} flashes at {slow[k]:.0f} Hz, not about 1 kHz ({lo:g}..{hi:g})")
    mapped = _each_cell(st)
    if mapped.startswith("!"):
        return fail(mapped[1:])
    return ok(
        f"each lit cell of {format_position(start)} refreshed at"
        f" {min(rates.values()):.0f}..{max(rates.values()):.0f} Hz, no other LED lit at any"
        f" moment; {mapped}",
        refresh_hz=round(sum(rates.values()) / len(rates), 1),
    )


def _each_cell(st: GameState) -> str:
    """Each cell on its own LED: positions placed and the device's reply read
    as a legal move from them ("!" and why when not; a note when no placing build)."""
    if isinstance(st.placing(), str):
        return "cells not mapped one by one (no build here places a position)"
    for i, text in enumerate(_PLACED):
        placed = parse_position(text)
        game = st.placed(placed, i)
        game.chip.run(seconds=0.1)
        try:
            shown = game.position()
            move_between(placed, shown)
        except FairdieError as e:
            return f"!placed {text}, the strip then read: {e}"
    return f"{len(_PLACED)} placed positions read back one legal move on: each cell on its LED"
