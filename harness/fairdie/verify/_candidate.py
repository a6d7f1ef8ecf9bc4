"""What is verified: the firmware file, the board it goes on, and which build
of the board's firmware target it is.

A board file may name the firmware target it is wired for (``firmware =
"die_t13a"``) and a build variant. A file handed to verify is compared byte
for byte (its flash) with each variant of that target built at its clock: a
match identifies the build, so its LED drive can be checked against the
board's wiring. Each variant is built once per process.

The recipe of every chip verify makes is one :class:`~fairdie.device.Setup`:
the firmware and board are loaded once per process.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from fairdie.board import Board, load_board, shipped_boards
from fairdie.device import Setup
from fairdie.errors import FairdieError, FirmwareError, ToolchainError
from fairdie.sim import Firmware, load_firmware

__all__ = ["Candidate", "default_board", "identify", "load_candidate", "temp_folder"]


@dataclass
class Candidate:
    """The firmware, its board, and what verify learnt of them."""

    setup: Setup  #: the recipe of every chip: this file on this board, at the board's clock
    file: Firmware  #: the file as it is (its own MCU and clock, if it names them)
    board_arg: str  #: the board as given (a shipped name or a path)
    built: bool = False  #: verify built the firmware itself (no FIRMWARE given)
    board_chosen: str = ""  #: why this board, when none was given
    identified: str | None = None  #: the variant of the board's target it is, byte for byte
    identify_note: str = ""
    _identified: bool = False

    @property
    def path(self) -> Path:
        return self.setup.firmware

    @property
    def board(self) -> Board:
        assert self.setup.board is not None
        return self.setup.board

    @property
    def label(self) -> str:
        return self.path.name

    @property
    def f_cpu(self) -> int:
        """The clock the chip runs at: the board's (its fuses and crystal)."""
        return self.setup.f_cpu

    @property
    def file_f_cpu(self) -> int | None:
        """The clock the file names (an ELF's avr_mcu section), if any."""
        return self.file.f_cpu

    def identify(self) -> None:
        """Which build of the board's target the file is, byte for byte (once)."""
        bd = self.board
        if self._identified or bd.firmware is None:
            return
        self._identified = True
        self.identified, self.identify_note = identify(
            self.file, bd.firmware, mcu=bd.mcu, f_cpu=self.file_f_cpu or self.f_cpu
        )
        if self.identified is not None:
            self.setup = replace(self.setup, variant=self.identified)


def load_candidate(
    firmware: Path | None, *, board: str | None, eep: Path | None, seed: int = 0
) -> Candidate:
    """The candidate; raises FairdieError for bad input (exit 2).

    With no ``firmware``, the board's target is built (the board's variant);
    with no ``board``, the shipped board of the file's build. Neither: one
    line saying what to give.
    """
    _build.cache_clear()  # once per verify: a target's sources may have changed since the last
    built = firmware is None
    chosen = ""
    bd: Board | None = None
    if firmware is None:
        if eep is not None:
            raise FairdieError("--eep goes with a HEX FIRMWARE")
        if board is None:
            raise FairdieError(
                "nothing to verify: give FIRMWARE (an ELF or HEX) and --board BOARD, or --board"
                f" BOARD to build its firmware target (shipped: {', '.join(shipped_boards())})"
            )
        bd = load_board(board)
        if bd.firmware is None:
            raise FairdieError(f"board {bd.name} names no firmware target: give FIRMWARE")
        from fairdie.toolchain import load_target

        variant = bd.variant or load_target(bd.firmware).default_variant
        elf = _build(bd.firmware, variant, bd.mcu, bd.f_cpu)
        if isinstance(elf, str):
            raise FairdieError(elf)
        firmware = elf
    file = load_firmware(firmware, eep=eep)
    if board is None:
        board, chosen = default_board(file)
    if bd is None:  # a board loaded to build its target serves as it is
        bd = load_board(board)
    setup = Setup(Path(firmware), bd, bd.mcu, bd.f_cpu, eep, None, seed)
    return Candidate(setup, file, board, built=built, board_chosen=chosen)


def default_board(fw: Firmware) -> tuple[str, str]:
    """The shipped board whose firmware target has the file as a build, byte
    for byte; raises FairdieError (one line) when none has."""
    targets: dict[str, list[Board]] = {}
    for name in shipped_boards():
        b = load_board(name)
        if b.firmware is not None:
            targets.setdefault(b.firmware, []).append(b)
    for target, boards in targets.items():
        mcu = fw.mcu or boards[0].mcu
        variant, _ = identify(fw, target, mcu=mcu, f_cpu=fw.f_cpu or boards[0].f_cpu)
        for b in boards if variant is not None else ():
            if b.variant == variant:
                return b.name, f"the shipped board of build {variant} of {target}"
    raise FairdieError(
        f"{fw.path}: no shipped board's firmware target builds this file: give --board BOARD"
    )


@cache
def _build(target: str, variant: str | None, mcu: str, f_cpu: int | None) -> Path | str:
    """The ELF of one build (built once per verify), or why it cannot be built."""
    from fairdie.toolchain import build

    try:
        return build(target, variant=variant, mcu=mcu, f_cpu=f_cpu).elf
    except ToolchainError as e:
        return f"cannot build {target}: {e}"


def _flash(target: str, variant: str, mcu: str, f_cpu: int | None) -> bytes | str:
    """The flash of one build, or why it cannot be built."""
    elf = _build(target, variant, mcu, f_cpu)
    if isinstance(elf, str):
        return elf
    try:
        return load_firmware(elf).flash
    except FirmwareError as e:
        return f"cannot load the build of {target} to compare: {e}"


def identify(fw: Firmware, target: str, *, mcu: str, f_cpu: int | None) -> tuple[str | None, str]:
    """``(variant, note)``: the variant of ``target`` whose build has the same
    flash as ``fw``, or None and why."""
    from fairdie.toolchain import load_target

    try:
        tgt = load_target(target)
    except ToolchainError as e:
        return None, f"cannot read target {target}: {e}"
    tried: list[str] = []
    for v in tgt.variants:
        flash = _flash(target, v, mcu, f_cpu)
        if isinstance(flash, str):
            return None, flash
        if flash == fw.flash:
            return v, f"byte for byte build {v} of {target}"
        tried.append(v)
    clock = f" at {f_cpu} Hz" if f_cpu else ""
    return None, f"not one of {target}'s builds ({', '.join(tried)}){clock}"


def temp_folder() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="fairdie-verify-")
