"""Fairness campaigns: press the emulated die N times from an erased chip.

A campaign is one chain of presses, each from the table the last one left.
To spread it over processes (or a Dask cluster) the chain is cut into
shards, and each shard must start from the EEPROM image the presses before
it leave. The firmware's reference model, in C, gives those images: the
workers first read every press's noise (noise models read the same values
whenever a press is read: see ``seek`` in :mod:`fairdie.noise`) and give
what the rule takes of it; the campaign chains that through the model,
which takes milliseconds; then the workers press the shards on the chip
and check it against the model face by face and at every shard's end
(:mod:`._shards`). So a campaign's faces depend on its seed only, however
it is sharded and wherever it runs; a chip that disagrees with its model
fails the campaign, naming the press. A firmware with no model runs as one
shard.
"""

from __future__ import annotations

import itertools
import shlex
import time
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from fairdie.campaigns import Workers
from fairdie.errors import FairdieError
from fairdie.noise import NoiseModel, parse_noise
from fairdie.subjects.die._model_host import host_model
from fairdie.subjects.die._models import DieModel
from fairdie.subjects.die.lab._adversary import Adversary
from fairdie.subjects.die.lab._predict import TALLY_PARTS, Tally, tally, tally_of
from fairdie.subjects.die.lab._presses import PressReader, code_table, conversion_instants
from fairdie.subjects.die.lab._references import (
    REFERENCE_D,
    REFERENCES,
    ReferencePiece,
    reference_piece,
    reference_tallies,
)
from fairdie.subjects.die.lab._shards import (
    ERASED,
    FAULT,
    MENU_ITEMS,
    Digests,
    Inputs,
    Piece,
    Shard,
    ShardResult,
    TallyPiece,
    die_of,
    digest_piece,
    run_shard,
    tally_inputs,
    tally_piece,
)

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
    "reference_tallies",
    "run_campaign",
    "seed_matters",
]


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
    #: wall seconds in which no worker had work: planning, chaining, what was left
    serial_seconds: float = 0.0
    cpu_parent: float = 0.0  #: CPU seconds of this process, the workers' left out
    cpu_workers: float = 0.0  #: CPU seconds of the workers' pieces and shards
    #: the reference systems pressed as often (:mod:`._references`), when asked for
    references: dict[str, Tally] | None = field(default=None, compare=False, repr=False)

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
            "serial_seconds": round(self.serial_seconds, 3),
            "serial_share": round(self.serial_seconds / self.seconds, 4) if self.seconds else 0.0,
            "cpu_seconds": {
                "parent": round(self.cpu_parent, 2),
                "workers": round(self.cpu_workers, 2),
            },
            "replay": self.campaign.replay(),
        }


@dataclass
class _Clock:
    """The campaign's wall and CPU time, and the wall time no worker had work."""

    start: float = field(default_factory=time.perf_counter)
    cpu: float = field(default_factory=time.process_time)
    serial: float = 0.0
    idle_since: float = 0.0
    workers_cpu: float = 0.0

    def __post_init__(self) -> None:
        self.idle_since = self.start

    def busy(self, w: Workers) -> None:
        """Work goes out: the time since the workers were last idle was
        serial, unless they had work left all along."""
        if not w.outstanding:
            self.serial += time.perf_counter() - max(self.idle_since, w.last_done)

    def idle(self, w: Workers) -> None:
        """The workers' last piece finished at ``w.last_done``."""
        self.idle_since = w.last_done


_FAULTS = bytes.maketrans(b"\0", bytes([FAULT]))  # the model's 0: a health failure


#: shards per process: enough that the last ones are short and the processes
#: run out of work together, few enough that a shard's start stays a small part
#: of it (100,000 adversarial presses on 2 jobs: 4 shards a job took 15.6 to
#: 16.0 s wall, 8 took 14.9 to 15.7 s, for the same CPU time)
SHARDS_PER_JOB = 8
#: the processes a campaign on a Dask scheduler is cut for
DASK_WIDTH = 8


