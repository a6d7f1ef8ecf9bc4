"""fairdie.noise: what the die's floating ADC pin reads.

A noise model is a seeded, deterministic callable ``model(channel) ->
millivolts`` that the chip calls once per ADC conversion
(``chip.set_adc(channel, model)``). A seekable one (:class:`SeekableNoise`)
also has ``seek(press)``, which starts press number ``press`` so that its
readings depend only on the seed and the press, never on earlier presses; a
model that needs time has ``bind_clock(clock)``. Every model here also gives
its values a block at a time (``next_values``: the chip then calls Python
once per block, not per conversion) and the first values of any press
without a chip (``press_values``); :mod:`fairdie.noise._seeded` describes the
protocol. Models: :class:`Floating`
(a realistic floating pin: few codes, slow drift; the default),
:class:`Uniform` (every code equally likely), :class:`Stuck` (a constant),
:class:`Dead` (one code drawn from the seed, no noise at all), :class:`Weak`
(a pin that rarely leaves its resting code), :class:`Hum` (mains hum),
:class:`Biased` (codes with given weights), :class:`Trace` (a recording
replayed) and :class:`Codes` (exact ADC codes in turn, for tests).
:func:`parse_noise` builds one from its CLI spec (:data:`NOISE_NAMES`).
:func:`code_for_mv` and :func:`mv_for_code` are simavr's ADC transfer
function and its inverse. Hypothesis strategies live in
:mod:`fairdie.noise.strategies`.
"""

from __future__ import annotations

from fairdie.noise._adc import ADC_MAX, code_for_mv, mv_for_code, mv_table
from fairdie.noise._fixed import Codes, Dead, Stuck
from fairdie.noise._models import (
    Biased,
    Floating,
    Hum,
    Uniform,
    Weak,
)
from fairdie.noise._parse import DEFAULT_NOISE, NOISE_NAMES, parse_noise
from fairdie.noise._seeded import BlockNoise, NoiseModel, SeekableNoise
from fairdie.noise._trace import Trace

__all__ = [
    "ADC_MAX",
    "DEFAULT_NOISE",
    "NOISE_NAMES",
    "Biased",
    "BlockNoise",
    "Codes",
    "Dead",
    "Floating",
    "Hum",
    "NoiseModel",
    "SeekableNoise",
    "Stuck",
    "Trace",
    "Uniform",
    "Weak",
    "code_for_mv",
    "mv_for_code",
    "mv_table",
    "parse_noise",
]
