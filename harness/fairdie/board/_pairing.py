"""Does a board fit the build it names? Its MCU, the variant and the LED drive.

A board file's ``firmware`` (a build target) and ``variant`` name the
firmware it is meant to run; ``Die`` builds that, or another variant of it
when asked. A build of the wrong wiring runs without complaint and shows
nonsense (a charlieplexed board under a direct-drive build lights no face;
the reverse lights faces by accident), so the pairing is checked before
anything is built: each variant of a target names how it drives its LEDs
(``leds = "direct"`` or ``"charlieplex"`` in its target.toml) and the
board's wiring says how its LEDs must be driven (:attr:`Board.led_drive`).
"""

from __future__ import annotations

from fairdie.board._model import Board
from fairdie.errors import BoardError, ToolchainError

__all__ = ["check_build"]

_WIRED = {
    "direct": "wired for direct drive (each between a pin and GND or VCC)",
    "charlieplex": "charlieplexed (each between two pins)",
    "mixed": "wired both ways (some to a rail, some between two pins)",
}
_DRIVES = {
    "direct": "drives them directly",
    "charlieplex": "charlieplexes them",
    "mixed": "drives some directly and charlieplexes the rest",
}


def check_build(board: Board, variant: str | None = None) -> None:
    """Refuse a board whose firmware target, or build ``variant`` of it, does not fit it.

    ``variant`` (default: the board's own, else the target's default) is the
    build that will run on the board. Checks that the target exists, knows
    the variant, is for the board's MCU, and drives LEDs as the board is
    wired (when the target says how). Nothing to check for a board that
    names no firmware target. Raises a one-line
    :class:`~fairdie.errors.BoardError` naming the board file (or a
    :class:`~fairdie.errors.ToolchainError` for an unknown ``variant``).
    """
    if board.firmware is None:
        return
    from fairdie.sim import mcu_matches
    from fairdie.toolchain import load_target

    where = board.source
    try:
        target = load_target(board.firmware)
    except ToolchainError as e:
        raise BoardError(f"{where}: [board] firmware {board.firmware!r}: {e}") from None
    if variant is None:
        try:
            drive = target.leds_for(board.variant)
        except ToolchainError as e:
            raise BoardError(f"{where}: [board] variant: {e}") from None
        chosen = board.variant or target.default_variant
    else:
        drive = target.leds_for(variant)  # an unknown variant: the caller's mistake
        chosen = variant
    if target.mcu is not None and not mcu_matches(target.mcu, board.mcu):
        raise BoardError(
            f"{where}: the board's MCU is {board.mcu}, but firmware {target.name} is for"
            f" the {target.mcu}"
        )
    wired = board.led_drive
    if drive is not None and wired is not None and drive != wired:
        build = f"{target.name} ({chosen})" if chosen else target.name
        raise BoardError(
            f"{where}: the board's LEDs are {_WIRED[wired]}, but build {build}"
            f" {_DRIVES[drive]} (leds = {drive!r} in its target.toml)"
        )
