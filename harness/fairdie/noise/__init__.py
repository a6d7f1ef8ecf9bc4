"""fairdie.noise: what the die's floating ADC pin reads.

A noise model is a seeded, deterministic callable ``model(channel) ->
millivolts`` that the chip calls once per ADC conversion
(``chip.set_adc(channel, model)``). Models: :class:`Floating` (a realistic
floating pin: few codes, slow drift; the default), :class:`Uniform` (every
code equally likely), :class:`Stuck` (a constant) and :class:`Codes`
(exact ADC codes in turn, for tests). :func:`parse_noise`
builds one from its CLI name. :func:`code_for_mv` and :func:`mv_for_code`
are simavr's ADC transfer function and its inverse. Hypothesis strategies
live in :mod:`fairdie.noise.strategies`.
"""

from __future__ import annotations

from fairdie.noise._adc import ADC_MAX, code_for_mv, mv_for_code
from fairdie.noise._models import (
    DEFAULT_NOISE,
    NOISE_NAMES,
    Codes,
    Floating,
    NoiseModel,
    Stuck,
    Uniform,
    parse_noise,
)

__all__ = [
    "ADC_MAX",
    "DEFAULT_NOISE",
    "NOISE_NAMES",
    "Codes",
    "Floating",
    "NoiseModel",
    "Stuck",
    "Uniform",
    "code_for_mv",
    "mv_for_code",
    "parse_noise",
]
