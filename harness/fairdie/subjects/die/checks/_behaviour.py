"""The die's behaviour against its reference model (fairdie.subjects.die):
each face forced and read off the LEDs, tables counted press by press (edge
tables included), the 10 s clear (held 10.05 s: cleared, every LED lit;
9.9 s: not), a fresh chip's first press, each roll stored before its face
lights. A die with no model is rolled instead, and told what was skipped.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from fairdie.noise import Codes
from fairdie.subjects.die._board import die_spec
from fairdie.subjects.die._models import CLEARED_BY_S, KEPT_UNDER_S, conversion_mismatch
from fairdie.subjects.die.checks._links import link_face, link_replay
from fairdie.subjects.die.checks._model import QUICK_HOLD_S
from fairdie.subjects.die.checks._press import record_press
from fairdie.subjects.die.checks._report import RollsReport
from fairdie.subjects.die.checks._state import DieState
from fairdie.verify import Context, Result, Timeline, fail, ok, skip

__all__ = ["clear", "faces", "fresh_chip", "press_counts", "stored_before_shown"]

_CLEAR_HOLD_S = CLEARED_BY_S
_NO_CLEAR_HOLD_S = KEPT_UNDER_S
_FRESH_HOLD_S = 0.2
_ROLLS = 60  # rolls of a die with no model: every face must come up

#: edge tables a model's presses must count right: (table, codes or None for random)
_EDGES: dict[str, tuple[tuple[tuple[int, ...], tuple[int, ...] | None], ...]] = {
    # the rebase at 255: from a 0 (the gap rule) and from a minimum above 0
    "seed": (
        ((0, 255, 255, 255, 255, 255), (0,)),
        ((0, 255, 255, 255, 255, 255), (1,)),
        ((0, 255, 255, 255, 255, 255), (2,)),
        ((254, 255, 255, 255, 255, 255), (1,)),
        ((255, 255, 255, 255, 255, 255), (2,)),
    ),
    # offsets at the window's edge
    "fair": (
        ((0, 1, 2, 3, 3, 3), None),
        ((3, 3, 0, 3, 3, 2), None),
        ((1, 1, 1, 1, 1, 0), None),
    ),
}


def _lit_names(lit: frozenset[str]) -> str:
    return ", ".join(sorted(lit)) or "nothing"


def faces(ctx: Context) -> Result:
    c, st = ctx.c, DieState.of(ctx)
    if st.model is None:
        return _faces_by_rolling(ctx)
    presses = st.face_presses()
    display = st.die().faces
    wrong = []
    for face, tl in presses.items():
        link_face(ctx, face, tl)
        if tl.shown != str(face):
            want = _lit_names(display.lit_for(str(face)))
            wrong.append(f"face {face} lit {_lit_names(tl.lit)} ({tl.shown}), not {want}")
    if wrong:
        more = f" (+{len(wrong) - 2} more)" if len(wrong) > 2 else ""
        return fail("; ".join(wrong[:2]) + more, wrong=len(wrong))
    return ok(
        f"faces 1..6, each forced through the {st.model.name} model's table, lit as board"
        f" {c.board.name}'s display shows them",
        faces={f: tl.shown for f, tl in presses.items()},
    )


def _faces_by_rolling(ctx: Context) -> Result:
    st = DieState.of(ctx)
    die = st.die()
    hold = max(QUICK_HOLD_S, die.settle_s + 0.01) if die.rolls_by_power else 0.1
    shown: list[str] = []
    for _ in range(_ROLLS):
        p = die.roll(hold)
        shown.append(str(p.face) if p.face else p.display)
    faces = [int(x) for x in shown if x.isdigit() and 1 <= int(x) <= 6]
    st.roll_faces = faces
    ctx.report.append(RollsReport(faces))
    bad = [(i, x) for i, x in enumerate(shown) if not (x.isdigit() and 1 <= int(x) <= 6)]
    if bad:
        i, x = bad[0]
        return fail(f"roll {i + 1} of {_ROLLS} showed {x} ({len(bad)} rolls showed no face)")
    missing = sorted(set(range(1, 7)) - set(faces))
    if missing:
        return fail(
            f"{_ROLLS} rolls never showed face {', '.join(map(str, missing))}",
            counts=[faces.count(f) for f in range(1, 7)],
        )
    return ok(
        f"no model to force faces: {_ROLLS} rolls each showed a face, all six came up",
        counts=[faces.count(f) for f in range(1, 7)],
    )


def _fmt(table: Sequence[int] | None) -> str:
    return "?" if table is None else "[" + ", ".join(map(str, table)) + "]"


def press_counts(ctx: Context) -> Result:
    st = DieState.of(ctx)
    model = st.model
    if model is None:
        return _counters_count(ctx)
    wrong: list[str] = []
    n = 0
    for face, tl in st.face_presses().items():
        image, codes = st.images[face]
        want_face, want = model.press(image, codes)
        n += 1
        mismatch = conversion_mismatch(model, tl.codes)
        if mismatch is not None:
            wrong.append(f"face {face}: {mismatch}")
        elif tl.after[: len(want)] != want:
            wrong.append(
                f"from {_fmt(model.table(image))} showing {face} it stored"
                f" {_fmt(model.table(tl.after))}, the model {_fmt(model.table(want))}"
            )
    rng = random.Random(f"verify:{ctx.o.seed}")
    die = st.die()
    for table, fixed in _EDGES.get(model.name, ()):
        image = model.with_table(table)
        codes = fixed or tuple(rng.randrange(1024) for _ in range(model.reads))
        die.chip.write_eeprom(0, image)
        die.set_noise(Codes(codes, die.chip.vcc_mv))
        press = die.roll(QUICK_HOLD_S)
        want_face, want = model.press(image, codes)
        n += 1
        got = die.chip.eeprom
        if press.face != want_face or got[: len(want)] != want:
            code = f" with code {codes[0]}" if len(codes) == 1 else ""
            wrong.append(
                f"from {_fmt(table)}{code} it showed {press.face or press.display} and stored"
                f" {_fmt(model.table(got))}; the {model.name} model shows {want_face}, stores"
                f" {_fmt(model.table(want))}"
            )
    if wrong:
        more = f" (+{len(wrong) - 2} more)" if len(wrong) > 2 else ""
        return fail("; ".join(wrong[:2]) + more, wrong=len(wrong))
    return ok(
        f"{n} presses (each face forced, and {n - 6} edge tables): every table after is the"
        f" {model.name} model's, byte for byte",
        presses=n,
    )


def _counters_count(ctx: Context) -> Result:
    st = DieState.of(ctx)
    spec = die_spec(ctx.c.board)
    if spec is None or spec.counters is None:
        return skip("no reference model and no [die] counters: the die keeps no table")
    die = st.die()
    wrong = 0
    for _ in range(12):
        before = st.table(die.chip.eeprom)
        p = die.roll(0.1)
        after = st.table(die.chip.eeprom)
        assert before is not None and after is not None
        if p.face is None:
            continue
        want = list(before)
        want[p.face - 1] += 1
        if list(after) != want:
            wrong += 1
    if wrong:
        return fail(f"{wrong} of 12 presses did not add one to the counter of the face shown")
    return ok("12 presses each added one to the counter of the face shown ([die] counters)")


def clear(ctx: Context) -> Result:
    st = DieState.of(ctx)
    model = st.model
    if model is None:
        return skip("no reference model: the 10 s clear is the model's rule, not judged")
    image, codes = model.forcing(1)
    pressed = model.press(image, codes)[1]
    cleared = model.state(model.cleared(pressed))
    before = model.state(pressed)
    state = model.state

    def hold(seconds: float) -> Timeline:
        die = st.die(eeprom=image, codes=codes)
        return record_press(die, seconds, keep=st.keeper(f"clear-held-{seconds:g}s.vcd"))

    long, short = hold(_CLEAR_HOLD_S), hold(_NO_CLEAR_HOLD_S)
    for seconds in (_CLEAR_HOLD_S, _NO_CLEAR_HOLD_S):
        what = f"held {seconds:g} s from face 1's table"
        link_replay(ctx, what, image, seconds, f"clear-held-{seconds:g}s-replay.vcd")
    every = frozenset(st.die().faces.leds)
    problems = []
    if state(long.after) != cleared:
        problems.append(f"held {_CLEAR_HOLD_S} s: the table was not cleared")
    if long.end_lit != every:
        problems.append(f"held {_CLEAR_HOLD_S} s: lit {_lit_names(long.end_lit)}, not every LED")
    if state(short.after) != before:
        why = "it was cleared already" if state(short.after) == cleared else "it changed"
        problems.append(f"held {_NO_CLEAR_HOLD_S} s: {why} (a clear at the wrong time)")
    elif short.end_display != "1":
        problems.append(f"held {_NO_CLEAR_HOLD_S} s: it showed {short.end_display}, not face 1")
    if problems:
        return fail("; ".join(problems))
    return ok(
        f"held {_CLEAR_HOLD_S} s: table cleared, all {len(every)} LEDs lit;"
        f" held {_NO_CLEAR_HOLD_S} s: table kept, face {short.end_display} still shown"
    )


def fresh_chip(ctx: Context) -> Result:
    c, st = ctx.c, DieState.of(ctx)
    die = st.die()
    tl = record_press(die, _FRESH_HOLD_S, keep=st.keeper("fresh-chip.vcd", "an erased chip"))
    st.fresh = tl
    st.publish()
    link_replay(ctx, "a press of an erased chip", None, _FRESH_HOLD_S, "fresh-chip-replay.vcd")
    start = "an erased chip" + (" (with the file's EEPROM image)" if c.file.eeprom else "")
    if not (tl.shown.isdigit() and 1 <= int(tl.shown) <= 6):
        return fail(f"{start} showed {tl.shown}, no face")
    written = [i for i, (a, b) in enumerate(zip(tl.before, tl.after, strict=True)) if a != b]
    where = f"EEPROM {written[0]}..{written[-1]}" if written else "nothing"
    if st.model is None:
        note = "no model to judge what it stored" + (f" (it wrote {where})" if written else "")
        return ok(f"{start} showed {tl.shown}; {note}")
    face, want = st.model.press(tl.before, tl.codes)
    mismatch = conversion_mismatch(st.model, tl.codes)
    if mismatch is not None:
        return fail(f"{start}: {mismatch}")
    if str(face) != tl.shown or tl.after[: len(want)] != want:
        return fail(
            f"{start} showed {tl.shown} and stored {_fmt(st.model.table(tl.after))};"
            f" the {st.model.name} model shows {face}, stores {_fmt(st.model.table(want))}"
        )
    if not written:
        return fail(f"{start} showed {tl.shown} but stored nothing")
    return ok(
        f"{start} showed {tl.shown} and wrote {where}: the {st.model.name} model's record,"
        f" table {_fmt(st.model.table(tl.after))}"
    )


def stored_before_shown(ctx: Context) -> Result:
    st = DieState.of(ctx)
    timelines = list(st.presses_for_energy())
    if st.fresh is not None:
        timelines.append(st.fresh)
    writing = [tl for tl in timelines if tl.eeprom and tl.first_lit is not None]
    if not writing:
        return skip(f"none of {len(timelines)} presses wrote EEPROM: nothing to store first")
    worst = min(writing, key=lambda tl: (tl.first_lit or 0) - (tl.eeprom_done or 0))
    done, lit = worst.eeprom_done or 0, worst.first_lit or 0
    margin = (lit - done) * 1000 / worst.frequency
    if margin < 0:
        return fail(
            f"the face lit {-margin:.1f} ms before its roll was stored (first LED at"
            f" {worst.ms(lit):.1f} ms, last EEPROM write done at {worst.ms(done):.1f} ms):"
            " a power cut in between loses a roll already shown",
            margin_ms=round(margin, 3),
        )
    return ok(
        f"in {len(writing)} presses the last EEPROM write ended before the first LED lit"
        f" (closest: {margin:.3f} ms before, at {worst.ms(lit):.1f} ms)",
        margin_ms=round(margin, 3),
    )
