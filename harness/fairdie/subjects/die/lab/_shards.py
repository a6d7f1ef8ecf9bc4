"""The work of a campaign on its workers (processes, or Dask workers).

Two rounds. First the presses are cut into pieces and each piece reads its
presses' noise (:func:`digest_piece`): the codes, and each press's *digest*,
what the die's rule takes of them (see :mod:`fairdie.subjects.die._model_host`);
for the adversary, the digests of its whole menu. The campaign chains the
digests through the model in C, which gives the EEPROM image each shard
starts from. Then each shard (:func:`run_shard`) presses the chip from its
image, feeding it the codes (or the adversary's choice, made here from the
model's image), and checks it against the model face by face and at its
end: the first disagreement comes back as a line.

Everything a worker needs travels in its piece: the campaign's ``Setup``,
the firmware image itself (:class:`~fairdie.sim.Firmware`, so no file of the
client is opened), the noise model (a recording's readings in it) and the
codes. The C models are built on the worker from the package's own sources.
"""

from __future__ import annotations

import functools
import hashlib
import time
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fairdie.noise import mv_table
from fairdie.subjects.die._model_host import FIXED_ITEMS, HostModel, host_model
from fairdie.subjects.die._models import DieModel, model_named
from fairdie.subjects.die.lab._adversary import TRIES, menu_key
from fairdie.subjects.die.lab._predict import tally_part
from fairdie.subjects.die.lab._presses import HOLD_S, PressReader
from fairdie.subjects.die.lab._public import public_view
from fairdie.subjects.die.lab._systems import Dice, System

if TYPE_CHECKING:
    from fairdie.sim import Firmware
    from fairdie.subjects.die.lab._campaign import Campaign

__all__ = [
    "ERASED",
    "FAULT",
    "MENU_ITEMS",
    "Digests",
    "Inputs",
    "Piece",
    "Shard",
    "ShardResult",
    "TallyPiece",
    "die_of",
    "digest_piece",
    "run_shard",
    "tally_inputs",
    "tally_piece",
]

#: a press that failed the health tests, where a campaign's faces say 1..6
FAULT = 7
ERASED = b"\xff" * 64
#: the code sets the adversary tries per press
MENU_ITEMS = FIXED_ITEMS + TRIES
_FIRST = 64  # codes read at once for a press (the fair rule converts at least 64)
_MORE = 8  # and then, until the rule has what it needs


@dataclass(frozen=True)
class Inputs:
    """What a campaign's presses read: ``noise`` (a noise model, None for the
    adversary or a die with no analog input), under ``model`` (the reference
    model's name; None: a firmware with none)."""

    model: str | None
    noise: Any
    seed: int
    channel: int = 0
    instants: tuple[float, ...] = ()
    vcc: int = 3000

    def host(self) -> HostModel:
        assert self.model is not None
        return _host(self.model)


@functools.lru_cache(maxsize=4)
def _host(name: str) -> HostModel:
    found = host_model(model_named(name))
    if found is None:  # pragma: no cover - every model named has a port
        raise ValueError(f"no C port of die model {name!r}")
    return found


@dataclass(frozen=True)
class Piece:
    inputs: Inputs
    start: int
    count: int


@dataclass(frozen=True)
class Digests:
    start: int
    #: press after press, the digest (MENU_ITEMS per press for the adversary)
    digests: array[int]
    #: the codes read, and where each press's start in them (None: the adversary)
    codes: array[int] | None
    starts: array[int] | None
    cpu: float


def digest_piece(p: Piece) -> Digests:
    """Read a piece's presses: their codes and digests."""
    t0 = time.process_time()
    i, host = p.inputs, p.inputs.host()
    presses = range(p.start, p.start + p.count)
    if i.noise is None:  # the adversary: its menu's digests
        d = array("i")
        for k in presses:
            d.extend(host.menu_digests(menu_key(i.seed, k), TRIES))
        return Digests(p.start, d, None, None, time.process_time() - t0)
    reader = PressReader(i.noise, model_named(host.name), i.channel, i.instants, i.vcc)
    digests, codes, starts = array("i"), array("H"), array("I", [0])
    for k in presses:
        i.noise.seek(k)
        press = reader.press_codes(k, 0, min(_FIRST, host.reads))
        while True:
            try:
                digest, reads = host.digest(press)
                break
            except ValueError:  # the rule reads on
                press.extend(reader.press_codes(k, len(press), min(_MORE, host.reads - len(press))))
        digests.append(digest)
        codes.extend(press[:reads])
        starts.append(len(codes))
    return Digests(p.start, digests, codes, starts, time.process_time() - t0)


@dataclass(frozen=True)
class Shard:
    campaign: Campaign
    firmware: Firmware  #: loaded where the campaign was planned
    inputs: Inputs
    start: int
    count: int
    image: bytes
    #: the shard's codes and where each press's start (None: the adversary's, or no model)
    codes: array[int] | None = None
    starts: array[int] | None = None


