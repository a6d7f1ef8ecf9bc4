"""An emulated die whose power can be cut anywhere: the campaigns' bench.

A :class:`Rig` presses from a given EEPROM image with given ADC codes on
the core's power-cut engine (fairdie.campaigns): the press stops at every
EEPROM write the firmware starts and keeps a snapshot there, so a cut in any
write, with any torn value, costs a restore and a power-off rather than a
press. What is the die's: a press is a power-on from an image reading given
noise, and a cut is judged by whether a face had lit. It also boots images
(a press with fixed noise) to check that the firmware reads them and lights
a face in time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from fairdie import campaigns
from fairdie._recent import Recent
from fairdie.campaigns import Write
from fairdie.device import steady_symbol
from fairdie.noise import Codes
from fairdie.sim import Snapshot, StopReason, Until
from fairdie.subjects.die._model_host import host_model
from fairdie.subjects.die._models import HEALTHY_CODES, DieModel
from fairdie.subjects.die.faults._target import BOOT_LIMIT_S, FaultsError, Target

__all__ = [
    "BOOT_CODES",
    "BOOT_LIMIT_S",
    "Boot",
    "Cut",
    "FaultsError",
    "Rig",
    "Target",
    "Timeline",
    "Write",
    "Written",
]

#: the noise a boot reads: codes that pass any build's health tests at once
BOOT_CODES = HEALTHY_CODES
_NOISES_KEPT = 256
#: where the fair builds' boots first read the EEPROM (main.c: the noise sampled first)
_PREFIX_END = "store_load"
_AT_PREFIX_END = Until.pc_at(_PREFIX_END)


@dataclass(frozen=True)
class Written:
    """A whole press: the writes it made and what it left."""

    before: bytes
    codes: tuple[int, ...]  #: the codes the firmware converted
    face: int | None  #: the face shown when the press ended (None: none)
    shown: str  #: what the display showed then: a face, "fault", "off", ...
    lit: int | None  #: the cycle the first LED lit (None: none)
    start: int  #: the cycle of power-on
    writes: tuple[Write, ...]
    after: bytes  #: the EEPROM when the press ended
    end: int  #: the cycle the press ended


@dataclass(frozen=True)
class Boot:
    """An image booted: the face it lit, when, and the image the press left."""

    face: int | None
    cycles: int | None  #: power-on to the face lit
    after: bytes
    codes: tuple[int, ...]


class Rig:
    def __init__(self, target: Target) -> None:
        self.target = target
        self.die = target.die()
        if self.die.model is None:
            raise FaultsError(
                f"{target.label}: power-cut campaigns need a model of the firmware's storage"
                " (a board whose firmware target names one)"
            )
        self.model: DieModel = self.die.model
        #: the model in C where it has a port: the same presses, faster (None: none)
        self.host = host_model(self.model)
        self.chip = self.die.chip
        self.size = self.chip.eeprom_size
        self._vcc = self.chip.vcc_mv
        # the fuses decide whether a cut may misexecute (the brown-out detector off)
        self.fuses, self.fuse_source = target.made_setup().fuses()
        self.misexecutes = campaigns.misexecutes(self.fuses)
        self.footprint = tuple(self.model.footprint)
        #: codes -> the noise that reads them (a press's codes are pressed again and again)
        self._noises: Recent[tuple[int, ...], Codes] = Recent(_NOISES_KEPT)
        self._prefix: tuple[Snapshot, tuple[int, ...]] | Literal[False] | None = False

    # ---- pressing ------------------------------------------------------------

    def _start(self, image: bytes, codes: Sequence[int]) -> None:
        chip = self.chip
        if chip.powered:
            chip.power_off()
        chip.write_eeprom(0, image)
        self.die.set_noise(self._noise(tuple(codes)))
        self.die.power_on()

    def _noise(self, codes: tuple[int, ...]) -> Codes:
        """The noise that reads ``codes`` from the first, kept for the last few
        hundred codes tuples."""
        noise = self._noises.get(codes, lambda: Codes(codes, vcc_mv=self._vcc))
        noise.restore(0)
        return noise

    def _shown(self) -> tuple[int | None, int | None]:
        """The face shown (None: none steady) and the cycle the first LED lit."""
        shown = steady_symbol(self.die, self.die.faces, from_power_on=True)
        face = int(shown) if shown.isdigit() else None
        return face, self.die.first_lit() if face is not None else None

    def cut_at(
        self,
        image: bytes,
        codes: Sequence[int],
        cycles: int,
        torn: int | None,
        land: int | None = None,
    ) -> Cut:
        """Press from ``image`` and cut ``cycles`` after power-on, the byte in
        flight (if any) left at ``torn``, or landed at ``land`` (a cut that
        misexecutes): the replay of any cut."""
        chip = self.chip
        self._start(image, codes)
        start = chip.cycle
        left = campaigns.cut(chip, torn=torn, at=start + cycles, land=land)
        lit = self.die.first_lit()  # a power-off keeps the cycle the first LED lit
        return Cut(chip.cycle - start, 1, left, lit is not None, torn)

    def press(
        self, image: bytes, codes: Sequence[int], hold_s: float, *, stop: bool = True
    ) -> Written:
        """Press from ``image`` for ``hold_s``, stopping at each write (with
        ``stop`` False, straight through: no writes to cut in)."""
        chip = self.chip
        self._start(image, codes)
        end = chip.cycle + chip.cycles_for(hold_s)
        writes: tuple[Write, ...] = ()
        if stop:
            writes = campaigns.stop_at_writes(chip, to_cycle=end)
        else:
            chip.run(to_cycle=end)
        shown = steady_symbol(self.die, self.die.faces, from_power_on=True)
        written = Written(
            before=image,
            codes=tuple(chip.adc_codes()),
            face=int(shown) if shown.isdigit() else None,
            shown=shown,
            lit=self.die.first_lit(),
            start=chip.power_on_cycle,
            writes=writes,
            after=chip.eeprom,
            end=chip.cycle,
        )
        chip.power_off()
        return written

    def cut(self, write: Write, torn: int | None, land: int | None = None) -> bytes:
        """The image a cut leaves as ``write`` has just started, with the
        byte at ``torn`` (None: the write is lost, the byte keeps its value),
        or landed at ``land`` (a cut that misexecutes: ``torn`` None there is
        the write's new value)."""
        return campaigns.cut(self.chip, write, torn, land=land)

    def every_cycle(self, image: bytes, codes: Sequence[int], hold_s: float) -> Timeline:
        """A cut at every cycle of a press (fairdie.campaigns.every_cycle), the
        write in flight torn as the physical model says at that cycle's
        progress; each cut knows whether a LED had lit before it."""
        chip = self.chip
        self._start(image, codes)
        start = chip.cycle
        cuts: list[Cut] = []
        lit: int | None = None  # once a LED has lit, it stays the first lit
        for c in campaigns.every_cycle(chip, to_cycle=start + chip.cycles_for(hold_s)):
            if lit is None:
                lit = self.die.first_lit()  # once the chip has run past the cut
            cuts.append(
                Cut(c.cycle - start, c.span, c.image, lit is not None and lit <= c.cycle, c.torn)
            )
        face, _ = self._shown()
        timeline = Timeline(
            tuple(chip.adc_codes()), face, self.die.first_lit(), start, tuple(cuts), chip.eeprom
        )
        chip.power_off()
        return timeline

    # ---- booting ---------------------------------------------------------------

    def boot(self, image: bytes) -> Boot:
        """Power on with ``image``: the face and when it lit, and the image
        the press stored (I4: a face within BOOT_LIMIT_S). Where the firmware
        reads its EEPROM only after a prefix that is the same for every image
        (:meth:`_boot_prefix`), the boot starts from the chip at the prefix's
        end with ``image`` stored: the same run, cycle for cycle (but for what
        the power-on left in SRAM and the registers, which is the prefix's:
        it matters only to a firmware that reads memory it never wrote)."""
        chip = self.chip
        prefix = self._boot_prefix()
        if prefix is None:
            self._start(image, BOOT_CODES)
            codes: tuple[int, ...] = ()
        else:
            if chip.powered:
                chip.power_off()
            chip.clear_trace()
            self.die.chip.restore(prefix[0])
            chip.write_eeprom(0, image)
            codes = prefix[1]  # the prefix's conversions: the trace holds the rest
        start = chip.power_on_cycle
        chip.run(to_cycle=start + chip.cycles_for(BOOT_LIMIT_S))
        face, lit = self._shown()
        after = chip.eeprom
        codes += tuple(chip.adc_codes())
        chip.power_off()
        return Boot(face, None if lit is None else lit - start, after, codes)

    def _boot_prefix(self) -> tuple[Snapshot, tuple[int, ...]] | None:
        """The chip where a boot's firmware first reads its EEPROM, and the
        codes converted before: a build of the board's firmware that samples
        its noise first (fair.S) and then loads its store (``store_load``).
        Made once, from an erased chip and from one of all zeros, from the same
        chip state: the CPU's registers, I/O and SRAM must be the same byte for
        byte, and the codes read, and each EEPROM must still hold its image with
        no write in flight (else the prefix read or wrote the EEPROM, and boots
        run whole: None). The two images differ in every bit, so a read in the
        prefix would leave at least EEDR (in I/O) different, unless the
        firmware wrote EEDR again before ``store_load``; a write would change
        at least one of the two images."""
        if self._prefix is not False:
            return self._prefix
        self._prefix = None
        chip = self.chip
        if self.target.firmware is not None or _PREFIX_END not in chip.firmware.symbols:
            return None
        if chip.powered:
            chip.power_off()
        before = chip.snapshot()
        made = []
        for image in (b"\xff" * self.size, bytes(self.size)):
            chip.restore(before)
            self._start(image, BOOT_CODES)
            start = chip.cycle
            stop = chip.run(to_cycle=start + chip.cycles_for(BOOT_LIMIT_S), until=_AT_PREFIX_END)
            if not stop & StopReason.PC:
                chip.power_off()
                return None
            if chip.eeprom != image or chip.eeprom_flight() is not None:  # it wrote
                chip.power_off()
                return None
            # what the CPU holds (registers, I/O, SRAM), when it got here (both
            # stopped at the prefix's end), what it read
            seen = (chip.read_data(0, chip.ramend + 1), chip.cycle, chip.adc_codes())
            made.append((chip.snapshot(), seen))
            chip.power_off()
        if made[0][1] == made[1][1]:
            self._prefix = made[0][0], made[0][1][2]
        return self._prefix


@dataclass(frozen=True)
class Cut:
    """A cut at ``cycle``, standing for ``span`` cycles: the image it left."""

    cycle: int
    span: int
    image: bytes
    lit: bool = False  #: a LED had lit before the cut
    torn: int | None = None  #: the value left in the byte in flight (None: none, or lost)


@dataclass(frozen=True)
class Timeline:
    """A press cut at every cycle."""

    codes: tuple[int, ...]
    face: int | None
    lit: int | None
    start: int
    cuts: tuple[Cut, ...]
    after: bytes
