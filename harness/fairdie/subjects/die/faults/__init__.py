"""Power-cut campaigns: prove that a die never corrupts its stored table.

The die is powered only while its button is held, so the power can go at
any instant, also in the middle of an EEPROM write. The campaigns cut it
everywhere, on the core's power-cut engine (fairdie.campaigns), and check,
against the die's model (fairdie.subjects.die), the invariants:

- I1 atomic: after any cut, the stored state is the state before the press
  or the state after it;
- I2 durable once shown: once a face has lit, no later cut loses its roll;
- I3 at most one: a cut loses or adds at most the roll in flight (each press
  of a chain is judged from what the last one left);
- I4 valid and live: every image the chip can meet decodes to a state, and
  a power-on lights a face in time and stores what the model says.

Fault model: one byte in flight at a time (EEPE serialises writes), every
other byte at its old or its new value; a cut leaves the byte in flight at
any of its 256 values (the exhaustive campaigns try them all, the soak
weights them by the physics of erase and write, fairdie.campaigns.physical);
only a power cut tears, a reset lets the write finish. Every violation
carries a replay id that ``fairdie faults --replay ID`` runs again.
"""

from __future__ import annotations

from typing import Any

from fairdie.subjects.die.faults._target import FaultsError, Target
from fairdie.subjects.die.faults._verdict import Violation

__all__ = ["CAMPAIGNS", "FaultsError", "Report", "Target", "Violation", "replay", "run_faults"]

_RUN = {"CAMPAIGNS", "Report", "replay", "run_faults"}


def __getattr__(name: str) -> Any:
    # the campaigns need the compiled simulator; naming a target or an id does not
    if name in _RUN:
        from fairdie.subjects.die.faults import _run

        return getattr(_run, name)
    raise AttributeError(f"module 'fairdie.subjects.die.faults' has no attribute {name!r}")
