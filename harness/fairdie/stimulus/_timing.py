"""When a person presses: seeded draws of how long each press is held and
how long they wait before the next.

A firmware whose only randomness is *when* it is pressed (a die that
stirs its timer into its state at each press) rolls the same faces under
any seed if every press is timed alike. :class:`PressTiming` draws each
hold and each wait from a distribution the user sets, from a stream seeded
by one integer, so a run of presses is reproducible from its seed and two
seeds give two different runs.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from fairdie.errors import FairdieError

__all__ = [
    "FIXED",
    "HUMAN",
    "MAX_HOLD_S",
    "Duration",
    "PressTime",
    "PressTiming",
    "TimingError",
    "depends_on_seed",
    "parse_timing",
]

#: The longest press, and the longest wait between presses, in seconds.
MAX_HOLD_S = 3600.0
#: The shortest drawn hold or wait (a log-normal has no floor of its own).
MIN_DRAW_S = 0.001
#: The widest log-normal spread (sigma of the log): 2 spans a factor of 50 either way.
MAX_SPREAD = 2.0

_LOGNORMAL, _UNIFORM = "lognormal", "uniform"
_NUMBER = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)\s*(ms|s)?\s*\Z", re.IGNORECASE)


class TimingError(FairdieError):
    """A press timing spec or value that makes no sense."""


@dataclass(frozen=True, slots=True)
class Duration:
    """A distribution of durations in seconds.

    ``kind == "lognormal"``: ``a`` is the median and ``b`` the spread (the
    standard deviation of the log; 0 makes it exactly ``a``), the shape of
    human reaction and hold times. ``kind == "uniform"``: anywhere from ``a``
    to ``b``. Draws are clipped to [:data:`MIN_DRAW_S`, :data:`MAX_HOLD_S`].
    """

    kind: str
    a: float
    b: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in (_LOGNORMAL, _UNIFORM):
            raise TimingError(f"a duration is {_LOGNORMAL} or {_UNIFORM}, not {self.kind!r}")
        for v in (self.a, self.b):
            if not math.isfinite(v) or v < 0:
                raise TimingError(f"{self}: durations and spreads are finite and >= 0")
        if self.kind == _LOGNORMAL and self.b > MAX_SPREAD:
            raise TimingError(f"{self}: a spread is at most {MAX_SPREAD:g}")
        if self.kind == _UNIFORM and self.a > self.b:
            raise TimingError(f"{self}: the shortest is longer than the longest")
        if max(self.a, self.b if self.kind == _UNIFORM else 0) > MAX_HOLD_S:
            raise TimingError(f"{self}: longer than {MAX_HOLD_S:g} s")

    @classmethod
    def fixed(cls, seconds: float) -> Duration:
        """Always ``seconds``."""
        return cls(_LOGNORMAL, seconds, 0.0)

    @property
    def constant(self) -> bool:
        """True when every draw is the same."""
        return self.b == 0 if self.kind == _LOGNORMAL else self.a == self.b

    def draw(self, rng: random.Random) -> float:
        """One duration; a constant one draws nothing from ``rng``."""
        if self.constant:
            value = self.a
        elif self.kind == _LOGNORMAL:
            value = self.a * math.exp(rng.gauss(0.0, self.b))
        else:
            value = rng.uniform(self.a, self.b)
        return min(max(value, MIN_DRAW_S), MAX_HOLD_S)

    def __str__(self) -> str:
        """The spec's form: ``0.12`` (fixed), ``0.12~0.3`` (median~spread), ``0.1..0.2``."""
        if self.kind == _UNIFORM:
            return f"{self.a:g}..{self.b:g}"
        return f"{self.a:g}~{self.b:g}" if self.b else f"{self.a:g}"


class PressTime(NamedTuple):
    """One press as drawn: held for ``hold`` s, then ``interval`` s until the next."""

    hold: float
    interval: float


@dataclass(frozen=True, slots=True)
class PressTiming:
    """How a person presses a button again and again: each ``hold`` (press to
    release) and each ``interval`` (release to the next press) drawn from its
    :class:`Duration`. Frozen and picklable, so campaigns can ship it to
    worker processes; :meth:`presses` is the seeded stream."""

    interval: Duration
    hold: Duration
    name: str = field(default="custom", compare=False)  #: the spec name it came from

    @property
    def constant(self) -> bool:
        """True when every press is timed alike: the seed then changes nothing."""
        return self.interval.constant and self.hold.constant

    def presses(self, seed: int) -> Iterator[PressTime]:
        """The endless stream of press times for ``seed`` (each hold, then its interval)."""
        rng = random.Random(f"press-timing:{seed}")
        while True:
            hold = self.hold.draw(rng)
            yield PressTime(hold, self.interval.draw(rng))

    def __str__(self) -> str:
        """The spec :func:`parse_timing` reads back to an equal timing."""
        # a bare number is exact under "fixed", so that form says every value as it is
        exact = any(d.constant and d.kind == _LOGNORMAL for d in (self.interval, self.hold))
        name = "human" if self.name == "human" and not exact else "fixed"
        return f"{name}:interval={self.interval},hold={self.hold}"


