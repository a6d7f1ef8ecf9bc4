"""fairdie.scenario: test any firmware on its board without Python.

A scenario file (TOML) is a list of steps run on the simulator, cycle
exact: press and release the board's buttons, feed its analog inputs, cut
and restore the power, wait for a time or until something happens; after
each step, check what an eye, an ear or a probe would see. Wokwi CI's YAML
scenarios are the model; these can also cut the power, and every time is
exact to the cycle (times are converted at the chip's clock).

Schema
------

.. code-block:: toml

    [scenario]                  # optional header
    name = "a press shows a face"     # free text (pytest shows it)
    firmware = "fw.elf"         # an ELF or HEX, a target folder (built on demand)
                                # or a shipped target ("tests/button_die");
                                # paths are relative to this file
    board = "board.toml"        # a board file (relative to this file), a
                                # shipped board ("die-direct") or a shipped
                                # target's ("tests/button_die/board.toml");
                                # none: the chip alone (the ELF names MCU, clock)
    seed = 0                    # bounce and power-on SRAM noise (default 0)
    powered = true              # on before step 1 (default true)

    [[step]]                    # any number, run in order; at most one action:
    power = "on"                # "on", "off" or "cut" (the same as off)
    press = "roll"              # a board button, held until released...
    hold = "200ms"              # ...or with hold, held this long then released
    release = "roll"
    analog = { knob = 1500 }    # analog inputs of the board, in millivolts: an
                                # input's ADC channel and comparator input alike
                                # (fairdie.device.Device.set_analog)
    wait = "250ms"              # a time: "250ms", "10s", "50us", "1200 cycles"
    until = "sleep"             # an event: "leds" (the lit LEDs change),
                                # "tone" (a tone starts), "sleep", "wake",
                                # "eeprom-write" (a write completes); or a state:
                                # { display = {face = "3"} }, { leds = [...] },
                                # { pins = {PB0 = "high"} }
    timeout = "1s"              # how long until waits (default 1 s): a wait
                                # that times out fails its step
    name = "..."                # describes the step in reports (default: its action)
    expect = { ... }            # checked once the step is done (a step may be
                                # only an expect), each key optional:
    #   leds = ["tl", "c"]        exactly these LEDs lit ([]: none), as an eye
    #                             sees them over the board's persistence window
    #   display = { face = "3" }  display -> symbol (or "off", "invalid")
    #   tone = 3000               the step's last tone, Hz (1 % tolerance), or
    #                             { hz = 3000, tolerance = "2%" | 15 (Hz) }, or "none"
    #   pins = { PB0 = "high" }   wire levels ("high"/"low")
    #   eeprom = { address = 0, bytes = [0x5A, 0xFF] }   (or a list of these)
    #   sleep = "power-down"      the last sleep during the step (one it was
    #                             already in counts) was in this mode; true:
    #                             slept; false: did not
    #   quiet = true              no pin the chip drives changed level

Every mistake is one line naming the file, the step number and the key
(:class:`ScenarioError`): unknown keys, bad times, two actions in a step, and,
before the first step runs, names the board lacks (buttons, LEDs, displays,
symbols, analog inputs, a speaker), pins and EEPROM bytes the chip lacks, a
release of a button not pressed and a wait for an event while the chip is off.

:func:`run_scenario` runs one and returns a :class:`ScenarioResult`: the
steps run, up to the first that failed, each failure with what was expected
and what was seen, and the ``fairdie run`` command that replays it. The
command is ``fairdie run`` (:mod:`fairdie._run_cli`); pytest collects
``test_*.toml`` files as tests (:mod:`fairdie.scenario._pytest`). There the
session's ``--fairdie-firmware`` and ``--fairdie-board`` stand in only for
what a file does not name: a file naming its firmware runs it, a file naming
its board runs on it (``--fairdie-seed`` replaces every file's seed). The
chip is made as ``fairdie verify`` makes it (:class:`fairdie.device.Setup`):
at the board's clock unless ``--f-cpu`` says.

Sleep modes are the engine's: each SLEEP event carries its SM bits and
:func:`fairdie.sim.sleep_mode_name` names them ("idle", "adc",
"power-down", "standby", "power-save", "extended-standby"; the datasheets'
spellings such as "ADC noise reduction" are accepted too). The examples in
``examples/scenarios/`` run the engine's test firmwares.
"""

from __future__ import annotations

from fairdie.scenario._model import Scenario, ScenarioError
from fairdie.scenario._parse import load_scenario, parse_scenario
from fairdie.scenario._run import (
    Failure,
    ScenarioResult,
    StepOutcome,
    run_scenario,
    run_scenarios,
)

__all__ = [
    "Failure",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "StepOutcome",
    "load_scenario",
    "parse_scenario",
    "run_scenario",
    "run_scenarios",
]
