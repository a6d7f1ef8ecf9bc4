"""What a scenario or ``fairdie run`` drives: the firmware (a file, a target
folder, or a shipped target name), the board (a file or a shipped board),
and the device made of them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fairdie.board import Board, load_board
from fairdie.errors import FairdieError
from fairdie.sim import Firmware, load_firmware

if TYPE_CHECKING:
    from fairdie.device import Device

__all__ = ["bare_board", "firmware_path", "make_device", "resolve_board", "resolve_firmware"]

#: the supply of a chip on no board, as the engine's default
_BARE_VCC_MV = 3000


def _near(spec: str | Path, base: Path | None) -> Path:
    """``spec`` relative to ``base`` when that names something, else as given."""
    p = Path(spec).expanduser()
    if base is not None and not p.is_absolute() and (base / p).exists():
        return base / p
    return p


def resolve_board(spec: str | Path | None, base: Path | None = None) -> Board | None:
    """A board file (relative to ``base`` first), a shipped board by name, or a
    board file of a shipped target (``"tests/button_die/board.toml"``)."""
    if spec is None:
        return None
    p = _near(spec, base)
    if not p.exists() and not p.is_absolute():
        from fairdie.toolchain import firmware_dir

        if (firmware_dir() / p).is_file():
            p = firmware_dir() / p
    return load_board(p if p.exists() else str(spec))


def firmware_path(spec: str | Path, base: Path | None = None) -> Path:
    """Where ``spec`` is: a file or target folder (relative to ``base`` first),
    else a target shipped with fairdie (``"die_t13a"``, ``"tests/button_die"``)."""
    p = _near(spec, base)
    if p.exists():
        return p
    from fairdie.toolchain import firmware_dir

    shipped = firmware_dir() / str(spec)
    if not Path(spec).is_absolute() and (shipped / "target.toml").is_file():
        return shipped
    raise FairdieError(f"{spec}: no such firmware file, target folder or shipped target")


def resolve_firmware(
    spec: str | Path,
    base: Path | None = None,
    *,
    board: Board | None = None,
    mcu: str | None = None,
    f_cpu: int | None = None,
) -> Firmware:
    """The firmware ``spec`` names: an ELF or HEX is loaded (a HEX runs at the
    board's clock unless ``f_cpu`` says), a target folder is built for the
    board's MCU and clock."""
    p = firmware_path(spec, base)
    mcu = mcu or (board.mcu if board else None)
    if p.is_dir():
        from fairdie.toolchain import build

        b = build(p, mcu=mcu, f_cpu=f_cpu or (board.f_cpu if board else None))
        p, mcu, f_cpu = b.elf, b.mcu, b.f_cpu  # an ELF need not name them
    return load_firmware(p, mcu=mcu, f_cpu=f_cpu, default_f_cpu=board.f_cpu if board else None)


def bare_board(fw: Firmware) -> Board:
    """No board: the chip alone, with no LEDs, buttons or speaker."""
    if fw.mcu is None or fw.f_cpu is None:
        missing = "MCU" if fw.mcu is None else "clock"
        raise FairdieError(
            f"{fw.path.name if fw.path else 'the firmware'} does not name its {missing}:"
            " give a board (--board) or the MCU and clock (--mcu, --f-cpu)"
        )
    return Board(
        name=f"bare {fw.mcu}",
        mcu=fw.mcu,
        f_cpu=fw.f_cpu,
        vcc_mv=fw.vcc_mv or _BARE_VCC_MV,
        persistence_ms=20.0,
        leds=(),
        source="<no board>",
    )


def make_device(fw: Firmware, board: Board | None, *, seed: int = 0) -> Device:
    """A chip running ``fw`` on ``board`` (none: :func:`bare_board`), unpowered."""
    from fairdie.device import Device
    from fairdie.sim import Chip

    bd = board or bare_board(fw)
    chip = Chip(fw, mcu=bd.mcu, f_cpu=fw.f_cpu or bd.f_cpu, vcc_mv=bd.vcc_mv, seed=seed)
    return Device(chip, bd, seed=seed)
