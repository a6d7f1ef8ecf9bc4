"""Campaigns G5 and G6: hostile EEPROM images and hostile ADC noise.

- G5: every single-byte corruption (64 bytes x 256 values) of ten starting
  images and seeded random 64-byte images. Each boots on the chip (I4: a
  face in time, the model's image stored). Each must then recover at model
  level: a press is *kept* when the state its image decodes to is the state
  the rule gives (``model.state(model.press(image, codes)[1]) ==
  model.step(model.state(image), codes)[1]``); the image has recovered once
  RECOVERY_WINDOW presses in a row are kept, and the presses before that run
  must be at most RECOVERY_BOUND. Every 50th image also presses a few times
  on the chip, which must do what the model does.
- G6: noise at the rails, out of range (above vcc the ADC clips; below 0 the
  noise models and the chip refuse it, cleanly), 0 and 1023 in alternation,
  the lab's adversary, and code sequences that Hypothesis searches for a
  press that breaks a rule. Every press, from an erased chip and from the
  images at the edges of the rule, must light a face 1..6 within
  BOOT_LIMIT_S, do exactly what the model does, and leave the table it had
  with the shown face's entry one up and, at most, all entries shifted down
  alike (the seed's rule may instead close a gap: its rebase).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fairdie.errors import FairdieError
from fairdie.noise import ADC_MAX, Codes, NoiseModel, Stuck, parse_noise
from fairdie.subjects.die import _rule
from fairdie.subjects.die._models import DieModel
from fairdie.subjects.die.faults._cuts import PRESS_S
from fairdie.subjects.die.faults._ids import step
from fairdie.subjects.die.faults._images import ERASED, start_images, walk
from fairdie.subjects.die.faults._rig import BOOT_LIMIT_S, Rig, Target
from fairdie.subjects.die.faults._verdict import judge_model
from fairdie.subjects.die.faults._work import Unit, Work, rig_for
from fairdie.subjects.die.lab._adversary import Adversary

__all__ = [
    "G6_NOISES",
    "RECOVERY_BOUND",
    "RECOVERY_WINDOW",
    "Recovery",
    "plan_g5",
    "plan_g6",
    "recovery",
    "run_g5",
    "run_g6",
]

# ---- G5 -------------------------------------------------------------------------------------

#: a hostile image has recovered once this many presses in a row are kept:
#: two laps of the fair ring (10 slots), so every record has been rewritten
RECOVERY_WINDOW = 20
#: the most presses a hostile image may take before its presses are kept.
#: Single corrupt bytes and random bytes only ever invalidate a fair record (its
#: check and gate cover all of it): 0 presses over the full tier. Spliced
#: images, valid records from laps apart, take up to 24 presses (the full
#: tier, seed 0): some two laps of the ring, the margin most of a third. The
#: seed's counters, written in place, always take 0.
RECOVERY_BOUND = 30
#: presses tried before an image counts as never recovering
_RECOVERY_LIMIT = RECOVERY_BOUND + 2 * RECOVERY_WINDOW
_BASES = 10  #: starting images corrupted byte by byte
_QUICK_BASE = "10 presses"  #: the quick tier's one base: a whole lap of live records
_QUICK_VALUES = 6  #: values per byte in the quick tier: 00, ff, two bit flips and random
_BYTES_PER_UNIT = 8  #: full tier: 8 bytes x 256 values per unit (a few seconds)
_RANDOM = 100_000  #: random images in the full tier
_QUICK_RANDOM = 2_000
_RANDOM_PER_UNIT = 1_000
_SPLICED = 20_000  #: images spliced from records of other images, in the full tier
_QUICK_SPLICED = 300
_SPLICE = 6  #: bytes taken from one image at a time: a fair record
_CHIP_EVERY = 50  #: every 50th image also presses on the chip
_CHIP_PRESSES = 3  #: the presses it makes there
#: the bases, in the order taken (those a model's start images lack are skipped,
#: then the rest of its start images fill up to _BASES)
_BASE_NAMES = (
    "erased",
    "zeros",
    "junk 0",
    "1 presses",
    "10 presses",
    "80 presses",
    "10 presses, cleared",
    "old layout 1",
)
_BASE_PREFIXES = ("mid-save", "table", "counts")


def _bases(model: DieModel, seed: int) -> list[tuple[str, bytes]]:
    """The ten base images of G5, named as fairdie.subjects.die.faults._images names them."""
    images = start_images(model, seed=seed)
    named = dict(images)
    out = [(n, named[n]) for n in _BASE_NAMES if n in named]
    for prefix in _BASE_PREFIXES:
        out += [(n, i) for n, i in images if n.startswith(prefix)][:1]
    out += [(n, i) for n, i in images if (n, i) not in out]
    return out[:_BASES]


def plan_g5(target: Target, quick: bool, seed: int) -> list[Unit]:
    bases = _bases(rig_for(target).model, seed)
    if quick:
        bases = [b for b in bases if b[0] == _QUICK_BASE][:1] or bases[:1]
    per = 64 if quick else _BYTES_PER_UNIT
    units = [
        Unit("G5", target, ("corrupt", name, image, lo, lo + per, quick, seed))
        for name, image in bases
        for lo in range(0, 64, per)
    ]
    total = _QUICK_RANDOM if quick else _RANDOM
    units += [
        Unit("G5", target, ("random", start, min(_RANDOM_PER_UNIT, total - start), seed))
        for start in range(0, total, _RANDOM_PER_UNIT)
    ]
    total = _QUICK_SPLICED if quick else _SPLICED
    units += [
        Unit("G5", target, ("spliced", start, min(_RANDOM_PER_UNIT, total - start), seed))
        for start in range(0, total, _RANDOM_PER_UNIT)
    ]
    return units


def _spliced(model: DieModel, index: int, seed: int) -> bytes:
    """An image whose each 6 bytes come from a different point of a long walk
    (or an erased chip): valid records laps apart, in any order."""
    rng = random.Random(f"G5/{seed}/spliced/{index}")
    walked = _walk(model, seed)
    image = bytearray()
    while len(image) < 64:
        source = rng.choice(walked) if rng.random() < 0.8 else ERASED
        at = len(image)
        image += source[at : at + _SPLICE]
    return bytes(image[:64])


_WALKS: dict[tuple[str, int], list[bytes]] = {}


def _walk(model: DieModel, seed: int) -> list[bytes]:
    key = (model.name, seed)
    if key not in _WALKS:
        _WALKS[key] = walk(model, 300, seed)
    return _WALKS[key]


def _values(old: int, quick: bool, rng: random.Random) -> list[int]:
    if not quick:
        return list(range(256))
    values = {0x00, 0xFF, old ^ 0x01, old ^ 0x80}
    while len(values) < _QUICK_VALUES:
        values.add(rng.randrange(256))
    return sorted(values)


def _hostile_images(model: DieModel, args: tuple[Any, ...]) -> list[tuple[int, bytes]]:
    """``(index, image)`` for a G5 unit: the index picks the chip's sample."""
    if args[0] == "random":
        _, start, count, seed = args
        return [
            (i, random.Random(f"G5/{seed}/image/{i}").randbytes(64))
            for i in range(start, start + count)
        ]
    if args[0] == "spliced":
        _, start, count, seed = args
        return [(i, _spliced(model, i, seed)) for i in range(start, start + count)]
    _, name, base, lo, hi, quick, seed = args
    rng = random.Random(f"G5/{seed}/{name}")
    out = []
    for a in range(64):
        values = _values(base[a], quick, rng)  # drawn for every byte: the same whatever the unit
        if lo <= a < hi:
            for v in values:
                image = bytearray(base)
                image[a] = v
                out.append((a * 256 + v, bytes(image)))
    return out


