"""fairdie.subjects.die: dice as devices; our fair die's rule and faces.

- :class:`Die` rolls any die a board file describes (by its power switch or
  a button) and reads its faces and, if it keeps them, its counters;
- this package also re-exports the reference model of the rule
  (:func:`press`, :func:`choose`, :func:`candidates`, :func:`rebase`), which
  the firmware must match press for press, and the face decoding and drawing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairdie.subjects import Command, Subject
from fairdie.subjects.die._faces import (
    DISPLAYS,
    FACE_POSITIONS,
    GROUPS,
    POSITIONS,
    decode_face,
    render_face,
    render_positions,
    standard_faces,
)
from fairdie.subjects.die._rule import CLEARED, MAX_COUNT, Counts, candidates, choose, press, rebase

if TYPE_CHECKING:
    from fairdie.subjects.die._die import Die, Press

__all__ = [
    "CLEARED",
    "DISPLAYS",
    "FACE_POSITIONS",
    "GROUPS",
    "MAX_COUNT",
    "POSITIONS",
    "SUBJECT",
    "Counts",
    "Die",
    "Press",
    "candidates",
    "choose",
    "decode_face",
    "press",
    "rebase",
    "render_face",
    "render_positions",
    "standard_faces",
]

_DEVICE = {"Die", "Press"}

_CLI = "fairdie.subjects.die._cli"

#: the die as the core's registry sees it
SUBJECT = Subject(
    name="die",
    summary="the fair die on an ATtiny13A: seven LEDs, a floating-ADC seed, counts in EEPROM",
    device=f"{_CLI}:device_for",
    checks="fairdie.subjects.die.checks:CHECKS",
    fixtures="fairdie.subjects.die._fixtures",
    board_sections={"die": "fairdie.subjects.die._board:parse_die_section"},
    commands={
        "press": Command(
            "press the emulated die N times (--vcd: record the last press)", f"{_CLI}:press_main"
        ),
        "roll": Command(
            "press the die from the terminal: a key is a press, a held key a hold",
            f"{_CLI}:roll_main",
        ),
        "demo": Command(
            "build the die, press it a few dozen times, show the table", f"{_CLI}:demo_main"
        ),
        "lab": Command(
            "fairness: search rules, run campaigns under noise models",
            "fairdie.subjects.die.lab._lab_cli:lab_main",
        ),
        "bench": Command(
            "the engine's speed and the die's presses, measured side by side", f"{_CLI}:bench_main"
        ),
        "faults": Command(
            "power-cut campaigns G1-G7 against the die's model",
            "fairdie.subjects.die.faults._cli:faults_main",
        ),
    },
)


def __getattr__(name: str) -> Any:
    # the device needs the compiled simulator; the rule and faces do not
    if name in _DEVICE:
        from fairdie.subjects.die import _die

        return getattr(_die, name)
    raise AttributeError(f"module 'fairdie.subjects.die' has no attribute {name!r}")