def run_campaign(
    c: Campaign,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    workers: Workers | None = None,
    progress: Callable[[int], None] | None = None,
    references: bool = False,
    measure: bool = True,
) -> CampaignResult:
    """Run a campaign; ``progress(n)`` is told of each n presses done.
    It starts ``jobs`` processes (or connects to ``scheduler``) of its own,
    unless given ``workers`` (entered, and left open for more campaigns).
    ``references``: the workers also press the reference systems as often
    (the result's ``references``); not ``measure``: its faces alone (the
    result's tally is of no faces)."""
    clock = _Clock()
    c = c.resolved()  # the board and firmware loaded once, here: the shards carry them
    assert c.setup is not None
    firmware = c.setup.load()
    probe = die_of(c, firmware, ERASED)
    model: DieModel | None = probe.model
    vcc = probe.chip.vcc_mv
    timing = str(probe.timing) if probe.timing is not None else None
    if probe.noise is None and c.noise is not None:
        raise CampaignError(
            f"board {probe.board.name} has no analog input to feed noise {c.noise!r} to"
            " (give no --noise: its chance is in when it is pressed, --timing)"
        )
    noise = None
    if c.noise is not None or probe.noise is not None:
        noise = campaign_noise(c, model, vcc)  # a bad noise spec fails before any work
    inputs = Inputs(None, noise, c.seed)
    own = workers is None
    if workers is None:
        workers = Workers(jobs=jobs, scheduler=scheduler, error=CampaignError)
    width = workers.jobs if not workers.scheduler else DASK_WIDTH
    count = 1 if model is None else min(c.presses, width * SHARDS_PER_JOB)
    cuts = [c.presses * i // count for i in range(count)]
    ranges = [(a, b) for a, b in zip(cuts, [*cuts[1:], c.presses], strict=True) if b > a]
    with workers if own else nullcontext(workers) as w:
        expected = None
        others: Any = ()
        systems = [ReferencePiece(n, c.presses, c.seed) for n in REFERENCES if references]
        if model is None:
            shards = [Shard(c, firmware, inputs, 0, c.presses, ERASED)]
        else:
            inputs = _model_inputs(c, probe, model, noise)
            clock.busy(w)
            reading = w.map(digest_piece, [Piece(inputs, a, b - a) for a, b in ranges])
            if systems:  # behind the noise: the workers press them while this process chains
                others = w.map(reference_piece, systems)
            read = sorted(reading, key=lambda d: d.start)
            clock.idle(w)
            clock.workers_cpu += sum(d.cpu for d in read)
            shards, expected = _chain(c, firmware, inputs, read)
        clock.busy(w)
        parts: Any = ()
        if measure and expected is not None and not w.in_process:  # tallied as they press
            name = model.name if model is not None else None
            tallies = [TallyPiece(p, expected, name) for p in TALLY_PARTS]
            # the longest part first, the others after the shards: short pieces
            # last, so that the workers run out of work at about the same time
            first = w.map(tally_piece, tallies[:1])
            results = w.map(run_shard, shards)
            parts = itertools.chain(first, w.map(tally_piece, tallies[1:]))
        else:
            results = w.map(run_shard, shards)
        if systems and model is None:
            others = w.map(reference_piece, systems)
        done = []
        for r in results:
            done.append(r)
            if progress is not None:
                progress(len(r.faces))
        faces, emulated = bytearray(c.presses), 0.0
        for r in _checked(c, sorted(done, key=lambda r: r.start), shards, expected):
            faces[r.start : r.start + len(r.faces)] = r.faces
            emulated += r.seconds
            clock.workers_cpu += r.cpu
        tallied = {}
        for part, found, cpu in parts:
            tallied[part] = found
            clock.workers_cpu += cpu
        refs = {}
        for name, found, cpu in others:
            refs[name] = found
            clock.workers_cpu += cpu
        clock.idle(w)
    if 0 in faces:
        k = faces.index(0)
        raise CampaignError(f"press {k} showed no face; replay: {c.replay()}")
    t = tally_of(tallied) if tallied else _tally(model, bytes(faces) if measure else b"")
    now = time.perf_counter()
    clock.serial += now - max(clock.idle_since, clock.start)
    cpu = time.process_time() - clock.cpu - (clock.workers_cpu if w.in_process else 0.0)
    name = model.name if model else None
    return CampaignResult(
        c, name, t, len(shards), now - clock.start, emulated, bytes(faces), timing,
        clock.serial, cpu, clock.workers_cpu, refs if references else None,
    )  # fmt: skip


def _model_inputs(c: Campaign, probe: Any, model: DieModel, noise: Any) -> Inputs:
    if host_model(model) is None:
        raise CampaignError(f"die model {model.name!r} has no C port to chain a campaign with")
    channel, instants = conversion_instants(probe)
    if not instants:
        raise CampaignError(
            f"the firmware converted nothing in a press; its model {model.name!r} does"
        )
    if isinstance(noise, Adversary):
        noise = None  # the shards play it, in C
    elif not hasattr(noise, "seek"):
        raise CampaignError(f"noise {c.noise!r} cannot be read press by press (no seek)")
    return Inputs(model.name, noise, c.seed, channel, tuple(instants), int(probe.chip.vcc_mv))


def _chain(
    c: Campaign, firmware: Any, inputs: Inputs, read: list[Digests]
) -> tuple[list[Shard], bytes]:
    """The shards, each from the image the model leaves before it, and the
    model's faces (serial: milliseconds in C)."""
    host = inputs.host()
    image, faces, shards = ERASED, bytearray(), []
    for d in read:
        count = len(d.starts) - 1 if d.starts is not None else len(d.digests) // MENU_ITEMS
        shards.append(Shard(c, firmware, inputs, d.start, count, image, d.codes, d.starts))
        if d.codes is None:
            f, image = host.adversary_chain(image, d.digests, MENU_ITEMS)
        else:
            f, image = host.chain(image, d.digests)
        faces += f
    return shards, bytes(faces).translate(_FAULTS)


def _checked(
    c: Campaign, results: list[ShardResult], shards: list[Shard], expected: bytes | None
) -> Iterator[ShardResult]:
    """The shards' results in order, each held to the model: its presses
    (checked on the worker: the first press that differs) and its end, the
    image the next shard started from."""
    ends = {
        s.start: (shards[n + 1].image if n + 1 < len(shards) else None)
        for n, s in enumerate(shards)
    }
    for r in results:
        if r.mismatch is not None:
            raise CampaignError(f"{r.mismatch}; replay: {c.replay()}")
        end = r.start + len(r.faces)
        if expected is not None and (
            r.faces != expected[r.start : end] or ends[r.start] not in (None, r.image)
        ):
            raise CampaignError(
                f"presses {r.start}..{end - 1}: the shard's model differs from the campaign's;"
                f" replay: {c.replay()}"
            )
        yield r


def _tally(model: DieModel | None, faces: bytes) -> Tally:
    shown, start, _model = tally_inputs(faces, model.name if model is not None else None)
    return tally(shown, start, model=model)


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
        return run_campaign(replace(c, presses=n, seed=seed), measure=False).faces

    return depends_on_seed(faces, (c.seed, c.seed ^ 1))
