"""fairdie.subjects.silver_dollar: the Silver Dollar Game on an ATtiny84A.

Twelve cells, five dollars, a person against the device: a charlieplexed
strip of 12 LEDs, five dollar buttons and GO, a piezo, and a power-down
sleep that GO wakes. The firmware is ``firmware/sdg_t84a`` (its banner gives
the pins, fuses and rules); the board is ``boards/silver-dollar.toml``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairdie.subjects import Command, Subject

if TYPE_CHECKING:
    from fairdie.subjects.silver_dollar._game import Game, GhostError, Note

__all__ = ["SUBJECT", "Game", "GhostError", "Note"]

_DEVICE = {"Game", "GhostError", "Note"}

#: the game as the core's registry sees it
SUBJECT = Subject(
    name="silver_dollar",
    summary="the Silver Dollar Game on an ATtiny84A: 12 charlieplexed LEDs, six buttons, a piezo",
    device="fairdie.subjects.silver_dollar._game:device_for",
    commands={
        "silver-dollar": Command(
            "the game on its emulated firmware: starts, reply (judged by a solver), play",
            "fairdie.subjects.silver_dollar._cli:main",
        ),
    },
    fixtures="fairdie.subjects.silver_dollar._fixtures",
    checks="fairdie.subjects.silver_dollar.checks:CHECKS",
)


def __getattr__(name: str) -> Any:
    # the device needs the compiled simulator; the solver does not
    if name in _DEVICE:
        from fairdie.subjects.silver_dollar import _game

        return getattr(_game, name)
    raise AttributeError(f"module 'fairdie.subjects.silver_dollar' has no attribute {name!r}")
