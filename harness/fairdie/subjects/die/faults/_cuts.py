"""Campaigns G1..G4: power cuts during presses (fairdie.subjects.die.faults).

- G1: from each starting image, a press for every face it can roll and a
  10 s press; each write cut as it starts, with every torn value (the quick
  tier: :data:`QUICK_TORN`).
- G2: a cut at every cycle of a press and of a 10 s press, the byte in
  flight torn as the physical model says; it must reach the states G1
  reaches, and no image that G1 does not.
- G3: a first cut in each write of a press, with every torn value, then a
  second cut in each write of the press that follows, with every torn value.
- G4: a seeded soak of presses held from under 4 ms to past 10 s, a share
  of them cut inside a write of the roll or of the clear.

With the brown-out detector off (the firmware's fuses), a cut may also
misexecute (fairdie.campaigns.wrong_addresses): G1 lands each write's new
value at every other byte of the model's footprint (four seeded ones in the
quick tier, but for the writes it tries with all 256 torn values), G4 lands
half of its cuts in a write at a seeded wrong byte. G2 and G3 cut as with
the detector on.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from fairdie.campaigns import EVERY_VALUE, physical, wrong_addresses
from fairdie.subjects.die._models import HEALTHY_CODES
from fairdie.subjects.die.faults._ids import step
from fairdie.subjects.die.faults._images import (
    ERASED,
    codes_for,
    every_value_images,
    random_press,
    start_images,
)
from fairdie.subjects.die.faults._rig import Write, Written
from fairdie.subjects.die.faults._target import Target
from fairdie.subjects.die.faults._verdict import Expect
from fairdie.subjects.die.faults._work import Unit, Work, rig_for

__all__ = [
    "QUICK_TORN",
    "plan_g1",
    "plan_g2",
    "plan_g3",
    "plan_g4",
    "run_g1",
    "run_g2",
    "run_g3",
    "run_g4",
]

PRESS_S = 0.1  #: a press: long enough for the save and the face
CLEAR_S = 10.05  #: a press held past the clear
_QUICK_TORN = 8  #: torn values per write in the quick tier: old, new, 00, ff and random
#: the quick tier's torn values, as its report states them
QUICK_TORN = (
    "G1 cuts every write of the presses from an erased chip and across the ring's wrap"
    " (the seed's counters: a rebase) with all 256 torn values; every other write of G1"
    f" and G3 with {_QUICK_TORN} (old, new, 00, ff and {_QUICK_TORN - 4} seeded)"
)
_QUICK_LANDS = 4  #: wrong addresses per write in the quick tier (the detector off)


def _torn_values(wr: Write, every: bool, rng: random.Random) -> Sequence[int]:
    if every:
        return EVERY_VALUE
    values = {wr.old, wr.new, 0x00, 0xFF}
    while len(values) < _QUICK_TORN:
        values.add(rng.randrange(256))
    return sorted(values)


def _outcomes(
    work: Work, image: bytes, seed: int, every: bool
) -> list[tuple[int, tuple[int, ...]]]:
    """``(face, codes)`` for each face a press from ``image`` can roll (only
    the first found unless ``every``)."""
    state = work.model.state(image)
    rng = random.Random(seed)
    out = []
    for face in range(1, 7):
        codes = codes_for(work.model, state, face, rng)
        if codes is not None:
            out.append((face, codes))
            if not every:
                break
    return out


def _check_press(work: Work, w: Written, expect: Expect, codes: Sequence[int], hold: float) -> bool:
    """An uncut press must do what the model does (False if it did not)."""
    if hold >= CLEAR_S:
        ok = work.model.state(w.after) == expect.s2
        what = f"a {hold} s press left {w.after.hex()}, not the model's clear"
    else:
        ok = (w.face, w.after) == (expect.face, expect.image)
        what = (
            f"the chip showed {w.face} and stored {w.after.hex()}; its model"
            f" {expect.face} and {expect.image.hex()}"
        )
    if not ok:
        work.violate(("model", what), work.replay(w.before, codes, [step(w.end - w.start, None)]))
    return ok


def _cut_writes(
    work: Work,
    w: Written,
    expect: Expect,
    codes: Sequence[int],
    *,
    every: bool,
    judge: bool = True,
    misexecute: bool = True,
) -> list[bytes]:
    """Cut each write of ``w`` as it starts, with each torn value (all 256 if
    ``every``, else a sample), and (the detector off, ``misexecute``) landed
    at each wrong address (a sample unless ``every``): the images."""
    images = []
    rng = random.Random(len(w.writes))
    for wr in w.writes:
        lit = w.lit is not None and w.lit <= wr.cycle
        values = _torn_values(wr, every, rng)
        cuts: list[tuple[int | None, int | None]] = [(v, None) for v in values]
        if misexecute and work.rig.misexecutes:
            lands = wrong_addresses(
                wr.address, work.rig.footprint, rng=rng, count=None if every else _QUICK_LANDS
            )
            cuts += [(None, a) for a in lands]
        work.out.cut_write(len(values))
        for v, land in cuts:
            image = work.cut(wr, v, land)
            if judge:
                here = (wr.cycle - w.start, v, land)
                work.judge(expect, image, lit=lit, replay=(w.before, codes, [here]))
            images.append(image)
    return images


def _thin(items: list[tuple[str, bytes]], quick: bool, keep: int = 6) -> list[tuple[str, bytes]]:
    return items[:: max(1, len(items) // keep)][:keep] if quick else items


# ---- G1 -------------------------------------------------------------------------------------


def plan_g1(target: Target, quick: bool, seed: int) -> list[Unit]:
    model = rig_for(target).model
    images = start_images(model, seed=seed)
    exhaustive = every_value_images(model)
    chosen = _thin(images, quick)
    chosen += [(n, i) for n, i in images if n in exhaustive and (n, i) not in chosen]
    return [
        Unit(
            "G1",
            target,
            (name, im, quick, not quick or name in exhaustive, seed + i),
            cost=1.6 if not quick or name in exhaustive else 0.1,
        )
        for i, (name, im) in enumerate(chosen)
    ]


def run_g1(work: Work) -> None:
    _, image, quick, every, seed = work.unit.args
    outcomes = _outcomes(work, image, seed, every=not quick)
    for n, (_, codes) in enumerate(outcomes):
        for hold in (PRESS_S, CLEAR_S) if n == 0 else (PRESS_S,):
            w = work.rig.press(image, codes, hold)
            work.out.presses += 1
            expect = work.expect(image, codes)
            _check_press(work, w, expect, codes, hold)
            for cut in _cut_writes(work, w, expect, codes, every=every):
                work.boot(cut)
    work.out.figure("start_images", 1)
    work.out.figure("outcomes", len(outcomes))


# ---- G2 -------------------------------------------------------------------------------------


def plan_g2(target: Target, quick: bool, seed: int) -> list[Unit]:
    images = dict(start_images(rig_for(target).model, seed=seed))
    names = ["erased"] if quick else ["erased", "10 presses", "80 presses", "junk 0"]
    return [
        Unit("G2", target, (name, images[name], hold, seed), cost=19 * hold if hold < 1 else 1.9)
        for name in names
        if name in images
        for hold in (PRESS_S, CLEAR_S)
    ]


def run_g2(work: Work) -> None:
    _, image, hold, seed = work.unit.args
    _, codes = _outcomes(work, image, seed, every=False)[0]
    rig = work.rig
    expect = work.expect(image, codes)
    timeline = rig.every_cycle(image, codes, hold)
    work.out.presses += 1
    reached: dict[bytes, int] = {}
    for cut in timeline.cuts:
        work.out.cuts += 1  # simulated; the cycles it stands for are covered
        work.out.cycles_covered += cut.span
        work.judge(
            expect, cut.image, lit=cut.lit, replay=(image, codes, [(cut.cycle, cut.torn, None)])
        )
        reached.setdefault(cut.image, cut.cycle)
    # G1 of the same press: each write cut with every torn value
    w = rig.press(image, codes, hold)
    g1 = {
        image,
        w.after,
        *_cut_writes(work, w, expect, codes, every=True, judge=False, misexecute=False),
    }
    outside = [im for im in reached if im not in g1]
    for im in outside[:3]:
        cut = next(c for c in timeline.cuts if c.image == im)
        work.violate(
            ("coverage", f"a cut left {im.hex()}, which no cut of G1 leaves"),
            work.replay(image, codes, [step(cut.cycle, cut.torn)]),
        )
    states = {work.model.state(i) for i in reached}
    g1_states = {work.model.state(i) for i in g1}
    if states != g1_states:
        work.violate(
            (
                "coverage",
                f"cuts at every cycle reached states {sorted(s.hex() for s in states)},"
                f" G1's cuts {sorted(s.hex() for s in g1_states)}",
            ),
            work.replay(image, codes, [step(timeline.cuts[-1].cycle, None)]),
        )
    for im in reached:
        work.boot(im)
    work.out.figure("images_outside_g1", len(outside))


# ---- G3 -------------------------------------------------------------------------------------


def plan_g3(target: Target, quick: bool, seed: int) -> list[Unit]:
    images = _thin(start_images(rig_for(target).model, seed=seed), True, keep=2 if quick else 8)
    units = []
    for i, (name, image) in enumerate(images):
        w = rig_for(target).press(image, HEALTHY_CODES, PRESS_S)
        writes = range(len(w.writes))
        for k in writes[-1:] if quick else writes:
            units.append(
                Unit("G3", target, (name, image, k, quick, seed + i), cost=0.05 if quick else 4.5)
            )
    return units


def run_g3(work: Work) -> None:
    _, image, k, quick, seed = work.unit.args
    _, codes = _outcomes(work, image, seed, every=False)[0]
    rig = work.rig
    w = rig.press(image, codes, PRESS_S)
    work.out.presses += 1
    if k >= len(w.writes):
        return
    first = w.writes[k]
    lit = w.lit is not None and w.lit <= first.cycle
    expect = work.expect(image, codes)
    rng = random.Random(seed)
    values = _torn_values(first, not quick, rng)
    work.out.cut_write(len(values))
    firsts = {v: work.cut(first, v) for v in values}
    for v, cut in firsts.items():
        step1 = step(first.cycle - w.start, v)
        if not work.judge(expect, cut, lit=lit, replay=(image, codes, [step1])):
            continue
        # the recovery: the next press, cut again in each of its writes
        w2 = rig.press(cut, codes, PRESS_S)  # a boot of the cut's image, checked whole
        work.out.presses += 1
        work.out.booted(cut)
        expect2 = work.expect(cut, codes)
        _check_press(work, w2, expect2, codes, PRESS_S)
        for wr in w2.writes:
            lit2 = w2.lit is not None and w2.lit <= wr.cycle
            values2 = _torn_values(wr, not quick, rng)
            work.out.cut_write(len(values2))
            for v2 in values2:
                second = work.cut(wr, v2)
                work.judge(
                    expect2,
                    second,
                    lit=lit2,
                    replay=(image, codes, [step1, (wr.cycle - w2.start, v2, None)]),
                )


# ---- G4 -------------------------------------------------------------------------------------

#: (share, what): the soak's presses
_SOAK = (
    (0.06, "short"),  # released after 0.5..4 ms: before or while converting
    (0.14, "write"),  # cut inside a write of the roll
    (0.015, "clear"),  # cut inside a write of the clear
    (0.005, "cleared"),  # held 10.0 .. 12 s
    (0.03, "held"),  # held 0.1 .. 9.9 s
)
_SHARD = 5_000
_PRESS_COST = 0.00033  #: CPU seconds a soak's press takes, roughly


def plan_g4(target: Target, quick: bool, seed: int, presses: int | None = None) -> list[Unit]:
    total = presses or (2_000 if quick else 1_000_000)
    size = min(_SHARD, total)
    return [
        Unit("G4", target, (i, min(size, total - start), seed), cost=_PRESS_COST * size)
        for i, start in enumerate(range(0, total, size))
    ]


def _soak_kind(rng: random.Random) -> str:
    x = rng.random()
    for share, kind in _SOAK:
        if x < share:
            return kind
        x -= share
    return "press"


def run_g4(work: Work) -> None:
    shard, presses, seed = work.unit.args
    rng = random.Random(f"G4/{seed}/{shard}")
    rig, model = work.rig, work.model
    image = ERASED if shard % 2 == 0 else rng.randbytes(64)
    for _ in range(presses):
        kind = _soak_kind(rng)
        codes, digest = random_press(model, rng, rig.host)
        expect = work.expect(image, codes, digest)
        hold = {
            "short": rng.uniform(0.0005, 0.004),
            "cleared": rng.uniform(10.0, 12.0),
            "held": rng.uniform(0.1, 9.9),
            "clear": CLEAR_S,
        }.get(kind, PRESS_S)
        w = rig.press(image, codes, hold, stop=kind in ("write", "clear"))
        work.out.presses += 1
        work.out.booted(image)
        work.out.figure("hold_s_max", hold)
        work.out.figure("hold_s_min", hold)
        if kind in ("write", "clear"):
            lit_at = w.lit
            writes = [
                x
                for x in w.writes
                if (lit_at is not None and lit_at <= x.cycle) == (kind == "clear")
            ]
            if writes:
                wr = rng.choice(writes)
                torn = physical(wr.old, wr.new, rng.random(), mode=wr.mode, rng=rng)
                land = None
                if rig.misexecutes and rng.random() < 0.5:  # the detector off
                    land = rng.choice(wrong_addresses(wr.address, rig.footprint))
                    work.out.figure("cuts_misexecuted", 1)
                cut = work.cut(wr, torn, land)
                work.out.cut_write(1)
                work.judge(
                    expect,
                    cut,
                    lit=kind == "clear",
                    replay=(image, codes, [step(wr.cycle - w.start, torn, land)]),
                )
                work.out.figure(f"cuts_in_{'clears' if kind == 'clear' else 'writes'}", 1)
                image = cut
                continue
        done = step(w.end - w.start, None)
        if kind == "short" or 9.9 <= hold < 10.0:
            # released while converting, or around the clear: a cut (the write in flight lost)
            work.judge(expect, w.after, lit=w.lit is not None, replay=(image, codes, [done]))
        else:
            _check_press(work, w, expect, codes, CLEAR_S if hold >= 10.0 else PRESS_S)
        image = w.after
