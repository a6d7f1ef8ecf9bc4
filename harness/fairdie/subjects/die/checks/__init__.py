"""The die's verify checks (``fairdie verify`` on a board with a ``[die]`` table).

They run after the core's build-and-board checks, in order: the reference
model the firmware follows (``model``), the behaviour checks against it
(:mod:`._behaviour`), the campaigns (fairness, power cuts) and the energy
per press (:mod:`._campaigns`); its own verify options are :mod:`._options`.
Those that judge a press against the model run only when the firmware
follows one, and say so when they are skipped.
The subject registers :data:`CHECKS` (``Subject.checks``).
"""

from __future__ import annotations

from fairdie.board import Board
from fairdie.subjects.die._board import die_spec
from fairdie.subjects.die.checks._behaviour import (
    clear,
    faces,
    fresh_chip,
    press_counts,
    stored_before_shown,
)
from fairdie.subjects.die.checks._campaigns import (
    FAULT_CAMPAIGNS,
    MAX_ABSENCE,
    MAX_SPREAD,
    STANDARD_NOISES,
    energy,
    fairness,
    power_cuts,
)
from fairdie.subjects.die.checks._model import model_check
from fairdie.subjects.die.checks._options import OPTIONS, DieOptions, die_options
from fairdie.subjects.die.checks._press import record_press
from fairdie.subjects.die.checks._state import DieState
from fairdie.verify import Check, Checks

__all__ = [
    "CHECKS",
    "FAULT_CAMPAIGNS",
    "MAX_ABSENCE",
    "MAX_SPREAD",
    "STANDARD_NOISES",
    "DieOptions",
    "DieState",
    "applies",
    "die_options",
    "record_press",
]


def applies(board: Board) -> str | None:
    """None for a die's board (a ``[die]`` table), else why the die's checks
    are skipped; a die's board without faces or a roll control is bad input."""
    if die_spec(board) is None:
        return f"board {board.name} is no die: no [die] table"
    from fairdie.subjects.die._die import die_parts

    die_parts(board)
    return None


#: the die's checks, in the order they run
CHECKS = Checks(
    subject="die",
    applies=applies,
    checks=(
        Check(
            "model",
            "the reference model (fairdie.subjects.die) the firmware's presses follow",
            model_check,
            always=True,
        ),
        Check("faces", "every face lights as the board's display shows it", faces),
        Check(
            "press-counts",
            "a press counts the face shown: the table after is the model's",
            press_counts,
        ),
        Check(
            "clear-10s", "held 10.05 s: table cleared, all LEDs lit; held 9.9 s: not cleared", clear
        ),
        Check("fresh-chip", "an erased chip rolls a face and stores a valid record", fresh_chip),
        Check(
            "stored-before-shown",
            "each roll is in EEPROM before its face lights",
            stored_before_shown,
        ),
        Check(
            "fairness",
            "worst spread <= 3, no face absent 40 presses, under every standard noise",
            fairness,
            weight=12.0,
        ),
        Check(
            "power-cuts",
            "power-cut campaigns G1-G4 (quick tier): no violation",
            power_cuts,
            weight=8.0,
        ),
        Check("energy", "charge per press and presses from a CR2032 (an estimate)", energy),
    ),
    options=OPTIONS,
)