@dataclass(frozen=True)
class Recovery:
    """How a hostile image recovered at model level."""

    presses: int  #: presses before the run of kept ones (_RECOVERY_LIMIT: none)
    unkept: int  #: presses that were not kept
    #: the image before the last press not kept, and its codes (None: all kept)
    last: tuple[bytes, tuple[int, ...]] | None


def recovery(model: DieModel, image: bytes, rng: random.Random) -> Recovery:
    """Press ``image`` with codes from ``rng`` until RECOVERY_WINDOW presses in
    a row are kept (or _RECOVERY_LIMIT presses): see the module."""
    state = model.state(image)
    run = unkept = 0
    last: tuple[bytes, tuple[int, ...]] | None = None
    bits = model.reads * 10
    for k in range(_RECOVERY_LIMIT):
        word = rng.getrandbits(bits)
        codes = tuple((word >> (10 * i)) & ADC_MAX for i in range(model.reads))
        want = model.step(state, codes)[1]
        after = model.press(image, codes)[1]
        got = model.state(after)
        if got == want:
            run += 1
            if run == RECOVERY_WINDOW:
                return Recovery(k + 1 - RECOVERY_WINDOW, unkept, last)
        else:
            run = 0
            unkept += 1
            last = (image, codes)
        image, state = after, got
    return Recovery(_RECOVERY_LIMIT, unkept, last)


