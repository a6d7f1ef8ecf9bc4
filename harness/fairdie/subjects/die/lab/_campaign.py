"""Fairness campaigns: press the emulated die N times from an erased chip.

A campaign is one chain of presses, each from the table the last one left.
To spread it over processes (or a Dask cluster) the chain is cut into
shards, and each shard must start from the EEPROM image the presses before
it leave. The firmware's reference model gives those images: the campaign
first runs the model over every press (it needs each press's ADC codes, so
noise models read the same values whenever a press is read: see
``seek`` in :mod:`fairdie.noise`), then emulates the shards in parallel,
and checks the chip against the model face by face and at every shard's
end. So a campaign's faces depend on its seed only, however it is sharded;
a chip that disagrees with its model fails the campaign, naming the press.
A firmware with no model runs as one shard.
"""

from __future__ import annotations

import os
import shlex
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie.campaigns import map_work
from fairdie.errors import FairdieError
from fairdie.noise import NoiseModel, code_for_mv, mv_table, parse_noise
from fairdie.subjects.die._models import DieModel
from fairdie.subjects.die.lab._adversary import Adversary
from fairdie.subjects.die.lab._measures import run as run_system
from fairdie.subjects.die.lab._predict import Tally, tally
from fairdie.subjects.die.lab._public import public_view
from fairdie.subjects.die.lab._systems import Deck, Dice, DynamicDice, System

if TYPE_CHECKING:
    from fairdie.device import Setup

__all__ = [
    "FAULT",
    "REFERENCE_D",
    "SEED_CHECK",
    "Campaign",
    "CampaignError",
    "CampaignResult",
    "PressReader",
    "campaign_noise",
    "code_table",
    "conversion_instants",
    "run_campaign",
    "seed_matters",
]

#: a press that failed the health tests, where a campaign's faces say 1..6
FAULT = 7
#: dynamic dice's d as the spec's search picks it for n = 6, T = 25, entropy >= 0.90
REFERENCE_D = 0.355
_HOLD_S = 0.1  # long enough for the face to show, short of anything else
_ERASED = b"\xff" * 64


class CampaignError(FairdieError):
    """The chip and its reference model disagree, or a campaign cannot run."""


@dataclass(frozen=True)
class Campaign:
    """What to press: everything a campaign's result depends on.

    The strings are the user's words (:meth:`replay` names them); ``setup``
    is the die they resolve to at the campaign's seed, made once by
    :meth:`resolved` where the campaign is planned and carried whole to
    the processes that press its shards.
    """

    presses: int
    #: what the analog input reads (None: the die has none, chance is in the timing)
    noise: str | None = "floating"
    seed: int = 0
    variant: str | None = None
    firmware: str | None = None
    board: str = "die-direct"
    #: when a person presses (fairdie.stimulus; None: the die's default, human for a
    #: button die with no analog input, else fixed holds)
    timing: str | None = None
    setup: Setup | None = field(default=None, compare=False, repr=False)

    def made_setup(self) -> Setup:
        """The setup, at the campaign's seed: the one carried, else made now
        (the board checked against the build)."""
        if self.setup is not None:
            return self.setup if self.setup.seed == self.seed else self.setup.with_seed(self.seed)
        from fairdie.subjects.die._cli import die_setup

        return die_setup(self.board, variant=self.variant, firmware=self.firmware, seed=self.seed)

    def resolved(self) -> Campaign:
        """This campaign carrying its setup (made here if it had none)."""
        return self if self.setup is not None else replace(self, setup=self.made_setup())

    def replay(self) -> str:
        """The command line that runs this campaign again."""
        parts = ["fairdie lab campaign", f"--presses {self.presses}"]
        if self.noise is not None:
            parts.append(f"--noise {self.noise}")
        parts.append(f"--seed {self.seed}")
        if self.timing:
            parts.append(f"--timing {shlex.quote(self.timing)}")
        if self.variant:
            parts.append(f"--variant {self.variant}")
        if self.firmware:
            parts.append(f"--firmware {self.firmware}")
        if self.board != "die-direct":
            parts.append(f"--board {self.board}")
        return " ".join(parts)


