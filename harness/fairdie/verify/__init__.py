"""fairdie.verify: check a die's firmware in emulation before it is burnt.

:func:`verify` takes the ELF or HEX a hardware maker is about to burn and the
board it goes on, and runs, in order (:data:`CHECKS`):

- build and board: built for the board's MCU and fits its memories, expects
  the board's clock (the ELF's avr_mcu section), is a build made for the
  board's LED wiring (boards name their firmware target; each variant of a
  target says how it drives LEDs and which reference model it follows);
- behaviour against the reference model (fairdie.subjects.die): each face forced and
  read off the LEDs, tables counted press by press (edge tables included),
  the 10 s clear (held 10.05 s: cleared, every LED lit; 9.9 s: not), a fresh
  chip's first press, each roll stored before its face lights;
- campaigns: fairness under the standard noise models, adversarial included
  (fairdie.subjects.die.lab), and the quick power-cut campaigns G1-G4 (fairdie.subjects.die.faults);
- energy: the charge per press and the presses a CR2032 gives, an estimate
  from the simulated time in each state and datasheet currents
  (:mod:`fairdie.verify._figures` names each figure's source).

A die with no reference model (a maker's own, whose board names no firmware
target) runs the checks that apply and is told which were skipped and why.
``fairdie verify`` is the command (:func:`verify_main`); ``--report DIR``
writes an HTML page with the plots (:func:`write_report`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairdie.verify._checks import (
    CHECKS,
    FAIL,
    MAX_ABSENCE,
    MAX_SPREAD,
    PASS,
    SKIP,
    STANDARD_NOISES,
    Check,
    Options,
)
from fairdie.verify._cli import verify_main
from fairdie.verify._figures import CR2032_MAH, FIGURES, Figure

if TYPE_CHECKING:
    from fairdie.verify._energy import Energy, Part
    from fairdie.verify._report import write_report
    from fairdie.verify._run import Verdict, verify
    from fairdie.verify._timeline import Sleep, Timeline, record_press

__all__ = [
    "CHECKS",
    "CR2032_MAH",
    "FAIL",
    "FIGURES",
    "MAX_ABSENCE",
    "MAX_SPREAD",
    "PASS",
    "SKIP",
    "STANDARD_NOISES",
    "Check",
    "Energy",
    "Figure",
    "Options",
    "Part",
    "Sleep",
    "Timeline",
    "Verdict",
    "record_press",
    "verify",
    "verify_main",
    "write_report",
]

_LAZY = {
    "Energy": "_energy",
    "Part": "_energy",
    "write_report": "_report",
    "Verdict": "_run",
    "verify": "_run",
    "Sleep": "_timeline",
    "Timeline": "_timeline",
    "record_press": "_timeline",
}


def __getattr__(name: str) -> Any:
    # these need the compiled simulator (or matplotlib); the names above do not
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairdie.verify' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"fairdie.verify.{module}"), name)
