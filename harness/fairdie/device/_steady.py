"""When a display shows a steady symbol: one rule for every reader.

An eye reads LEDs over a persistence window (a multiplexed display needs a
whole window to show every LED). A symbol is steady when the window has
seen it whole:

- just after power-on (``from_power_on``), once some LED has been lit for a
  whole window: the reading over the last window is then all light;
- on a device that was already running (its display may still show what it
  showed before), when the last two windows read the same.

Otherwise the display shows no steady symbol: ``"off"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairdie.board import Display
    from fairdie.device._device import Device

__all__ = ["lit_a_whole_window", "steady_symbol"]

OFF = "off"


def steady_symbol(
    device: Device, display: str | Display | None = None, *, from_power_on: bool = False
) -> str:
    """The symbol ``display`` (a name, a :class:`~fairdie.board.Display`, or
    the board's only one) shows steadily now, else ``"off"``."""
    if from_power_on:
        if not lit_a_whole_window(device.first_lit(), device.chip.cycle, device.window):
            return OFF
        return device.read(display)
    now = device.read(display)
    return now if device.read(display, at=device.chip.cycle - device.window) == now else OFF


def lit_a_whole_window(first_lit: int | None, at: int, window: int) -> bool:
    """Whether, at cycle ``at`` after a power-on, some LED has been lit for a
    whole ``window`` (``first_lit``: the cycle one first lit, None if none):
    from then on the reading over the last window is a steady symbol."""
    return first_lit is not None and at - first_lit >= window