def _chip_sample(work: Work, image: bytes, rng: random.Random) -> None:
    """A few presses on the chip from ``image``: each as the model does."""
    for _ in range(_CHIP_PRESSES):
        after = _press_as_modelled(work, image, rng)
        if after is None:
            return
        image = after


def _press_as_modelled(work: Work, image: bytes, rng: random.Random) -> bytes | None:
    """A press with random codes that must do what the model does: the image
    it left (None: it did not, a violation)."""
    codes = [rng.randrange(ADC_MAX + 1) for _ in range(work.model.reads)]
    w = work.rig.press(image, codes, PRESS_S)
    work.out.presses += 1
    found = judge_model(work.model, image, codes, w.face, w.after)
    if found is not None:
        work.violate(found, work.replay(image, codes, [step(w.end - w.start, None)]))
        return None
    return w.after


def run_g5(work: Work) -> None:
    seed = work.unit.args[-1]
    model = work.model
    press_cycles = work.rig.chip.cycles_for(PRESS_S)
    for index, image in _hostile_images(work.model, work.unit.args):
        work.boot(image)
        rng = random.Random(f"G5/{seed}/codes/{image.hex()}")
        r = recovery(model, image, rng)
        work.out.figure("recovery_presses_max", r.presses)
        work.out.figure("unkept_presses", r.unkept)
        work.out.figure("images_recovering", 1 if r.unkept else 0)
        if r.presses > RECOVERY_BOUND:
            assert r.last is not None
            before, codes = r.last
            work.violate(
                (
                    "G5",
                    f"pressed from hostile image {image.hex()} the die kept no run of"
                    f" {RECOVERY_WINDOW} presses before press {r.presses} (bound"
                    f" {RECOVERY_BOUND}); the replay is its last press not kept",
                ),
                work.replay(before, codes, [step(press_cycles, None)]),
            )
        if index % _CHIP_EVERY == 0:
            _chip_sample(work, image, rng)
            work.out.figure("chip_sampled", 1)


# ---- G6 -------------------------------------------------------------------------------------

_OVER_MV = 5000.0  #: above any supply: simavr clips the code to 1023
_UNDER_MV = -500.0  #: below ground: the noise models and the chip refuse it
_HOLD_S = BOOT_LIMIT_S  #: a G6 press: as long as a face may take to light
_QUICK_PRESSES = 50
_FULL_PRESSES = 5_000
_SEARCH_PRESSES = 2  #: presses per searched sequence (one stream of codes across them)
_SEARCH_UNITS = 5  #: the full tier's search, in parts


#: name -> noise for a model, a supply and a seed ("under-range" and
#: "search" are run apart: the first must be refused, the second is searched)
G6_NOISES: dict[str, Callable[[DieModel, float, int], NoiseModel] | None] = {
    "rail-low": lambda model, vcc, seed: Stuck(0.0),
    "rail-high": lambda model, vcc, seed: Stuck(vcc),
    "over-range": lambda model, vcc, seed: Stuck(_OVER_MV),
    "alternating": lambda model, vcc, seed: Codes([0, ADC_MAX], vcc),
    "adversarial": lambda model, vcc, seed: Adversary(model, seed, vcc),
    "under-range": None,
    "search": None,
}


def _starts(model: DieModel, seed: int) -> list[tuple[str, bytes]]:
    """An erased chip, all zeros and the images at the edges of the rule."""
    return [
        (n, i)
        for n, i in start_images(model, seed=seed)
        if n in ("erased", "zeros") or n.startswith(("table", "counts", "old layout"))
    ]


