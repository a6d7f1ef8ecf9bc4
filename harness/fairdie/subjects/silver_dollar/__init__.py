"""fairdie.subjects.silver_dollar: the Silver Dollar Game on an ATtiny84A.

Twelve cells, five dollars, a person against the device: a charlieplexed
strip of 12 LEDs, five dollar buttons and GO, a piezo, and a power-down
sleep that GO wakes. The firmware is ``firmware/sdg_t84a`` (its banner gives
the pins, fuses and rules); the board is ``boards/silver-dollar.toml``.
"""

from __future__ import annotations

from fairdie.subjects import Subject

__all__ = ["SUBJECT"]

#: the game as the core's registry sees it
SUBJECT = Subject(
    name="silver_dollar",
    summary="the Silver Dollar Game on an ATtiny84A: 12 charlieplexed LEDs, six buttons, a piezo",
    commands={},
    checks="fairdie.subjects.silver_dollar.checks:CHECKS",
)
