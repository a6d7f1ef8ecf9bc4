"""Campaign G7: EEPROM wear, the writes each byte takes per press.

An EEPROM cell lasts WRITE_CYCLES erase/write cycles. The die must last
LIFE_GOAL presses whatever its noise: no byte may be written more often
than once per LIFE_GOAL / WRITE_CYCLES presses (the fair ring writes each
byte at most once per lap of its 10 slots; the seed's six counters, written
in place, do not last).

Each noise model (the lab's, by the same names and seeds as ``fairdie lab
campaign``) is pressed at model speed, by the model in C where it has a
port: the writes of a press are the bytes its image after differs in (a
firmware that skips unchanged bytes, as ``eeprom_update_byte`` does, writes
exactly those). The first presses of each noise also run on the chip, which
must start a write at exactly those addresses, press by press, and the
Python model and the lab's reader, conversion by conversion, must give the
same codes and image ("model" violation otherwise).

A campaign's presses are cut into chunks, each a chain of its own from an
erased chip over its share of the noise's presses (press k reads the
noise's press k, whatever the chunk). A chunk's figures are its own: the
most writes per byte per press merge by max and the projected life by min,
so the merged projection is never above the one the whole run would give.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from fairdie.noise import code_for_mv
from fairdie.subjects.die.faults._cuts import PRESS_S
from fairdie.subjects.die.faults._ids import step
from fairdie.subjects.die.faults._images import ERASED
from fairdie.subjects.die.faults._rig import Rig, Target
from fairdie.subjects.die.faults._work import Unit, Work
from fairdie.subjects.die.lab._adversary import TRIES, Adversary, menu_key
from fairdie.subjects.die.lab._campaign import Campaign, campaign_noise
from fairdie.subjects.die.lab._presses import PressReader, conversion_instants

__all__ = ["LIFE_GOAL", "WEAR_NOISES", "WRITE_CYCLES", "plan_g7", "run_g7"]

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

#: CPU seconds a model press takes under each noise, roughly
_COST = {
    "floating": 7e-5,
    "uniform": 5.5e-5,
    "biased": 5.5e-5,
    "hum": 4.6e-5,
    "stuck": 1e-5,
    "adversarial": 8e-5,
}
#: per process, of each rig: its analog channel and conversion instants
_INSTANTS: WeakKeyDictionary[Rig, tuple[int, list[float]]] = WeakKeyDictionary()


def plan_g7(target: Target, quick: bool, seed: int, presses: int | None = None) -> list[Unit]:
    total = presses or (_QUICK_PRESSES if quick else _PRESSES)
    chip = min(total, _QUICK_CHIP if quick else _CHIP)
    return [
        Unit(
            "G7",
            target,
            (label, spec, first, min(_CHUNK, total - first), 0 if first else chip, seed),
            cost=_COST[label] * min(_CHUNK, total - first) + (0 if first else 0.001 * chip),
        )
        for label, spec in WEAR_NOISES
        for first in range(0, total, _CHUNK)
    ]


class _Presses:
    """Press ``k``'s codes under a noise, and what a press does, by the model
    in C (fairdie.subjects.die._model_host) where it has a port: a seeded
    noise's values for the whole press in one call (``press_values``; for a
    noise that reads a clock, ``press_values_at`` the instants the reader
    takes its conversions at), the adversary's choice made in C from the
    same menus. Otherwise the lab's reader, conversion by conversion
    (:meth:`slow`, also the yardstick the chip-checked presses hold the
    fast way to)."""

    def __init__(self, work: Work, spec: str, seed: int, presses: int) -> None:
        model, vcc = work.model, work.rig.chip.vcc_mv
        campaign = Campaign(presses=presses, noise=spec, seed=seed, board=work.target.board)
        self.model, self.seed = model, seed
        self.noise: Any = campaign_noise(campaign, model, vcc)
        self.channel, instants = _instants(work)
        self.reader = PressReader(self.noise, model, self.channel, instants, int(vcc))
        self.host = work.rig.host
        self.adversary = self.host is not None and isinstance(self.noise, Adversary)
        self.bulk = (
            self.host is not None
            and hasattr(self.noise, "press_values")
            and not hasattr(self.noise, "bind_clock")
        )
        #: a noise that reads a clock (hum): its press read in one call, at the
        #: instants the reader takes the conversions at
        self.timed = self.host is not None and hasattr(self.noise, "press_values_at")
        self._since = np.array([self.reader.instant(i) for i in range(model.reads)])
        self._codes = np.array(
            [code_for_mv(mv, int(vcc)) for mv in range(int(vcc) + 1)], dtype=np.uint16
        )
        self._top = len(self._codes) - 1

    def codes(self, k: int, image: bytes) -> tuple[tuple[int, ...], int | None]:
        """The codes press ``k`` from ``image`` converts, and their digest
        (``HostModel.digest``; None: read the slow way, no digest)."""
        if self.host is None or not (self.bulk or self.timed or self.adversary):
            return self.slow(k, image), None
        if self.adversary:
            read = self.host.adversary(image, menu_key(self.seed, k), TRIES)
        else:
            if self.timed:
                mv = self.noise.press_values_at(k, self._since, self.channel)
            else:
                mv = self.noise.press_values(k, self.model.reads, self.channel)
            mv = np.rint(mv)
            # as the chip converts: whole millivolts, then the code (PressReader)
            whole = np.minimum(np.maximum(mv, 0), self._top).astype(np.intp)
            read = array("H", self._codes[whole].tobytes())
        digest, n = self.host.digest(read)
        return tuple(read[:n].tolist()), digest

    def slow(self, k: int, image: bytes) -> tuple[int, ...]:
        """The codes as the lab reads them, conversion by conversion."""
        self.noise.seek(k)
        prepare = getattr(self.noise, "prepare", None)
        if prepare is not None:
            prepare(image)
        return tuple(self.reader.codes())

    def press(
        self, image: bytes, codes: Sequence[int], digest: int | None = None
    ) -> tuple[int | None, bytes]:
        """A press, in C from ``digest`` where there is one."""
        if self.host is None:
            return self.model.press(image, codes)
        if digest is None:
            return self.host.press(image, codes)
        faces, after = self.host.chain(image, array("i", (digest,)))
        return faces[0] or None, after


def _instants(work: Work) -> tuple[int, list[float]]:
    got = _INSTANTS.get(work.rig)
    if got is None:
        got = _INSTANTS[work.rig] = conversion_instants(work.rig.die)
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
    read = _Presses(work, spec, seed, first + presses)
    counts = np.zeros(rig.size, dtype=np.int64)
    image = ERASED
    mismatches = 0
    for k in range(first, first + presses):
        codes, digest = read.codes(k, image)
        face, after = read.press(image, codes, digest)
        if after != image:  # a byte is written where it differs (eeprom_update_byte)
            counts += np.frombuffer(image, np.uint8) != np.frombuffer(after, np.uint8)
        if k - first < chip_presses and mismatches < 3:
            w = rig.press(image, codes, PRESS_S)
            work.out.presses += 1
            chip = sorted(wr.address for wr in w.writes)
            written = _written(image, after)
            # the chip, the model in Python and the lab's reading agree with the fast way
            slow = read.slow(k, image)
            if (w.face, w.after, chip, model.press(image, slow), slow) != (
                face,
                after,
                written,
                (face, after),
                codes,
            ):
                mismatches += 1
                work.violate(
                    (
                        "model",
                        f"under {label} noise the chip showed {w.face}, stored {w.after.hex()}"
                        f" and wrote bytes {chip}; its model {face}, {after.hex()} and {written}"
                        + ("" if slow == codes else f"; the lab reads codes {slow}"),
                    ),
                    work.replay(image, codes, [step(w.end - w.start, None)]),
                )
            work.out.figure(f"wear_{label}_chip_presses", 1)
        image = after
    work.out.figure(f"wear_{label}_presses", presses)
    most = int(counts.max())
    work.out.figure(f"wear_{label}_per_press_max", most / presses)
    if not most:  # nothing stored (every press failed the health tests): no wear
        return
    worn = int(counts.argmax())
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
