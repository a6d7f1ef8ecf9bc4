"""Noise models by their CLI names: :func:`parse_noise`."""

from __future__ import annotations

import math

from fairdie.noise._fixed import Dead, Stuck
from fairdie.noise._models import (
    HUM_HZ,
    MAX_WEIGHTS,
    Biased,
    Floating,
    Hum,
    Uniform,
    Weak,
)
from fairdie.noise._seeded import SeekableNoise, check_vcc
from fairdie.noise._trace import Trace

__all__ = ["DEFAULT_NOISE", "NOISE_NAMES", "parse_noise"]

DEFAULT_NOISE = "floating"
#: The noise specs, as the CLI lists them. :func:`parse_noise` builds every
#: one but "adversarial", which needs the die's reference model.
NOISE_NAMES = (
    "floating",
    "uniform",
    "stuck:MILLIVOLTS",
    "rail-low",
    "rail-high",
    "dead",
    "weak:RATIO",
    "hum:HZ",
    "biased:P0,P1,...",
    "trace:FILE.csv",
    "adversarial",
)
_PLAIN = ("floating", "uniform", "rail-low", "rail-high", "dead", "adversarial")


def parse_noise(spec: str, *, seed: int, vcc_mv: float) -> SeekableNoise:
    """A noise model from its CLI spec (case-insensitive but for a file name).

    "floating" (:class:`Floating`), "uniform" (:class:`Uniform`),
    "stuck:MILLIVOLTS" (:class:`Stuck`, 0..vcc), "rail-low" and "rail-high"
    (stuck at 0 and at vcc), "dead" (:class:`Dead`: one code, drawn from the
    seed), "weak:RATIO" (:class:`Weak`, RATIO >= 1), "hum:HZ" (:class:`Hum`, 1..10000 Hz),
    "biased:P0,P1,..." (:class:`Biased`) and "trace:FILE.csv"
    (:class:`Trace`). Raises ValueError with a one-line message for
    anything else, and for "adversarial", which needs the die's reference
    model and is built by the lab layer.
    """
    vcc = check_vcc(vcc_mv)
    head, colon, rest = spec.strip().partition(":")
    name, value = head.strip().lower(), rest.strip()
    if name in _PLAIN and colon:
        raise ValueError(f"bad noise {spec!r}: {name} takes no value")
    if name == "floating":
        return Floating(seed, vcc)
    if name == "uniform":
        return Uniform(seed, vcc)
    if name == "rail-low":
        return Stuck(0.0)
    if name == "rail-high":
        return Stuck(vcc)
    if name == "dead":
        return Dead(seed, vcc)
    if name == "adversarial":
        raise ValueError(
            "adversarial noise needs the die's reference model: use `fairdie lab campaign`"
        )
    if name == "stuck":
        text = value.lower().removesuffix("mv").strip()
        mv = _number(spec, text, "stuck:MILLIVOLTS, e.g. stuck:1500")
        if not (math.isfinite(mv) and 0 <= mv <= vcc):
            raise ValueError(f"bad noise {spec!r}: {text} mV is outside 0..{vcc:g} mV")
        return Stuck(mv)
    if name == "weak":
        ratio = _number(spec, value, "weak:RATIO (RATIO >= 1), e.g. weak:10")
        if not (math.isfinite(ratio) and ratio >= 1):
            raise ValueError(f"bad noise {spec!r}: the ratio {value} is not a finite number >= 1")
        return Weak(ratio, seed, vcc)
    if name == "hum":
        text = value.lower().removesuffix("hz").strip()
        hz = _number(spec, text, "hum:HZ, e.g. hum:50")
        lo, hi = HUM_HZ
        if not lo <= hz <= hi:
            raise ValueError(f"bad noise {spec!r}: {text} Hz is outside {lo:g}..{hi:g} Hz")
        return Hum(hz, seed, vcc)
    if name == "biased":
        return Biased(_weights(spec, value), seed, vcc)
    if name == "trace":
        if not value:
            raise ValueError(f"bad noise {spec!r}: expected trace:FILE.csv")
        return Trace(value, vcc)
    raise ValueError(f"unknown noise {spec!r}: expected one of {', '.join(NOISE_NAMES)}")


def _number(spec: str, text: str, expected: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"bad noise {spec!r}: expected {expected}") from None


def _weights(spec: str, value: str) -> list[float]:
    expected = "biased:P0,P1,... (one weight >= 0 per code from 0), e.g. biased:1,0,2"
    weights = [_number(spec, p.strip(), expected) for p in value.split(",")]
    if len(weights) > MAX_WEIGHTS:
        raise ValueError(f"bad noise {spec!r}: {len(weights)} weights, at most {MAX_WEIGHTS}")
    for code, p in enumerate(weights):
        if not (math.isfinite(p) and p >= 0):
            raise ValueError(
                f"bad noise {spec!r}: the weight of code {code}, {p:g}, is not a finite number >= 0"
            )
    if not math.isfinite(sum(weights)) or not any(weights):
        raise ValueError(f"bad noise {spec!r}: the weights must have a finite sum above 0")
    return weights
