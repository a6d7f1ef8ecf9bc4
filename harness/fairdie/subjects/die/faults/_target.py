"""Which die a campaign cuts, and its errors (no simulator needed to name them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fairdie.errors import FairdieError

if TYPE_CHECKING:
    from fairdie.subjects.die import Die

__all__ = ["BOOT_LIMIT_S", "FaultsError", "Target"]

#: how long after power-on a face must light (I4): the fair die needs ~25 ms
BOOT_LIMIT_S = 0.25


class FaultsError(FairdieError):
    """A campaign cannot run (no model of the firmware's storage, bad arguments)."""


@dataclass(frozen=True)
class Target:
    """Which die: a variant of the board's firmware, or a firmware file."""

    board: str = "die-direct"
    variant: str | None = None
    firmware: str | None = None

    def die(self) -> Die:
        from fairdie.subjects.die import Die

        return Die(board=self.board, variant=self.variant, firmware=self.firmware)

    def check(self) -> None:
        """Refuse a board that does not fit the build (fairdie.board.check_build)."""
        from fairdie.board import check_build, load_board

        if self.firmware is None:
            check_build(load_board(self.board), self.variant)

    @property
    def label(self) -> str:
        """The firmware file, else the build (the board's when none is named)."""
        if self.firmware:
            return self.firmware
        from fairdie.board import load_board

        return f"build {self.variant or load_board(self.board).variant or 'default'}"
