"""What is verified: the firmware file, the board it goes on, which build of
the board's firmware target it is, and the reference model it follows.

A board file names the firmware target it is wired for (``firmware =
"die_t13a"``) and a build variant; each variant names how it drives LEDs and
the reference model of its presses (target.toml). A file handed to verify is
compared byte for byte (its flash) with each variant of that target built
at its clock: a match identifies the build, so its LED drive can be checked
against the board's wiring and its model judges it. A file that matches no
build (a modified build, a maker's own) is judged by behaviour: the model is
the one whose presses it reproduces from that model's own images, if any.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fairdie.board import Board, load_board, shipped_boards
from fairdie.errors import FairdieError, FirmwareError, ToolchainError
from fairdie.sim import Firmware, load_firmware
from fairdie.subjects.die._models import DieModel

__all__ = [
    "Subject",
    "board_copy",
    "default_board",
    "identify",
    "load_subject",
    "models_of",
    "temp_folder",
    "variant_for",
]

_DEFAULT_BOARD = "die-direct"
_DEFAULT_TARGET = "die_t13a"


@dataclass
class Subject:
    """The firmware, its board, and what verify learnt of them."""

    path: Path
    firmware: Firmware
    board: Board
    board_arg: str  #: the board as given (a shipped name or a path)
    built: bool = False  #: verify built the firmware itself (no FIRMWARE given)
    file_f_cpu: int | None = None  #: the clock the file names (an ELF's avr_mcu section)
    board_chosen: str = ""  #: why this board, when none was given
    identified: str | None = None  #: the variant of the board's target it is, byte for byte
    identify_note: str = ""
    model: DieModel | None = None
    model_note: str = ""
    #: what the campaigns press (board, variant, firmware): an identified build
    #: by its variant (replay ids then name the build), else the file on the
    #: board, or on a copy of it naming a build of the model found
    campaign: tuple[str, str | None, str | None] = ("", None, None)

    @property
    def label(self) -> str:
        return self.path.name

    @property
    def f_cpu(self) -> int:
        """The clock the chip runs at: the board's (its fuses and crystal)."""
        return self.board.f_cpu


def load_subject(firmware: Path | None, *, board: str | None, eep: Path | None) -> Subject:
    """The subject; raises FairdieError for bad input (exit 2).

    With no ``firmware``, the board's target is built (its default variant);
    with no ``board``, the shipped board of the file's build, else die-direct.
    """
    built = firmware is None
    chosen = ""
    if firmware is None:
        if eep is not None:
            raise FairdieError("--eep goes with a HEX FIRMWARE")
        board = board or _DEFAULT_BOARD
        bd = load_board(board)
        if bd.firmware is None:
            raise FairdieError(f"board {bd.name} names no firmware target: give FIRMWARE")
        from fairdie.toolchain import build

        firmware = build(bd.firmware, variant=bd.variant, mcu=bd.mcu, f_cpu=bd.f_cpu).elf
    fw = load_firmware(firmware, eep=eep)
    if board is None:
        board, chosen = default_board(fw)
    bd = load_board(board)
    file_f_cpu = fw.f_cpu
    if fw.f_cpu is None:  # a HEX runs at the board's clock
        fw = load_firmware(firmware, eep=eep, default_f_cpu=bd.f_cpu)
    return Subject(
        Path(firmware),
        fw,
        bd,
        board,
        built=built,
        board_chosen=chosen,
        file_f_cpu=file_f_cpu,
        campaign=(board, None, str(firmware)),
    )


def default_board(fw: Firmware) -> tuple[str, str]:
    """The shipped board of the file's build of our die, else die-direct."""
    variant, _ = identify(fw, _DEFAULT_TARGET, mcu=fw.mcu or "attiny13a", f_cpu=fw.f_cpu)
    if variant is not None:
        for name in shipped_boards():
            b = load_board(name)
            if b.firmware == _DEFAULT_TARGET and b.variant == variant:
                return name, f"the shipped board of build {variant}"
    return _DEFAULT_BOARD, "the default board (no --board)"


def identify(fw: Firmware, target: str, *, mcu: str, f_cpu: int | None) -> tuple[str | None, str]:
    """``(variant, note)``: the variant of ``target`` whose build has the same
    flash as ``fw``, or None and why."""
    from fairdie.toolchain import build, load_target

    try:
        tgt = load_target(target)
    except ToolchainError as e:
        return None, f"cannot read target {target}: {e}"
    tried: list[str] = []
    for v in tgt.variants:
        try:
            b = build(target, variant=v, mcu=mcu, f_cpu=f_cpu)
            same = load_firmware(b.elf).flash == fw.flash
        except (ToolchainError, FirmwareError) as e:
            return None, f"cannot build {target} to compare: {e}"
        if same:
            return v, f"byte for byte build {v} of {target}"
        tried.append(v)
    clock = f" at {f_cpu} Hz" if f_cpu else ""
    return None, f"not one of {target}'s builds ({', '.join(tried)}){clock}"


def board_copy(board: Board, variant: str, folder: Path) -> str:
    """A copy of ``board``'s file naming build ``variant``: what campaigns load
    to judge the file by that build's model."""
    from fairdie.board import shipped_board_file

    if board.source.endswith(" (shipped)"):
        name = board.source.removesuffix(" (shipped)")
        text = shipped_board_file(name).read_text(encoding="utf-8")
    else:
        text = Path(board.source).read_text(encoding="utf-8")
    head = re.search(r"(?ms)^\[board\][^\[]*", text)
    if head is None:
        raise FairdieError(f"{board.source}: no [board] table to copy")
    body = head.group(0)
    line = f'variant = "{variant}"\n'
    if re.search(r"(?m)^variant\s*=.*$", body):
        body = re.sub(r"(?m)^variant\s*=.*\n?", line, body, count=1)
    else:
        body = body.replace("[board]\n", "[board]\n" + line, 1)
    out = folder / f"{board.name}-{variant}.toml"
    out.write_text(text[: head.start()] + body + text[head.end() :], encoding="utf-8")
    load_board(out)  # the copy must load as the original does
    return str(out)


def models_of(board: Board) -> list[str]:
    """The models the board's target names, the board's own variant's first."""
    if board.firmware is None:
        return []
    from fairdie.toolchain import load_target

    tgt = load_target(board.firmware)
    names = [tgt.model_for(board.variant)] + [tgt.model_for(v) for v in tgt.variants]
    return list(dict.fromkeys(n for n in names if n))


def variant_for(board: Board, model: str) -> str | None:
    """A variant of the board's target with ``model`` that drives LEDs as the
    board is wired (the board's own first)."""
    if board.firmware is None:
        return None
    from fairdie.toolchain import load_target

    tgt = load_target(board.firmware)
    for v in dict.fromkeys([board.variant or tgt.default_variant, *tgt.variants]):
        if v is None:
            continue
        drive = tgt.leds_for(v)
        if tgt.model_for(v) == model and (drive is None or drive == board.led_drive):
            return v
    return None


def temp_folder() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="fairdie-verify-")
