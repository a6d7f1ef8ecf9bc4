"""Exceptions shared by every layer of fairdie.

Every error a user can cause (a missing file, a firmware built for another
MCU, a bad option) is a :class:`FairdieError`; the CLI and the pytest plugin
print its message as one line and exit non-zero.
"""

from __future__ import annotations

__all__ = [
    "BoardError",
    "FairdieError",
    "FirmwareError",
    "SimulationError",
    "ToolchainError",
]


class FairdieError(Exception):
    """Base class: a problem the user can fix, reported as one line."""


class FirmwareError(FairdieError):
    """An ELF/HEX/EEP file is missing, malformed, or does not fit the MCU."""


class ToolchainError(FairdieError):
    """avr-gcc or its binutils are missing or a build failed."""


class BoardError(FairdieError):
    """A board file is missing, malformed or inconsistent."""


class SimulationError(FairdieError):
    """The simulated chip crashed, or a stimulus callback raised."""
