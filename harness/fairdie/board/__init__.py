"""fairdie.board: board files (the wiring around the MCU) and the LED model.

A board file describes wiring, not a device: the MCU and its clock and supply,
which LED sits between which terminals (direct drive or charlieplexed alike),
the analog inputs and the buttons. The die, and later boards such as a game
with a charlieplexed 12-LED display and six buttons, are all described by it.

Board file schema (TOML)
------------------------

.. code-block:: toml

    [board]                  # required
    name = "die-direct"      # required, free text
    mcu = "attiny13a"        # required; pins are checked for attiny13(a), attiny84(a)
    f_cpu = 1200000          # required, Hz, > 0
    vcc_mv = 3000            # required, supply in mV, 1800..5500
    persistence_ms = 20      # optional (default 20), > 0: LED integration window
    firmware = "die_t13a"    # optional: build target name
    variant = "direct"       # optional: build variant

    [[led]]                  # any number, in display order
    name = "centre"          # required, unique among LEDs
    anode = "PB0"            # required: a port pin or "VCC"
    cathode = "GND"          # required: a port pin or "GND"
    x = 1                    # optional, with y: grid column (from the left, >= 0)
    y = 1                    # optional, with x: grid row (from the top, >= 0)

    [analog.noise]           # named analog inputs, any number
    pin = "PB4"              # required, not used by an LED or a button
    channel = 2              # required: single-ended ADC channel of that pin

    [[button]]               # any number
    name = "power"           # required, unique among buttons
    kind = "power"           # "power": the supply switch (no pin, at most one)
    # kind = "input" (default) takes pin = "PA0" (not used by an LED or an
    # analog input) and active = "low" (default) or "high": the level the
    # button drives while pressed.

Rules checked, each failing with a one-line :class:`~fairdie.errors.BoardError`
naming the file: unknown tables or keys; missing or mistyped values;
malformed pin names; pins the MCU does not have (known MCUs only; any port
pin is accepted for others); an analog channel that is not that pin's ADC
channel (known MCUs); duplicate LED or button names; an LED whose anode and
cathode are the same; two LEDs between the same two pins in the same
direction (LEDs between one pin and a rail may share it: that is a direct
drive group lit together); a pin used both by an LED and by an analog input
or a button; a non-positive clock; a supply outside 1800..5500 mV; a
non-positive persistence window.

Boards shipped with fairdie (``load_board("die-direct")``): ``die-direct``
and ``die-charlieplex``, the ATtiny13A fair die in its two wirings.
"""

from __future__ import annotations

from fairdie.board._leds import LedDecoder
from fairdie.board._model import (
    MCU_ADC_PINS,
    MCU_PINS,
    AnalogInput,
    Board,
    Button,
    Led,
    load_board,
    parse_board,
    shipped_boards,
)

__all__ = [
    "MCU_ADC_PINS",
    "MCU_PINS",
    "AnalogInput",
    "Board",
    "Button",
    "Led",
    "LedDecoder",
    "load_board",
    "parse_board",
    "shipped_boards",
]