@dataclass(frozen=True)
class _Shard:
    campaign: Campaign
    start: int
    count: int
    image: bytes
    #: the shard's ADC codes, press after press, as the model run read them
    #: from the noise (None: the shard reads the noise itself), and where each
    #: press's start in them (and the last's end)
    codes: array[int] | None = None
    starts: array[int] | None = None


class _Replay:
    """Feeds the chip the codes the model run read from the noise, press by
    press (``seek`` as a noise model), so that each press's noise is computed
    once per campaign. ``starts[k]``: where press ``first + k``'s codes
    start in ``codes`` (one more entry: where the last press's end)."""

    def __init__(self, codes: array[int], starts: array[int], first: int, vcc_mv: float) -> None:
        self._mv = mv_table(vcc_mv)
        self._codes = codes
        self._starts = starts
        self._first = first
        self._at = 0
        self._end = 0

    def seek(self, press: int) -> None:
        k = press - self._first
        self._at, self._end = self._starts[k], self._starts[k + 1]

    def __call__(self, channel: int) -> float:
        at = min(self._at, self._end - 1)  # more conversions than the model's: the last again
        self._at += 1
        return self._mv[self._codes[at]]


@dataclass(frozen=True)
class _ShardResult:
    start: int
    faces: bytes  # 1..6, 0 when no face showed
    image: bytes  # EEPROM after the shard's last press
    seconds: float


def _die(c: Campaign, image: bytes) -> Any:
    """A fresh die of the campaign's setup from ``image`` (one chip per process, restored)."""
    from fairdie.subjects.die._cli import die_for  # the simulator: only where presses run
    from fairdie.subjects.die._fresh import fresh_dice

    setup = c.made_setup()
    bd = setup.board
    assert bd is not None  # a campaign's setup is a board's
    # a board need not hash (its tables): its file and when it changed stand for it
    recipe = (replace(setup, board=None), bd.source, _stamp(Path(bd.source)))
    key = ("campaign", recipe, _stamp(setup.firmware), c.timing)
    return fresh_dice(key, lambda: die_for(setup, timing=c.timing)).get(image)


def _stamp(path: Path) -> int | None:
    """A file's modification time (a file changed since makes a new die)."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None  # gone: loading it says so


def campaign_noise(c: Campaign, model: DieModel | None, vcc_mv: float) -> NoiseModel:
    if c.noise is None:
        raise CampaignError("this die reads an analog input: give a noise model")
    if c.noise.strip().lower() == "adversarial":
        if model is None:
            raise CampaignError(
                "adversarial noise needs the firmware's reference model; this firmware has none"
            )
        return Adversary(model, c.seed, vcc_mv)
    try:
        noise = parse_noise(c.noise, seed=c.seed, vcc_mv=int(vcc_mv))
    except ValueError as e:
        raise CampaignError(str(e)) from None
    if model is not None and hasattr(noise, "per_press"):
        noise.per_press = model.reads  # a trace: each press starts at its own row
    return noise


def _run_shard(shard: _Shard) -> _ShardResult:
    """Emulate one shard's presses (in a worker process or a Dask worker)."""
    t0 = time.perf_counter()
    c = shard.campaign
    die = _die(c, shard.image)
    if shard.codes is not None and shard.starts is not None:
        die.set_noise(_Replay(shard.codes, shard.starts, shard.start, die.chip.vcc_mv))
    elif c.noise is not None:  # no model: one shard, reading the noise itself (never adversarial)
        die.set_noise(campaign_noise(c, None, die.chip.vcc_mv))
    die.seek(shard.start)
    hold = None if die.timing is not None else _HOLD_S  # a timing draws each hold
    faces = bytearray(_shown(die.roll(hold)) for _ in range(shard.count))
    return _ShardResult(shard.start, bytes(faces), die.chip.eeprom, time.perf_counter() - t0)


def _shown(press: Any) -> int:
    """A press as one byte: its face, FAULT for the fault display, else 0."""
    if press.face is not None:
        return int(press.face)
    return FAULT if press.display == "fault" else 0


def _named(face: int) -> str:
    return "the fault" if face == FAULT else str(face) if face else "no face"


@dataclass
class _ModelRun:
    faces: bytearray = field(default_factory=bytearray)  # 0: a health failure
    images: dict[int, bytes] = field(default_factory=dict)  # press -> image before it
    codes: array[int] = field(default_factory=lambda: array("H"))
    starts: array[int] = field(default_factory=lambda: array("I", [0]))  # press -> first code


