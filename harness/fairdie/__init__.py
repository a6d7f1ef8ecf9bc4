"""fairdie: a cycle-accurate AVR emulation test harness.

Layers, bottom up: :mod:`fairdie.sim` (simavr through our cffi shim),
:mod:`fairdie.toolchain` (avr-gcc), :mod:`fairdie.board` (wiring and LEDs),
:mod:`fairdie.subjects.die` (the fair die device), :mod:`fairdie.noise` (ADC stimulus),
and the front ends :mod:`fairdie.plugin` (pytest) and :mod:`fairdie.cli`.
"""

__version__ = "0.1.0"

import logging as _logging

# A library logs and lets the application decide: simavr's own messages go to
# the "fairdie.simavr" logger, silent unless a handler is configured (the CLI's
# --verbose adds one).
_logging.getLogger("fairdie").addHandler(_logging.NullHandler())
