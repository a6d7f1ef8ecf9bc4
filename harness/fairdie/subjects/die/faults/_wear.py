"""Campaign G7: EEPROM wear, the writes each byte takes per press.

An EEPROM cell lasts WRITE_CYCLES erase/write cycles. The die must last
LIFE_GOAL presses whatever its noise: no byte may be written more often
than once per LIFE_GOAL / WRITE_CYCLES presses (the fair ring writes each
byte at most once per lap of its 10 slots; the seed's six counters, written
in place, do not last).

Each noise model (the lab's, by the same names and seeds as ``fairdie lab
campaign``) is pressed at model speed: the writes of a press are the bytes
its image after differs in (a firmware that skips unchanged bytes, as
``eeprom_update_byte`` does, writes exactly those). The first presses of
each noise also run on the chip, which must start a write at exactly those
addresses, press by press ("model" violation otherwise).

A campaign's presses are cut into chunks, each a chain of its own from an
erased chip over its share of the noise's presses (press k reads the
noise's press k, whatever the chunk). A chunk's figures are its own: the
most writes per byte per press merge by max and the projected life by min,
so the merged projection is never above the one the whole run would give.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fairdie.subjects.die._models import DieModel
from fairdie.subjects.die.faults._cuts import PRESS_S
from fairdie.subjects.die.faults._ids import step
from fairdie.subjects.die.faults._images import ERASED
from fairdie.subjects.die.faults._rig import Target
from fairdie.subjects.die.faults._work import Unit, Work
from fairdie.subjects.die.lab._campaign import (
    Campaign,
    PressReader,
    campaign_noise,
    conversion_instants,
)

__all__ = ["LIFE_GOAL", "WEAR_NOISES", "WRITE_CYCLES", "FaceFirst", "plan_g7", "run_g7"]

#: erase/write cycles an EEPROM byte endures (ATtiny13A datasheet: 100 000)
WRITE_CYCLES = 100_000
#: presses a die must last whatever its noise
LIFE_GOAL = 1_000_000
#: (label in the figures' names, noise spec as the lab names it)
WEAR_NOISES = (
    ("floating", "floating"),
    ("uniform", "uniform"),
    ("biased", "biased:3,1"),  # three codes in four even: a low bit 0 three times as often
    ("hum", "hum:50"),
    ("stuck", "stuck:1500"),
    ("adversarial", "adversarial"),
)
_PRESSES = 1_000_000
#: 200 laps of the ring. 20 000 would take about 32 s of CPU, 19 s of them the
#: adversary's (18 model presses per press): too long for the quick tier
_QUICK_PRESSES = 2_000
_CHUNK = 100_000  #: presses per unit (a multiple of the ring's 10 slots)
_CHIP = 2_000  #: presses also run on the chip, per noise
_QUICK_CHIP = 200

#: per process: the target's analog channel and conversion instants
_INSTANTS: dict[Target, tuple[int, list[float]]] = {}


def plan_g7(target: Target, quick: bool, seed: int, presses: int | None = None) -> list[Unit]:
    total = presses or (_QUICK_PRESSES if quick else _PRESSES)
    chip = min(total, _QUICK_CHIP if quick else _CHIP)
    return [
        Unit(
            "G7",
            target,
            (label, spec, first, min(_CHUNK, total - first), 0 if first else chip, seed),
        )
        for label, spec in WEAR_NOISES
        for first in range(0, total, _CHUNK)
    ]


class FaceFirst:
    """A die model whose :meth:`press` gives the face of a press and the image
    unchanged, from the state it decodes once per image: all the adversary
    asks of a model (it tries a dozen presses per press), at half the cost.
    Everything else is the wrapped model's."""

    def __init__(self, model: DieModel) -> None:
        self.model = model
        self._image = b""
        self._state = b""

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def reads(self) -> int:
        return self.model.reads

    @property
    def footprint(self) -> range:
        return self.model.footprint

    def table(self, image: bytes) -> tuple[int, ...]:
        return self.model.table(image)

    def state(self, image: bytes) -> bytes:
        if image != self._image:
            self._image, self._state = image, self.model.state(image)
        return self._state

    def conversions(self, codes: Iterable[int]) -> int:
        return self.model.conversions(codes)

    def step(self, state: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        return self.model.step(state, codes)

    def press(self, image: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        return self.model.step(self.state(image), codes)[0], image

    def cleared(self, image: bytes) -> bytes:
        return self.model.cleared(image)

    def forcing(self, face: int) -> tuple[bytes, tuple[int, ...]]:
        return self.model.forcing(face)

    def with_table(self, table: Sequence[int]) -> bytes:
        return self.model.with_table(table)


def _instants(work: Work) -> tuple[int, list[float]]:
    got = _INSTANTS.get(work.target)
    if got is None:
        got = _INSTANTS[work.target] = conversion_instants(work.rig.die)
    return got


def _written(before: bytes, after: bytes) -> list[int]:
    """The addresses whose bytes differ, lowest first."""
    x = int.from_bytes(before, "little") ^ int.from_bytes(after, "little")
    out = []
    while x:
        a = ((x & -x).bit_length() - 1) >> 3
        out.append(a)
        x &= ~(0xFF << (8 * a))
    return out


def run_g7(work: Work) -> None:
    label, spec, first, presses, chip_presses, seed = work.unit.args
    rig, model = work.rig, work.model
    vcc = rig.chip.vcc_mv
    campaign = Campaign(presses=first + presses, noise=spec, seed=seed, board=work.target.board)
    noise: Any = campaign_noise(campaign, FaceFirst(model), vcc)
    channel, instants = _instants(work)
    reader = PressReader(noise, model, channel, instants, int(vcc))
    prepare = getattr(noise, "prepare", None)
    counts = [0] * rig.size
    image = ERASED
    mismatches = 0
    for k in range(first, first + presses):
        noise.seek(k)
        if prepare is not None:
            prepare(image)
        codes = reader.codes()
        face, after = model.press(image, codes)
        written = _written(image, after)
        for a in written:
            counts[a] += 1
        if k - first < chip_presses and mismatches < 3:
            w = rig.press(image, codes, PRESS_S)
            work.out.presses += 1
            chip = sorted(wr.address for wr in w.writes)
            if (w.face, w.after, chip) != (face, after, written):
                mismatches += 1
                work.violate(
                    (
                        "model",
                        f"under {label} noise the chip showed {w.face}, stored {w.after.hex()}"
                        f" and wrote bytes {chip}; its model {face}, {after.hex()} and {written}",
                    ),
                    work.replay(image, codes, [step(w.end - w.start, None)]),
                )
            work.out.figure(f"wear_{label}_chip_presses", 1)
        image = after
    work.out.figure(f"wear_{label}_presses", presses)
    most = max(counts)
    work.out.figure(f"wear_{label}_per_press_max", most / presses)
    if not most:  # nothing stored (every press failed the health tests): no wear
        return
    worn = counts.index(most)
    life = WRITE_CYCLES * presses / most
    work.out.figure(f"wear_{label}_presses_min", life)
    if life < LIFE_GOAL:
        work.violate(
            (
                "G7",
                f"under {label} noise byte {worn} took {most} writes in {presses} presses:"
                f" it lasts {life:,.0f} presses at {WRITE_CYCLES:,} write cycles, under"
                f" {LIFE_GOAL:,}",
            ),
            work.unit_replay(),
        )
