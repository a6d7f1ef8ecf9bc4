"""A device's last press as a VCD file: what ``fairdie press --vcd`` writes,
and what the pytest plugin attaches to a failing test.

The chip records the events in C (``Chip.trace_kinds`` says which); a die
clears its trace when a press starts, so the trace is the last press. The
VCD has the pins that did something and the signals the recorded kinds feed
(``fairdie.sim._vcd``). Nothing here loads the compiled module until a chip
is used.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie.errors import FairdieError
from fairdie.sim._types import EventKind, Level, PinChange
from fairdie.sim._vcd import VCD_KINDS, signals_for

if TYPE_CHECKING:
    from fairdie.sim import Chip

__all__ = [
    "EVIDENCE_KINDS",
    "TRACE_KINDS",
    "active_pins",
    "check_writable",
    "summary",
    "write",
]

#: what ``fairdie press --vcd`` records: every kind a VCD shows
TRACE_KINDS = VCD_KINDS
#: what the plugin's dice record for a failing test's evidence: the cheap
#: kinds (a sleeping die wakes often; its pins change seldom)
EVIDENCE_KINDS = (
    EventKind.PIN | EventKind.EEPROM_START | EventKind.EEPROM_DONE | EventKind.ADC | EventKind.POWER
)


def check_writable(path: Path, what: str = "--vcd") -> Path:
    """``path`` if a file can be written there, else a one-line FairdieError."""
    if path.is_dir():
        raise FairdieError(f"{what} {path}: is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise FairdieError(f"{what} {path}: no such directory {parent}")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise FairdieError(f"{what} {path}: not writable")
    return path


def active_pins(chip: Chip) -> list[str]:
    """The pins worth a wave: each that changes in the trace or is not
    floating now (an MCU's port may have fewer pins than its 8 bits)."""
    changed: set[tuple[str, int]] = set()
    for ch in chip.pin_changes():
        changed.update((ch.port, b) for b in ch.changed_bits())
    pins = []
    for port in chip.ports:
        now = PinChange(chip.cycle, port, chip.port_state(port), 0)
        for bit in range(8):
            if (port, bit) in changed or now.level(bit) is not Level.Z:
                pins.append(f"P{port}{bit}")
    return pins


def write(chip: Chip, path: Path, *, comment: str = "") -> Path:
    """The chip's trace as a VCD at ``path``: the active pins and the
    signals its trace kinds feed. OSError becomes a one-line FairdieError."""
    try:
        return chip.write_vcd(
            path,
            pins=active_pins(chip),
            signals=signals_for(chip.trace_kinds),
            comment=comment,
        )
    except OSError as e:
        raise FairdieError(f"cannot write {path}: {e.strerror or e}") from None


def summary(chip: Chip) -> dict[str, int]:
    """What the trace holds: the events of each kind (lower-case names) and
    the cycles it spans (``first_cycle``, ``last_cycle``)."""
    counts: Counter[str] = Counter()
    first = last = None
    for cycle, kind, *_ in chip.trace.tuples():
        counts[(EventKind(kind).name or str(kind)).lower()] += 1
        first = cycle if first is None else first
        last = cycle
    out = {k.name.lower(): counts[k.name.lower()] for k in EventKind if k.name and k & TRACE_KINDS}
    out["first_cycle"] = first if first is not None else chip.cycle
    out["last_cycle"] = last if last is not None else chip.cycle
    return out
