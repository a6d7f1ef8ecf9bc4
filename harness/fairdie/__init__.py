"""fairdie: a cycle-accurate AVR emulation test harness.

The core, bottom up: :mod:`fairdie.sim` (simavr through our cffi shim),
:mod:`fairdie.toolchain` (avr-gcc), :mod:`fairdie.board` (wiring and parts),
:mod:`fairdie.device` (a chip on its board, one Setup recipe),
:mod:`fairdie.noise` and :mod:`fairdie.stimulus` (ADC noise, press timing),
:mod:`fairdie.scenario` and :mod:`fairdie.verify`, and the front ends
:mod:`fairdie.plugin` (pytest) and :mod:`fairdie.cli`. It knows no product:
the subjects (:mod:`fairdie.subjects`, the fair die first) are found through
one registry.
"""

__version__ = "0.1.0"

import logging as _logging

# A library logs and lets the application decide: simavr's own messages go to
# the "fairdie.simavr" logger, silent unless a handler is configured (the CLI's
# --verbose adds one).
_logging.getLogger("fairdie").addHandler(_logging.NullHandler())