def conversion_instants(die: Any) -> tuple[int, list[float]]:
    """The analog channel and the seconds after power-on at which one press of
    this (fresh) die converts: the firmware converts at the same instants
    at every press, as many as it needs (see :class:`PressReader`)."""
    die.set_noise("uniform")
    die.roll(_HOLD_S)
    chip = die.chip
    start = chip.power_on_cycle
    log = chip.adc_log()
    channel = log[0].channel if log else 0
    return channel, [(a.cycle - start) / chip.frequency for a in log]


def code_table(vcc: int) -> Callable[[float], int]:
    """``mv -> code`` as the chip converts (whole millivolts, then simavr's
    floor(mv * 1023 / vcc)), by table: the model run converts every reading."""
    table = [code_for_mv(mv, vcc) for mv in range(vcc + 1)]

    def code(mv: float) -> int:
        m = round(mv)
        return table[m] if 0 <= m <= vcc else code_for_mv(m, vcc)

    return code


class PressReader:
    """Reads one press's codes from a noise model as the chip would: as many
    as the firmware's model converts, each (for a noise bound to a clock) at
    its instant after power-on. Conversions past those the probe press made
    are taken to follow at its mean spacing."""

    def __init__(
        self, noise: Any, model: DieModel, channel: int, instants: Sequence[float], vcc: int
    ) -> None:
        self._noise = noise
        self._model = model
        self._channel = channel
        self._instants = list(instants) or [0.0]
        n = len(self._instants)
        self._spacing = (self._instants[-1] - self._instants[0]) / (n - 1) if n > 1 else 0.0
        self._code = code_table(vcc)
        self._at = 0
        bind = getattr(noise, "bind_clock", None)
        if bind is not None:
            bind(self._now)

    def _now(self) -> float:
        i, last = self._at, len(self._instants) - 1
        return self._instants[i] if i <= last else self._instants[last] + (i - last) * self._spacing

    def codes(self) -> list[int]:
        """This press's codes (seek the noise to the press first)."""
        out: list[int] = []

        def read() -> Iterator[int]:
            for i in range(self._model.reads):
                self._at = i
                out.append(self._code(self._noise(self._channel)))
                yield out[-1]

        self._model.conversions(read())
        return out


def _model_run(c: Campaign, probe: Any, cuts: Sequence[int]) -> _ModelRun:
    model: DieModel = probe.model
    vcc_mv = probe.chip.vcc_mv
    channel, instants = conversion_instants(probe)
    if not instants:
        raise CampaignError(
            f"the firmware converted nothing in a press; its model {model.name!r} does"
        )
    noise = campaign_noise(c, model, vcc_mv)
    seek = getattr(noise, "seek", None)
    prepare = getattr(noise, "prepare", None)
    if seek is None:
        raise CampaignError(f"noise {c.noise!r} cannot be read press by press (no seek)")
    reader = PressReader(noise, model, channel, instants, int(vcc_mv))
    out = _ModelRun()
    image = _ERASED
    wanted = set(cuts)
    for k in range(c.presses):
        if k in wanted:
            out.images[k] = image
        seek(k)
        if prepare is not None:
            prepare(image)
        codes = reader.codes()
        face, image = model.press(image, codes)
        out.faces.append(FAULT if face is None else face)
        out.codes.extend(codes)
        out.starts.append(len(out.codes))
    out.images[c.presses] = image
    return out


@dataclass(frozen=True)
class CampaignResult:
    campaign: Campaign
    model: str | None
    tally: Tally
    shards: int
    seconds: float
    emulated_seconds: float  #: summed over the shards
    faces: bytes = b""  #: every press's face, in order (FAULT: a health failure)
    timing: str | None = None  #: the press timing the dice followed (None: fixed holds)

    @property
    def health_failures(self) -> int:
        """Presses whose noise failed the firmware's health tests (no face)."""
        return self.faces.count(FAULT)

    @property
    def presses_per_s(self) -> float:
        return self.campaign.presses / self.seconds if self.seconds else 0.0

    def as_json(self) -> dict[str, Any]:
        t = self.tally
        return {
            "presses": self.campaign.presses,
            "noise": self.campaign.noise,
            "seed": self.campaign.seed,
            "timing": self.timing,
            "variant": self.campaign.variant,
            "model": self.model,
            "counts": list(t.counts),
            "health_failures": self.health_failures,
            **t.as_json(),
            "chi2_p": t.chi2_p,  # chi2_p_uneven's old name
            "notes": list(t.notes),
            "presses_per_s": round(self.presses_per_s, 1),
            "shards": self.shards,
            "seconds": round(self.seconds, 2),
            "replay": self.campaign.replay(),
        }


