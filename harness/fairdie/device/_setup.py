"""One recipe for "this firmware on this board": :class:`Setup`.

Front ends (the CLI, the plugin, verify) make a setup once from what the user
gave; everything downstream (chips, devices, campaign workers) receives it as
it is, never strings to parse again. It is frozen and picklable, so a worker
process or a Dask worker gets the same recipe.

The clock is resolved here, once, by one rule (:func:`resolve_clock`).
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Hashable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie._recent import Recent
from fairdie.board import Board, load_board
from fairdie.errors import FairdieError
from fairdie.sim import Firmware, load_firmware

if TYPE_CHECKING:
    from fairdie.device._device import Device
    from fairdie.sim import Chip, Fuses

__all__ = ["Setup", "resolve_clock"]


def resolve_clock(given: int | None, board: Board | None, firmware: Firmware | None) -> int:
    """The clock a chip runs at: ``given`` (``--f-cpu``), else the board's (its
    fuses and crystal), else the one the ELF names; one line when none does."""
    clock = given or (board.f_cpu if board is not None else None)
    clock = clock or (firmware.f_cpu if firmware is not None else None)
    if clock is None:
        raise FairdieError("no clock: give --f-cpu HZ or a --board (the file names none)")
    return clock


#: a file as last written: its modification and change times, size and inode
_Stamp = tuple[int, int, int, int]
#: per process, the firmware of each setup: (file, its stamp, eep and its stamp, mcu, clock)
_Key = tuple[Path, _Stamp | None, Path | None, _Stamp | None, str, int]
_LOADED: Recent[_Key, Firmware] = Recent(32)


def _stamp(path: Path) -> _Stamp | None:
    """The file as last written: a rewrite changes its change time even where
    its modification time is put back (``touch -r``, ``cp -p``, ``rsync -t``)."""
    try:
        st = path.stat()
    except OSError:
        return None  # gone: loading it says so
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


@dataclass(frozen=True)
class Setup:
    """A firmware on a board (or a bare MCU), at one clock, from one seed.

    Make one with :meth:`make`; ``chip()`` and ``device()`` make fresh parts
    from it, as often as a check or a campaign needs a fresh chip.
    """

    firmware: Path  #: the ELF or HEX (a build's ELF when none was given)
    board: Board | None
    mcu: str
    f_cpu: int
    eep: Path | None = None
    variant: str | None = None  #: the build of the board's firmware target, if built
    seed: int = 0
    stimulus: str | None = None  #: what the analog input reads (a noise spec), if set

    @classmethod
    def make(
        cls,
        firmware: str | Path | None = None,
        *,
        board: Board | str | Path | None = None,
        mcu: str | None = None,
        f_cpu: int | None = None,
        eep: str | Path | None = None,
        variant: str | None = None,
        seed: int = 0,
        stimulus: str | None = None,
    ) -> Setup:
        """Resolve what a user gave; raises :class:`FairdieError` (one line).

        Without ``firmware`` the board's target is built (``variant``, else the
        board's own). Without a board, the MCU comes from ``mcu`` or the ELF.
        """
        bd = board if isinstance(board, Board) or board is None else load_board(board)
        if bd is not None and mcu is not None:
            raise FairdieError("--mcu goes without --board (a board names its MCU)")
        if firmware is None:
            if eep is not None:
                raise FairdieError("--eep goes with a HEX firmware")
            if bd is None or bd.firmware is None:
                what = f"board {bd.name} names no firmware target" if bd else "no firmware"
                raise FairdieError(f"{what}: give a FIRMWARE (an ELF or HEX)")
            from fairdie.toolchain import build

            v = variant or bd.variant
            firmware = build(bd.firmware, variant=v, mcu=bd.mcu, f_cpu=f_cpu or bd.f_cpu).elf
            variant = v
        elif variant is not None:
            raise FairdieError("--variant names a build of the board's firmware: not with a file")
        path = Path(firmware)
        ep = Path(eep) if eep is not None else None
        probe = load_firmware(path, eep=ep, mcu=bd.mcu if bd else mcu, f_cpu=f_cpu)
        chip_mcu = bd.mcu if bd else (mcu or probe.mcu)
        if chip_mcu is None:
            raise FairdieError(
                f"{path}: the file names no MCU: give --board BOARD (or --mcu MCU --f-cpu HZ)"
            )
        clock = resolve_clock(f_cpu, bd, probe)
        setup = cls(path, bd, chip_mcu, clock, ep, variant, seed, stimulus)
        # the probe is the firmware :meth:`load` would load, once given the clock
        # resolved here (load_firmware's default_f_cpu): loaded once, not twice
        key = setup._key()
        _LOADED.put(key, replace(probe, path=key[0], f_cpu=probe.f_cpu or clock))
        return setup

    def clock_note(self) -> str | None:
        """A line for the user when the file names another clock than the one it
        runs at (the board's fuses win over the ELF's avr_mcu section), else None."""
        own = self.load().f_cpu
        if own is None or own == self.f_cpu:
            return None
        return (
            f"{self.firmware.name} names {own} Hz but runs at {self.f_cpu} Hz"
            f" (the board's clock; --f-cpu {own} runs it at its own)"
        )

    def fuses(self) -> tuple[Fuses | None, str]:
        """The fuses the chip is burnt with, and where they come from (one phrase).

        An ELF's ``.fuse`` section; a HEX carries none, so a setup that names a
        build of the board's target (its ``variant``) takes that build's; else
        the MCU's factory values. None: an MCU the fuse tables do not know."""
        fw = self.load()
        f = fw.fuses(self.mcu)
        if f is None or f.declared:
            return f, f.source if f is not None else ""
        bd = self.board
        if not fw.sections and self.variant is not None and bd is not None and bd.firmware:
            from fairdie.toolchain import build

            b = build(bd.firmware, variant=self.variant, mcu=self.mcu, f_cpu=self.f_cpu)
            if b.fuses is not None:
                return b.fuses, f"as build {self.variant}'s ELF declares them (a HEX carries none)"
        if not fw.sections:
            return f, f"the {self.mcu} factory defaults (a HEX carries no fuses)"
        return f, f.source

    def with_seed(self, seed: int) -> Setup:
        return replace(self, seed=seed)

    def load(self) -> Firmware:
        """The firmware, loaded once per process."""
        key = self._key()
        return _LOADED.get(
            key, lambda: load_firmware(key[0], eep=self.eep, mcu=self.mcu, default_f_cpu=self.f_cpu)
        )

    def _key(self) -> _Key:
        path = self.firmware.resolve()
        eep = self.eep.resolve() if self.eep is not None else None
        return (path, _stamp(path), eep, None if eep is None else _stamp(eep), self.mcu, self.f_cpu)

    def recipe(self) -> Hashable:
        """This setup as a key for what is made of it: the board by its pickle
        (a board need not hash: its tables), the firmware's files as last
        written (a process kept for the next campaign must not reuse parts
        made of a file rewritten since)."""
        board = hashlib.sha256(pickle.dumps(self.board)).hexdigest()
        return (replace(self, board=None), board, self._key())

    def chip(self, **options: object) -> Chip:
        """A fresh chip of this setup (``options``: :class:`~fairdie.sim.Chip`'s)."""
        from fairdie.sim import Chip

        vcc = self.board.vcc_mv if self.board is not None else None
        return Chip(
            self.load(),
            mcu=self.mcu,
            f_cpu=self.f_cpu,
            vcc_mv=vcc,
            seed=self.seed,
            **options,  # type: ignore[arg-type]
        )

    def device(self) -> Device:
        """A fresh device: the subject's device class when a registered subject
        claims the board (:func:`fairdie.subjects.device_for`), else a
        :class:`~fairdie.device.Device` on a fresh chip."""
        from fairdie.device._device import Device
        from fairdie.subjects import device_for

        if self.board is None:
            raise FairdieError("no board: give --board BOARD to press buttons and read LEDs")
        found = device_for(self)
        return found if found is not None else Device(self.chip(), self.board, seed=self.seed)
