"""What a scenario or ``fairdie run`` drives: the firmware (a file, a target
folder, or a shipped target name), the board (a file or a shipped board),
and the :class:`~fairdie.device.Setup` and device made of them: the same
recipe and clock rule as ``fairdie verify``'s."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fairdie.board import Board, load_board
from fairdie.errors import FairdieError

if TYPE_CHECKING:
    from fairdie.device import Device, Setup

__all__ = ["bare_board", "firmware_path", "make_device", "make_setup", "resolve_board"]

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
    """Where ``spec`` is: a file or target folder relative to ``base`` (a
    scenario file's folder), else a file, else a target folder as the
    toolchain finds one (:func:`fairdie.toolchain.resolve_target`: a shipped
    ``"die_t13a"``, the engine's ``"tests/button_die"``, a folder path)."""
    p = Path(spec).expanduser()
    if base is not None and not p.is_absolute() and (base / p).exists():
        return base / p
    if p.exists() and not p.is_dir():  # a file, or what the loader refuses as none
        return p
    from fairdie.errors import ToolchainError
    from fairdie.toolchain import resolve_target, shipped_targets

    try:
        return resolve_target(spec)
    except ToolchainError:
        names = ", ".join([*sorted(shipped_targets()), "tests/NAME"])
        raise FairdieError(
            f"{spec}: no such firmware file, target folder or shipped target (shipped: {names})"
        ) from None


def make_setup(
    spec: str | Path | None,
    base: Path | None = None,
    *,
    board: Board | None = None,
    mcu: str | None = None,
    f_cpu: int | None = None,
    seed: int = 0,
) -> Setup:
    """The :class:`~fairdie.device.Setup` of firmware ``spec`` on ``board``.

    An ELF or HEX goes to :meth:`Setup.make` as it is; a target folder is
    built first, for the board's MCU and clock (or ``mcu``, ``f_cpu``, else
    its own), and runs at the clock it was built for. No ``spec``: the
    board's firmware target. The clock is
    :func:`~fairdie.device.resolve_clock`'s, as everywhere.
    """
    from fairdie.device import Setup

    firmware = None
    if spec is not None:
        firmware = firmware_path(spec, base)
        if firmware.is_dir():
            from fairdie.toolchain import build

            chip = board.mcu if board is not None else mcu
            b = build(firmware, mcu=chip, f_cpu=f_cpu or (board.f_cpu if board else None))
            firmware, f_cpu = b.elf, b.f_cpu  # an ELF need not name its clock
            mcu = b.mcu if board is None else None
    return Setup.make(firmware, board=board, mcu=mcu, f_cpu=f_cpu, seed=seed)


def bare_board(setup: Setup) -> Board:
    """No board: the chip alone, with no LEDs, buttons or speaker."""
    return Board(
        name=f"bare {setup.mcu}",
        mcu=setup.mcu,
        f_cpu=setup.f_cpu,
        vcc_mv=setup.load().vcc_mv or _BARE_VCC_MV,
        persistence_ms=20.0,
        leds=(),
        source="<no board>",
    )


def make_device(setup: Setup) -> Device:
    """A fresh chip of ``setup`` on its board (none: :func:`bare_board`), unpowered."""
    from fairdie.device import Device

    return Device(setup.chip(), setup.board or bare_board(setup), seed=setup.seed)