def plan_g6(target: Target, quick: bool, seed: int) -> list[Unit]:
    presses = _QUICK_PRESSES if quick else _FULL_PRESSES
    units = []
    for noise in G6_NOISES:
        if noise == "search" and not quick:
            share = presses // _SEARCH_UNITS
            units += [
                Unit("G6", target, (noise, part, share, seed)) for part in range(_SEARCH_UNITS)
            ]
        else:
            units.append(Unit("G6", target, (noise, 0, presses, seed)))
    return units


@dataclass(frozen=True)
class _Pressed:
    face: int | None  #: the face shown when the press ended (None: none)
    lit: int | None  #: cycles from power-on to the first LED lit
    codes: tuple[int, ...]
    after: bytes
    cycles: int  #: the press's length in cycles


def _press(rig: Rig, image: bytes, noise: NoiseModel, k: int) -> _Pressed:
    """Press ``image`` for _HOLD_S reading ``noise`` (press ``k`` of it)."""
    chip, die = rig.chip, rig.die
    if chip.powered:
        chip.power_off()
    chip.write_eeprom(0, image)
    seek = getattr(noise, "seek", None)
    if seek is not None:
        seek(k)
    prepare = getattr(noise, "prepare", None)
    if prepare is not None:  # the adversary: it reads the table it plays against
        prepare(image)
    die.set_noise(noise)
    die.power_on()
    start = chip.cycle
    chip.run(seconds=_HOLD_S)
    lit = die.first_lit()
    shown = die.display() if lit is not None and chip.cycle - lit >= die.window else "off"
    pressed = _Pressed(
        int(shown) if shown.isdigit() else None,
        None if lit is None else lit - start,
        tuple(chip.adc_codes()),
        chip.eeprom,
        chip.cycle - start,
    )
    chip.power_off()
    return pressed


_REBASES: dict[str, Callable[[Sequence[int]], tuple[int, ...]]] = {"seed": _rule.rebase}


def _table_step(model: DieModel, before: bytes, after: bytes, face: int) -> str:
    """How the table went from ``before`` to ``after`` as ``face`` showed:
    "up" (that entry one up), "shift" (and then all shifted down alike) or
    "rebase" (the rule's own); the empty string for anything else."""
    t0, t1 = model.table(before), model.table(after)
    up = [t + (f == face) for f, t in enumerate(t0, 1)]
    shifts = {u - t for u, t in zip(up, t1, strict=True)}
    if len(shifts) == 1 and min(shifts) >= 0:
        return "shift" if min(shifts) else "up"
    rebase = _REBASES.get(model.name)
    if rebase is not None and [t + (f == face) for f, t in enumerate(rebase(t0), 1)] == list(t1):
        return "rebase"
    return ""


def _judge(model: DieModel, before: bytes, p: _Pressed) -> tuple[str, str] | None:
    if p.face is None:
        return "I4", f"no face lit within {_HOLD_S} s of power-on"
    if not 1 <= p.face <= 6:
        return "G6", f"the die showed face {p.face}"
    found = judge_model(model, before, p.codes, p.face, p.after)
    if found is not None:
        return found
    if not _table_step(model, before, p.after, p.face):
        t0, t1 = model.table(before), model.table(p.after)
        return "G6", (
            f"the table went from {list(t0)} to {list(t1)} showing face {p.face}: not that"
            " face one up, then all shifted down alike or rebased (a count wrapped or fell)"
        )
    return None


def _chain(
    work: Work, name: str, image: bytes, noise: NoiseModel, presses: int, first: int
) -> tuple[str, str] | None:
    """Press ``presses`` times from ``image``, each from what the last left,
    judging each; the first broken check (also recorded as a violation)."""
    rig, model, out = work.rig, work.model, work.out
    found_first = None
    for k in range(first, first + presses):
        p = _press(rig, image, noise, k)
        out.presses += 1
        out.figure(f"{name}_presses", 1)
        if p.lit is not None:
            out.figure("lit_ms_max", 1000 * p.lit / rig.chip.frequency)
        if name == "over-range" and any(c != ADC_MAX for c in p.codes):
            found: tuple[str, str] | None = (
                "G6",
                f"{_OVER_MV:g} mV read as {sorted(set(p.codes))}, not clipped to {ADC_MAX}",
            )
        else:
            found = _judge(model, image, p)
        if found is not None:
            # a press that read as many codes as the model replays as itself; any
            # other (the firmware is not the model's) replays as a boot, judged so
            steps = [step(p.cycles, None)] if len(p.codes) == model.reads else ["boot"]
            codes = p.codes if len(p.codes) == model.reads else ()
            work.violate(found, work.replay(image, codes, steps))
            found_first = found_first or found
        elif p.face is not None:
            out.figure(f"tables_{_table_step(model, image, p.after, p.face)}", 1)
        image = p.after
    return found_first