@dataclass(frozen=True)
class ShardResult:
    start: int
    faces: bytes  #: 1..6, FAULT, 0 when no face showed
    image: bytes  #: the model's EEPROM after the shard (the chip's, unless ``mismatch``)
    seconds: float
    cpu: float
    mismatch: str | None = None  #: the first disagreement of chip and model


class _Feed:
    """One press's codes, as millivolts, a block at a time (the last again
    past the end: the chip converts more than its model)."""

    def __init__(self, vcc_mv: float) -> None:
        self._mv = np.array(mv_table(vcc_mv), np.float64)
        self._block = self._mv[:1]
        self._next = 0
        self.epoch = 0  #: a new press: the chip drops what it holds of the last

    def load(self, codes: array[int]) -> None:
        self._block = self._mv[np.frombuffer(codes, np.uint16)]
        self._next = 0
        self.epoch += 1

    def next_values(self, channel: int, n: int) -> Any:
        at, self._next = self._next, self._next + max(n, 1)
        if at < len(self._block):
            return self._block[at : self._next]
        return np.full(max(n, 1), self._block[-1])

    def __call__(self, channel: int) -> float:
        return float(self.next_values(channel, 1)[0])


def die_of(c: Campaign, firmware: Firmware, image: bytes) -> Any:
    """A fresh die of the campaign's setup running ``firmware``, from
    ``image`` (one chip per process, restored)."""
    from fairdie.subjects.die._cli import die_for  # the simulator: only where presses run
    from fairdie.subjects.die._fresh import fresh_dice

    setup = c.made_setup()
    loaded = hashlib.sha256(firmware.flash + (firmware.eeprom or b"")).hexdigest()
    key = ("campaign", setup.recipe(), loaded, c.timing)
    return fresh_dice(key, lambda: die_for(setup, firmware=firmware, timing=c.timing)).get(image)


def shown(press: Any) -> int:
    """A press as one byte: its face, FAULT for the fault display, else 0."""
    if press.face is not None:
        return int(press.face)
    return FAULT if press.display == "fault" else 0


def named(face: int) -> str:
    return "the fault" if face == FAULT else str(face) if face else "no face"


def run_shard(s: Shard) -> ShardResult:
    """Press one shard's presses on the chip, checked against the model."""
    t0, cpu0 = time.perf_counter(), time.process_time()
    c, i = s.campaign, s.inputs
    die = die_of(c, s.firmware, s.image)
    die.seek(s.start)
    hold = None if die.timing is not None else HOLD_S  # a timing draws each hold

    def done(faces: bytes, image: bytes, mismatch: str | None = None) -> ShardResult:
        seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        return ShardResult(s.start, faces, image, seconds, cpu, mismatch)

    if i.model is None:  # no model: the die reads the noise itself
        if i.noise is not None:
            die.set_noise(i.noise)
        faces = bytes(shown(die.roll(hold)) for _ in range(s.count))
        return done(faces, die.chip.eeprom)
    host = i.host()
    feed = _Feed(die.chip.vcc_mv)
    die.set_noise(feed)
    image, out = s.image, bytearray()
    for n, k in enumerate(range(s.start, s.start + s.count)):
        if s.codes is None or s.starts is None:
            codes = host.adversary(image, menu_key(i.seed, k), TRIES)
        else:
            codes = s.codes[s.starts[n] : s.starts[n + 1]]
        face, image = host.press(image, codes)
        feed.load(codes)
        got, want = shown(die.roll(hold)), FAULT if face is None else face
        out.append(got)
        if got != want:
            return done(
                bytes(out),
                image,
                f"press {k}: the chip showed {named(got)}, the model {named(want)}",
            )
    if die.chip.eeprom != image:
        end = s.start + s.count - 1
        return done(
            bytes(out), image, f"after press {end}: the chip's EEPROM differs from the model's"
        )
    return done(bytes(out), image)


@dataclass(frozen=True)
class TallyPiece:
    """One part of the tally of a campaign's faces (1..6, FAULT), under ``model``."""

    part: str
    faces: bytes
    model: str | None


def tally_piece(p: TallyPiece) -> tuple[str, Any, float]:
    """``(part, its result, CPU seconds)``: see :func:`._predict.tally_part`."""
    t0 = time.process_time()
    found = tally_part(p.part, *tally_inputs(p.faces, p.model))
    return p.part, found, time.process_time() - t0


def tally_inputs(faces: bytes, model: str | None) -> tuple[list[int], System, DieModel | None]:
    """What a tally of these faces takes: the faces shown (0-based), the
    rule's public start and the model."""
    m = model_named(model) if model is not None else None
    start = public_view(m.name, m.table(ERASED)) if m is not None else Dice(6)
    return [f - 1 for f in faces if f != FAULT], start, m
