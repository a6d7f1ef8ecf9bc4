"""What the echo subject checks: the LED is lit, goes out while the button is
held and lights again once it is let go."""

from __future__ import annotations

from fairdie.device import Device


def follows(device: Device) -> tuple[bool, bool, bool]:
    """The LED lit before, during and after a press of the button."""
    device.power_on()
    chip = device.chip
    chip.run(seconds=0.05)
    before = "out" in device.lit()
    device.press("in", bounce=False)
    chip.run(seconds=0.05)
    during = "out" in device.lit()
    device.release("in", bounce=False)
    chip.run(seconds=0.05)
    return before, during, "out" in device.lit()
