"""Which die a campaign cuts, and its errors (no simulator needed to name them)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from fairdie.errors import FairdieError

if TYPE_CHECKING:
    from fairdie.device import Setup
    from fairdie.subjects.die import Die

__all__ = ["BOOT_LIMIT_S", "FaultsError", "Target"]

#: how long after power-on a face must light (I4): the fair die needs ~25 ms
BOOT_LIMIT_S = 0.25


class FaultsError(FairdieError):
    """A campaign cannot run (no model of the firmware's storage, bad arguments)."""


@dataclass(frozen=True)
class Target:
    """Which die: a variant of the board's firmware, or a firmware file.

    The strings are the user's words (replay ids name them); ``setup`` is the
    recipe they resolve to, made once by :meth:`resolved` in the process that
    plans a campaign and carried whole to its workers (it is no part of the
    target's identity).
    """

    board: str = "die-direct"
    variant: str | None = None
    firmware: str | None = None
    setup: Setup | None = field(default=None, compare=False, repr=False)

    def made_setup(self) -> Setup:
        """The setup: the one carried, else made now (the board checked against the build)."""
        if self.setup is not None:
            return self.setup
        from fairdie.subjects.die._cli import die_setup

        return die_setup(self.board, variant=self.variant, firmware=self.firmware)

    def resolved(self) -> Target:
        """This target carrying its setup (made here if it had none)."""
        return self if self.setup is not None else replace(self, setup=self.made_setup())

    def die(self) -> Die:
        from fairdie.subjects.die._cli import die_for

        die: Die = die_for(self.made_setup())
        return die

    @property
    def label(self) -> str:
        """The firmware file, else the build (the board's when none is named)."""
        if self.firmware:
            return self.firmware
        return f"build {self.made_setup().variant or 'default'}"
