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
    mcu = "attiny13a"        # required; pins are checked for attiny13(a), attiny25/45/85,
                             # attiny84(a) and atmega328p (MCU_PINS)
    f_cpu = 1200000          # required, Hz, 1000..32000000
    vcc_mv = 3000            # required, supply in mV, 1800..5500
    persistence_ms = 20      # optional (default 20), in (0, 1000]: LED integration window
    led_ma = 2.0             # optional (default 2.0), in (0, 40]: mA through one lit LED
                             # (or one lit series string); only fairdie verify's
                             # energy estimate reads it
    firmware = "die_t13a"    # optional: build target name
    variant = "direct"       # optional: build variant (see check_build)
    scenarios = ["test_roll.toml"]   # optional: scenario files fairdie verify runs
                             # on this board, relative to this file
                             # (fairdie.scenario; each named once)

    [[led]]                  # any number, in display order
    name = "centre"          # required, unique among LEDs
    anode = "PB0"            # required: a port pin or "VCC"
    cathode = "GND"          # required: a port pin or "GND"
    x = 1                    # optional, with y: grid column (from the left, >= 0)
    y = 1                    # optional, with x: grid row (from the top, >= 0)
    series = "diag"          # optional: LEDs in series on one anode/cathode pair

    [analog.noise]           # named analog inputs, any number
    pin = "PB4"              # required, not used by an LED
    channel = 2              # single-ended ADC channel of that pin: required
                             # unless the pin is a comparator input (then it
                             # defaults to the pin's ADC channel, if it has one)
    comparator = "AIN0"      # optional: the analog comparator input on that pin,
                             # "AIN0" or "AIN1" (known MCUs: defaults to the
                             # pin's, MCU_COMPARATOR_PINS; attiny13(a)/25/45/85
                             # PB0/PB1, attiny84(a) PA1/PA2, atmega328p PD6/PD7)

    [[button]]               # any number
    name = "roll"            # required, unique among buttons
    pin = "PB3"              # required (kind "input", the default)
    active = "low"           # "low" (default) or "high": the level while pressed
    pull = "chip"            # what holds it while released: "chip" (the MCU's
                             # pull-up; default for active low), "up", "down"
                             # (a board resistor; "down" is the default for
                             # active high) or "none" (the button drives it)
    bounce = { count = 3, spacing_us = 400 }   # optional, default no bounce
    shares = ["led0"]        # optional: the LEDs on its pin, when the firmware
                             # shares the pin between them (see below)

    [[button]]
    name = "power"
    kind = "power"           # the supply switch: no pin, at most one

    [display.face]           # named displays, any number
    leds = ["centre", ...]   # optional, default every LED
    [display.face.symbols]   # required: symbol = the LEDs it lights
    "1" = ["centre"]

    [speaker]                # optional
    pin = "PA5"

    [die]                    # a subject's section: the subject parses it
                             # (fairdie.subjects; the die's: roll, display,
                             # counters, settle_ms)

Rules checked, each failing with a one-line :class:`~fairdie.errors.BoardError`
naming the file, at load time: unknown tables or keys; missing or mistyped
values; malformed pin names; pins the MCU does not have (known MCUs only; any
port pin is accepted for others); an analog channel that is not that pin's
ADC channel, or a comparator input that is not that pin's (known MCUs); an
analog input with neither; two analog inputs on one pin or one comparator
input; duplicate LED or button names; an LED whose
anode and cathode are the same; two LEDs between the same two pins in the
same direction unless they name the same series, and a series whose LEDs do
not share both ends (LEDs between one pin and a rail may share it: that is a
direct drive group lit together); a pin used both by an LED and by an analog
input or the speaker; a pin used both by an LED and by a button whose
``shares`` does not name every LED on it (the message says what to set), or
naming an LED not on it (a button may share an analog input's pin freely); a
pull that holds a button at its active level; display symbols naming unknown
LEDs, LEDs outside the display, or the same lit set twice; a section no
registered subject reads (each subject checks its own); a clock outside 1000..32000000 Hz; a supply
outside 1800..5500 mV; a persistence window outside (0, 1000] ms.

A button and LEDs on one pin (``shares``)
-----------------------------------------

Small boards often share a pin: the firmware makes it an input (with the
pull-up) to read the button, an output to light the LED. Both act through
the one pin model (:mod:`fairdie.sim`), as on a bench where the button is
wired through a series resistor (about 1 kOhm; without one a pressed button
would short the output):

- while the chip drives the pin (an output), the chip's level wins: the LED
  lights as the firmware drives it, pressed button or not;
- while the pin is an input, a pressed button drives its active level (over
  the chip's pull-up, and over the LED: a pull-up's current through an LED
  is too weak to light it or to matter), and the firmware reads it;
- an LED lights from the resolved levels: its anode driven high and its
  cathode driven low, by the chip or by a pressed button. So a pressed
  active-low button on the cathode of an LED from VCC lights it while the
  pin is an input, as the current has a path to ground.

:func:`check_build` checks a board against the build it runs (its
``firmware`` target, and its ``variant`` or the one asked for): the target
and variant exist, the target is for the board's MCU, and the build drives
its LEDs as the board is wired (:attr:`Board.led_drive`: ``"direct"`` when
every LED sits between a pin and a rail, ``"charlieplex"`` when every one
sits between two pins; the variant's ``leds = ...`` in its target.toml).

An analog input is fed by :meth:`fairdie.device.Device.set_analog` (a
scenario's ``analog`` step): its ADC channel and its comparator input
alike, so a continuity tester comparing a probe on AIN0 against a reference
on AIN1 is driven like an ADC-reading firmware. A constant also reaches the
comparator's multiplexer (ACME routes ADC channel n to its negative input).

A board's name loads a board shipped with a subject (``load_board("die-direct")``:
each subject's ``boards/`` folder, :func:`shipped_boards`).
"""

from __future__ import annotations

from fairdie.board._fields import Ctx, check_keys, get_int, get_str, positive, table
from fairdie.board._leds import LedDecoder
from fairdie.board._mcus import MCU_COMPARATOR_PINS, MCU_EEPROM
from fairdie.board._model import (
    MCU_ADC_PINS,
    MCU_PINS,
    Board,
    load_board,
    parse_board,
    shipped_board_file,
    shipped_boards,
)
from fairdie.board._pairing import check_build
from fairdie.board._parts import (
    INVALID,
    OFF,
    AnalogInput,
    Bounce,
    Button,
    Display,
    Led,
)

__all__ = [
    "INVALID",
    "MCU_ADC_PINS",
    "MCU_COMPARATOR_PINS",
    "MCU_EEPROM",
    "MCU_PINS",
    "OFF",
    "AnalogInput",
    "Board",
    "Bounce",
    "Button",
    "Ctx",
    "Display",
    "Led",
    "LedDecoder",
    "check_build",
    "check_keys",
    "get_int",
    "get_str",
    "load_board",
    "parse_board",
    "positive",
    "shipped_board_file",
    "shipped_boards",
    "table",
]
