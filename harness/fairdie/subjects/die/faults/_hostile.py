"""Campaign G5: hostile EEPROM images (G6, hostile noise: _hostile_noise).

Every single-byte corruption (64 bytes x 256 values) of ten starting
images and seeded random 64-byte images. Each boots on the chip (I4: a
face in time, the model's image stored). Each must then recover at model
level: a press is *kept* when the state its image decodes to is the state
the rule gives (``model.state(model.press(image, codes)[1]) ==
model.step(model.state(image), codes)[1]``); the image has recovered once
RECOVERY_WINDOW presses in a row are kept, and the presses before that run
must be at most RECOVERY_BOUND. Every 50th image also presses a few times
on the chip, which must do what the model does.
"""

from __future__ import annotations

import random
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairdie._recent import Recent
from fairdie.subjects.die._models import DieModel
from fairdie.subjects.die.faults._cuts import PRESS_S
from fairdie.subjects.die.faults._ids import press_step, step
from fairdie.subjects.die.faults._images import (
    ERASED,
    draw_press,
    random_codes,
    start_images,
    walk,
)
from fairdie.subjects.die.faults._rig import Target
from fairdie.subjects.die.faults._verdict import judge_press, rolls_from_digest, rule_step
from fairdie.subjects.die.faults._work import Unit, Work, rig_for

if TYPE_CHECKING:
    from fairdie.subjects.die._model_host import HostModel

__all__ = [
    "RECOVERY_BOUND",
    "RECOVERY_WINDOW",
    "Recovery",
    "plan_g5",
    "press_as_modelled",
    "recovery",
    "run_g5",
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
_IMAGE_COST = 0.0013  #: CPU seconds a hostile image takes (its boot and recovery), roughly
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
        Unit(
            "G5",
            target,
            ("corrupt", name, image, lo, lo + per, quick, seed),
            cost=_IMAGE_COST * per * (_QUICK_VALUES if quick else 256),
        )
        for name, image in bases
        for lo in range(0, 64, per)
    ]
    total = _QUICK_RANDOM if quick else _RANDOM
    units += [
        Unit(
            "G5",
            target,
            ("random", start, min(_RANDOM_PER_UNIT, total - start), seed),
            cost=_IMAGE_COST * min(_RANDOM_PER_UNIT, total - start),
        )
        for start in range(0, total, _RANDOM_PER_UNIT)
    ]
    total = _QUICK_SPLICED if quick else _SPLICED
    units += [
        Unit(
            "G5",
            target,
            ("spliced", start, min(_RANDOM_PER_UNIT, total - start), seed),
            cost=_IMAGE_COST * min(_RANDOM_PER_UNIT, total - start),
        )
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


#: per process: (model name, seed) -> its walk (a kept worker serves seed after seed)
_WALKS: Recent[tuple[str, int], list[bytes]] = Recent(16)


def _walk(model: DieModel, seed: int) -> list[bytes]:
    return _WALKS.get((model.name, seed), lambda: walk(model, 300, seed))


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


def recovery(
    model: DieModel, image: bytes, rng: random.Random, *, host: HostModel | None = None
) -> Recovery:
    """Press ``image`` with codes from ``rng`` until RECOVERY_WINDOW presses in
    a row are kept (or _RECOVERY_LIMIT presses): see the module. ``host``, the
    model in C where it has a port, samples the codes and presses (the same,
    faster); the rule, rolled from the sample, and the reading of each image
    are the model's own."""
    state = model.state(image)
    run = unkept = 0
    last: tuple[bytes, tuple[int, ...]] | None = None
    for k in range(_RECOVERY_LIMIT):
        drawn, n, digest = draw_press(model, rng, host)
        # the codes made a tuple only where read: the fair rule rolls from the digest
        codes = () if rolls_from_digest(model, digest) else tuple(drawn[:n])
        want = rule_step(model, state, codes, digest)[1]
        if host is None or digest is None:
            after = model.press(image, codes)[1]
        else:  # the press the digest makes, in C (HostModel.press, its codes not read again)
            after = host.chain(image, array("i", (digest,)))[1]
        got = model.state(after)
        if got == want:
            run += 1
            if run == RECOVERY_WINDOW:
                return Recovery(k + 1 - RECOVERY_WINDOW, unkept, last)
        else:
            run = 0
            unkept += 1
            last = (image, tuple(drawn[:n]))
        image, state = after, got
    return Recovery(_RECOVERY_LIMIT, unkept, last)


def _chip_sample(work: Work, image: bytes, rng: random.Random) -> None:
    """A few presses on the chip from ``image``: each as the model does."""
    for _ in range(_CHIP_PRESSES):
        after = press_as_modelled(work, image, rng)
        if after is None:
            return
        image = after


def press_as_modelled(work: Work, image: bytes, rng: random.Random) -> bytes | None:
    """A press with random codes that must do what the model does: the image
    it left (None: it did not, a violation)."""
    codes = random_codes(work.model, rng, work.rig.host)
    w = work.rig.press(image, codes, PRESS_S)
    work.out.presses += 1
    found = judge_press(work.model, image, w.codes, w.shown, w.after)
    if found is not None:
        work.violate(found, work.replay(image, w.codes, [press_step(w.end - w.start)]))
        return None
    return w.after


def run_g5(work: Work) -> None:
    seed = work.unit.args[-1]
    model = work.model
    press_cycles = work.rig.chip.cycles_for(PRESS_S)
    for index, image in _hostile_images(work.model, work.unit.args):
        work.boot(image)
        rng = random.Random(f"G5/{seed}/codes/{image.hex()}")
        r = recovery(model, image, rng, host=work.rig.host)
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
