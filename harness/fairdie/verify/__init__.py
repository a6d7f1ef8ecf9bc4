"""fairdie.verify: check a firmware in emulation before it is burnt.

:func:`verify` takes the ELF or HEX a hardware maker is about to burn and the
board it goes on, and runs, in order:

- the build against the board, on any board: built for the board's MCU and
  fits its memories, expects the board's clock (the ELF's avr_mcu section),
  is a build made for the board's LED wiring (when the board names a
  firmware target: each variant of a target says how it drives LEDs);
- each registered subject's checks (``Subject.checks``: a :class:`Checks`),
  where the subject applies to the board; elsewhere they are listed as
  skipped, with the subject's reason (the die's: a board with no ``[die]``
  table is no die);
- the scenario files the board names (``scenarios`` under ``[board]``).

What the emulation did not model on the chips the checks ran is a note in
the verdict, not a failure. The verdict names the bytes checked and the
``avrdude`` line that burns them (its burn sheet), and each check's evidence
(VCDs of its presses or runs, drawings, replay commands). Every chip is made from one
:class:`~fairdie.device.Setup`. ``fairdie verify`` is the command
(:func:`verify_main`); ``--report DIR`` writes an HTML page with the plots
(:func:`write_report`). The energy estimate (:func:`estimate`) works from any
recorded run (:class:`Recorder`); its currents are :data:`FIGURES`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairdie.verify._check import (
    FAIL,
    PASS,
    SKIP,
    Check,
    CheckResult,
    Checks,
    Context,
    Options,
    ReportPart,
    Result,
    SubjectOptions,
    fail,
    ok,
    skip,
)
from fairdie.verify._cli import verify_main
from fairdie.verify._figures import CR2032_MAH, FIGURES, Figure

if TYPE_CHECKING:
    from fairdie.verify._candidate import Candidate
    from fairdie.verify._energy import Energy, Part, estimate, estimate_run
    from fairdie.verify._plots import new_figure, save_figure
    from fairdie.verify._report import write_report
    from fairdie.verify._run import Verdict, all_checks, verify
    from fairdie.verify._timeline import KINDS, Recorder, Sleep, Timeline, record_run

__all__ = [
    "CR2032_MAH",
    "FAIL",
    "FIGURES",
    "KINDS",
    "PASS",
    "SKIP",
    "Candidate",
    "Check",
    "CheckResult",
    "Checks",
    "Context",
    "Energy",
    "Figure",
    "Options",
    "Part",
    "Recorder",
    "ReportPart",
    "Result",
    "Sleep",
    "SubjectOptions",
    "Timeline",
    "Verdict",
    "all_checks",
    "estimate",
    "estimate_run",
    "fail",
    "new_figure",
    "ok",
    "record_run",
    "save_figure",
    "skip",
    "verify",
    "verify_main",
    "write_report",
]

_LAZY = {
    "Candidate": "_candidate",
    "Energy": "_energy",
    "Part": "_energy",
    "estimate": "_energy",
    "estimate_run": "_energy",
    "new_figure": "_plots",
    "save_figure": "_plots",
    "write_report": "_report",
    "Verdict": "_run",
    "all_checks": "_run",
    "verify": "_run",
    "KINDS": "_timeline",
    "Recorder": "_timeline",
    "Sleep": "_timeline",
    "Timeline": "_timeline",
    "record_run": "_timeline",
}


def __getattr__(name: str) -> Any:
    # these need the compiled simulator (or matplotlib); the names above do not
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairdie.verify' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"fairdie.verify.{module}"), name)