def _refused(work: Work, starts: Sequence[tuple[str, bytes]], presses: int) -> None:
    """Below ground: the noise models refuse it, and so does the chip, cleanly
    (nothing stored, the next press as the model's)."""
    rig, model = work.rig, work.model
    vcc = rig.chip.vcc_mv
    models: dict[str, Callable[[], NoiseModel]] = {
        "Stuck": lambda: Stuck(_UNDER_MV),
        "parse_noise": lambda: parse_noise(f"stuck:{_UNDER_MV:g}", seed=0, vcc_mv=vcc),
    }
    for what, make in models.items():
        try:
            make()
        except ValueError:
            work.out.figure("under-range_refused", 1)
        else:
            work.violate(("G6", f"{what} took {_UNDER_MV:g} mV"), work.replay(ERASED, (), ["boot"]))
    rng = random.Random("G6/under-range")
    for n in range(presses):
        image = starts[n % len(starts)][1]
        try:
            p = _press(rig, image, lambda channel: _UNDER_MV, n)
        except FairdieError:
            work.out.figure("under-range_refused", 1)
            rig.chip.power_off()
            left = rig.chip.eeprom
            if model.state(left) != model.state(image):
                work.violate(
                    ("G6", f"a press refused at {_UNDER_MV:g} mV left state {left.hex()}"),
                    work.replay(image, (), ["boot"]),
                )
        else:
            work.violate(
                ("G6", f"the chip took {_UNDER_MV:g} mV and read {sorted(set(p.codes))}"),
                work.replay(image, p.codes, [step(p.cycles, None)]),
            )
        work.out.presses += 1
        _press_as_modelled(work, image, rng)  # the next press is the model's


def _search(
    work: Work, starts: Sequence[tuple[str, bytes]], examples: int, seed: int, part: int
) -> None:
    """Hypothesis looks for a code sequence that, pressed from one of
    ``starts`` _SEARCH_PRESSES times as one stream, breaks a check."""
    # imported here: Hypothesis takes half a second to load, and only G6 needs it
    from hypothesis import HealthCheck, Verbosity, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    from fairdie.noise.strategies import noise_sequences

    vcc = work.rig.chip.vcc_mv
    reads = work.model.reads
    strategy = st.tuples(
        st.integers(0, len(starts) - 1),
        noise_sequences(min_size=1, max_size=_SEARCH_PRESSES * reads),
    )
    tried = [0]

    def breaks(example: tuple[int, list[int]]) -> bool:
        tried[0] += 1
        i, codes = example
        probe = Work(work.unit)  # judged apart: only the shrunk example is recorded
        noise = Codes(codes, vcc)
        return _chain(probe, "search", starts[i][1], noise, _SEARCH_PRESSES, 0) is not None

    try:
        i, codes = find(
            strategy,
            breaks,
            settings=settings(
                max_examples=examples,
                database=None,
                deadline=None,
                derandomize=False,
                verbosity=Verbosity.quiet,
                suppress_health_check=list(HealthCheck),
            ),
            random=random.Random(f"G6/{seed}/search/{part}"),
        )
    except NoSuchExample:
        pass
    else:
        _chain(work, "search", starts[i][1], Codes(codes, vcc), _SEARCH_PRESSES, 0)
    work.out.figure("search_examples", tried[0])
    work.out.presses += tried[0] * _SEARCH_PRESSES


def run_g6(work: Work) -> None:
    name, part, presses, seed = work.unit.args
    starts = _starts(work.model, seed)
    if name == "under-range":
        _refused(work, starts, max(1, presses // 10))
        return
    if name == "search":
        _search(work, starts, max(1, presses // _SEARCH_PRESSES), seed, part)
        return
    build = G6_NOISES[name]
    assert build is not None
    noise = build(work.model, work.rig.chip.vcc_mv, seed)
    per = -(-presses // len(starts))
    done = 0
    for _, image in starts:
        n = min(per, presses - done)
        if n <= 0:
            break
        _chain(work, name, image, noise, n, done)
        done += n