#: A person pressing a button: holds about 0.12 s and waits about 0.6 s, both log-normal.
HUMAN = PressTiming(Duration(_LOGNORMAL, 0.6, 0.5), Duration(_LOGNORMAL, 0.12, 0.3), name="human")
#: A machine pressing: a 0.1 s hold and a 0.5 s wait, always (the seed changes nothing).
FIXED = PressTiming(Duration.fixed(0.5), Duration.fixed(0.1), name="fixed")
_DEFAULTS = {"human": HUMAN, "fixed": FIXED}
_SPEC = "NAME[:interval=V,hold=V] with NAME human or fixed and V like 0.6, 0.6~0.5 or 0.2..1"


def parse_timing(spec: str) -> PressTiming:
    """A press timing from its compact form, e.g. ``human``, ``fixed``,
    ``human:interval=0.8,hold=0.12``, ``human:interval=0.2..1.5,hold=120ms~0.4``.

    ``human`` and ``fixed`` give the defaults (:data:`HUMAN`, :data:`FIXED`);
    ``interval`` (release to next press) and ``hold`` (press to release)
    override them. A value is seconds (``s`` or ``ms`` may follow): a bare
    number is the median with the default spread under ``human`` and exact
    under ``fixed``; ``MEDIAN~SPREAD`` is log-normal (``~0``: exact);
    ``LOW..HIGH`` is uniform. Raises a one-line :class:`TimingError`.
    """
    head, colon, rest = spec.strip().partition(":")
    name = head.strip().lower()
    base = _DEFAULTS.get(name)
    if base is None:
        raise TimingError(f"bad press timing {spec!r}: {name!r} is not human or fixed ({_SPEC})")
    if colon and not rest.strip():
        raise TimingError(f"bad press timing {spec!r}: nothing after the colon ({_SPEC})")
    parts = {"interval": base.interval, "hold": base.hold}
    seen: set[str] = set()
    for item in rest.split(",") if colon else []:
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in parts:
            raise TimingError(
                f"bad press timing {spec!r}: {item.strip()!r} is not KEY=VALUE ({_SPEC})"
            )
        if key in seen:
            raise TimingError(f"bad press timing {spec!r}: {key} is given twice")
        seen.add(key)
        try:
            parts[key] = _duration(value, parts[key], exact=name == "fixed")
        except TimingError as e:
            raise TimingError(f"bad press timing {spec!r}: {key}: {e}") from None
    return PressTiming(parts["interval"], parts["hold"], name=name)


def _duration(text: str, default: Duration, *, exact: bool) -> Duration:
    if ".." in text:
        lo, _, hi = text.partition("..")
        return Duration(_UNIFORM, _seconds(lo), _seconds(hi))
    if "~" in text:
        median, _, sigma = text.partition("~")
        return Duration(_LOGNORMAL, _seconds(median), _number(sigma, "a spread"))
    spread = 0.0 if exact or default.kind != _LOGNORMAL else default.b
    return Duration(_LOGNORMAL, _seconds(text), spread)


def _seconds(text: str) -> float:
    m = _NUMBER.match(text)
    if m is None:
        raise TimingError(f"{text.strip()!r} is not a duration such as 0.12, 120ms or 1.5s")
    value = float(m.group(1)) / (1000 if (m.group(2) or "").lower() == "ms" else 1)
    if value <= 0:
        raise TimingError(f"{text.strip()!r}: a duration is more than 0")
    return value


def _number(text: str, what: str) -> float:
    m = _NUMBER.match(text)
    if m is None or m.group(2):
        raise TimingError(f"{text.strip()!r} is not {what} such as 0.3")
    return float(m.group(1))


def depends_on_seed(
    outcome: Callable[[int], Sequence[object]], seeds: Sequence[int] = (0, 1)
) -> bool:
    """Whether a run's outcome changes with its seed: ``outcome(seed)`` for
    each of ``seeds`` (at least two), compared. False means every seed gives
    the same (a die whose faces do not depend on the seed, say so)."""
    if len(seeds) < 2:
        raise ValueError(f"compare at least two seeds, not {len(seeds)}")
    first = list(outcome(seeds[0]))
    return any(list(outcome(s)) != first for s in seeds[1:])