def run_campaign(
    c: Campaign,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> CampaignResult:
    """Run a campaign; ``progress(n)`` is told of each n presses done."""
    t0 = time.perf_counter()
    c = c.resolved()  # the board and firmware loaded once, here: the shards carry the setup
    probe = _die(c, _ERASED)
    model: DieModel | None = probe.model
    vcc = probe.chip.vcc_mv
    timing = str(probe.timing) if probe.timing is not None else None
    if probe.noise is None and c.noise is not None:
        raise CampaignError(
            f"board {probe.board.name} has no analog input to feed noise {c.noise!r} to"
            " (give no --noise: its chance is in when it is pressed, --timing)"
        )
    if c.noise is not None or probe.noise is not None:
        campaign_noise(c, model, vcc)  # a bad noise spec fails before any work
    workers = max(jobs, 1) if not scheduler else 8
    count = 1 if model is None else min(c.presses, max(1, workers * 4))
    cuts = [c.presses * i // count for i in range(count)]
    expected: _ModelRun | None = None
    if model is not None:
        expected = _model_run(c, probe, cuts)
    shards = [
        _Shard(
            c,
            a,
            b - a,
            expected.images[a],
            expected.codes[expected.starts[a] : expected.starts[b]],
            array("I", (x - expected.starts[a] for x in expected.starts[a : b + 1])),
        )
        if expected
        else _Shard(c, a, b - a, _ERASED)
        for a, b in zip(cuts, [*cuts[1:], c.presses], strict=True)
        if b > a
    ]
    faces = bytearray(c.presses)
    emulated = 0.0
    for r in map_work(_run_shard, shards, jobs=jobs, scheduler=scheduler, error=CampaignError):
        faces[r.start : r.start + len(r.faces)] = r.faces
        emulated += r.seconds
        end = r.start + len(r.faces)
        if expected is not None:
            for k in range(r.start, end):
                if faces[k] != expected.faces[k]:
                    raise CampaignError(
                        f"press {k}: the chip showed {_named(faces[k])}, the model"
                        f" {_named(expected.faces[k])}; replay: {c.replay()}"
                    )
            if r.image != expected.images[end]:
                raise CampaignError(
                    f"after press {end - 1}: the chip's EEPROM differs from the model's;"
                    f" replay: {c.replay()}"
                )
        if progress is not None:
            progress(len(r.faces))
    if 0 in faces:
        k = faces.index(0)
        raise CampaignError(f"press {k} showed no face; replay: {c.replay()}")
    start = public_view(model.name, model.table(_ERASED)) if model else Dice(6)
    t = tally([f - 1 for f in faces if f != FAULT], start, model=model)
    seconds = time.perf_counter() - t0
    name = model.name if model else None
    return CampaignResult(c, name, t, len(shards), seconds, emulated, bytes(faces), timing)


#: presses pressed again under another seed to tell whether the seed matters
SEED_CHECK = 24


def seed_matters(result: CampaignResult) -> bool:
    """Whether the campaign's faces change with its seed: its first presses
    against a short campaign's under another seed (cheap)."""
    from fairdie.stimulus import depends_on_seed

    c = result.campaign
    n = min(c.presses, SEED_CHECK)

    def faces(seed: int) -> bytes:
        if seed == c.seed:
            return result.faces[:n]
        return run_campaign(replace(c, presses=n, seed=seed)).faces

    return depends_on_seed(faces, (c.seed, c.seed ^ 1))


def reference_tallies(presses: int, seed: int) -> dict[str, Tally]:
    """Dice, deck and dynamic dice (d = REFERENCE_D) pressed as often, seeded."""
    systems: dict[str, System] = {
        "dice": Dice(6),
        "deck": Deck(6),
        "dynamic_dice": DynamicDice(6, REFERENCE_D),
    }
    return {name: tally(run_system(s, presses, seed), s) for name, s in systems.items()}
