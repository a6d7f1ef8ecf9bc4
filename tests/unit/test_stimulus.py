"""Press timing: the compact spec, seeded streams, the distributions' shapes."""

from __future__ import annotations

import itertools
import math
import pickle
import statistics

import pytest

from fairdie.errors import FairdieError
from fairdie.stimulus import (
    FIXED,
    HUMAN,
    Duration,
    PressTime,
    PressTiming,
    TimingError,
    depends_on_seed,
    parse_timing,
)


def take(timing: PressTiming, seed: int, n: int = 2000) -> list[PressTime]:
    return list(itertools.islice(timing.presses(seed), n))


def test_the_named_timings() -> None:
    assert parse_timing("human") == HUMAN and parse_timing(" Fixed ") == FIXED
    assert not HUMAN.constant and FIXED.constant
    assert str(HUMAN) == "human:interval=0.6~0.5,hold=0.12~0.3"
    assert str(FIXED) == "fixed:interval=0.5,hold=0.1"


@pytest.mark.parametrize(
    ("spec", "interval", "hold"),
    [
        (
            "human:interval=0.8,hold=0.12",
            Duration("lognormal", 0.8, 0.5),
            Duration("lognormal", 0.12, 0.3),
        ),
        ("human:hold=120ms", HUMAN.interval, Duration("lognormal", 0.12, 0.3)),
        ("human:interval=0.2..1.5s", Duration("uniform", 0.2, 1.5), HUMAN.hold),
        ("human:interval=1~0", Duration.fixed(1), HUMAN.hold),
        ("fixed:interval=0.8,hold=0.2", Duration.fixed(0.8), Duration.fixed(0.2)),
        ("fixed:hold=0.1~0.4", FIXED.interval, Duration("lognormal", 0.1, 0.4)),
        ("HUMAN:HOLD=50ms..0.2", HUMAN.interval, Duration("uniform", 0.05, 0.2)),
    ],
)
def test_specs_and_their_round_trip(spec: str, interval: Duration, hold: Duration) -> None:
    timing = parse_timing(spec)
    assert (timing.interval, timing.hold) == (interval, hold)
    assert parse_timing(str(timing)) == timing
    assert pickle.loads(pickle.dumps(timing)) == timing


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("robot", "'robot' is not human or fixed"),
        ("human:", "nothing after the colon"),
        ("human:speed=1", "'speed=1' is not KEY=VALUE"),
        ("human:hold", "'hold' is not KEY=VALUE"),
        ("human:hold=0.1,hold=0.2", "hold is given twice"),
        ("human:hold=fast", "hold: 'fast' is not a duration such as 0.12"),
        ("human:hold=0", "hold: '0': a duration is more than 0"),
        ("human:hold=-1", "is not a duration"),
        ("human:hold=0.1~x", "hold: 'x' is not a spread such as 0.3"),
        ("human:hold=0.1~3", "a spread is at most 2"),
        ("human:interval=2..1", "the shortest is longer than the longest"),
        ("human:interval=4000", "longer than 3600 s"),
        ("human:interval=nan", "is not a duration"),
    ],
)
def test_bad_specs_fail_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(TimingError, match=message) as e:
        parse_timing(spec)
    assert isinstance(e.value, FairdieError) and "\n" not in str(e.value)
    assert str(e.value).startswith(f"bad press timing {spec!r}: ")


def test_a_seed_gives_one_stream_and_another_seed_another() -> None:
    assert take(HUMAN, 1, 50) == take(HUMAN, 1, 50)
    assert take(HUMAN, 1, 50) != take(HUMAN, 2, 50)
    assert take(FIXED, 1, 50) == take(FIXED, 2, 50) == [PressTime(0.1, 0.5)] * 50


def test_draws_follow_their_distributions() -> None:
    presses = take(HUMAN, 7, 4000)
    holds = [p.hold for p in presses]
    assert statistics.median(holds) == pytest.approx(0.12, rel=0.05)
    assert statistics.median(p.interval for p in presses) == pytest.approx(0.6, rel=0.05)
    # the log of a log-normal draw is normal with the spread as its deviation
    assert statistics.stdev(math.log(h) for h in holds) == pytest.approx(0.3, rel=0.08)
    uniform = take(parse_timing("fixed:interval=0.2..0.4"), 7, 4000)
    assert min(p.interval for p in uniform) >= 0.2 and max(p.interval for p in uniform) <= 0.4
    assert statistics.mean(p.interval for p in uniform) == pytest.approx(0.3, rel=0.02)
    wild = take(parse_timing("human:hold=0.002~2"), 7, 4000)
    assert all(0.001 <= p.hold <= 3600 for p in wild) and min(p.hold for p in wild) == 0.001


def test_a_duration_checks_itself() -> None:
    with pytest.raises(TimingError, match="lognormal or uniform, not 'normal'"):
        Duration("normal", 1.0)
    with pytest.raises(TimingError, match="finite and >= 0"):
        Duration("uniform", -1.0, 1.0)


def test_depends_on_seed() -> None:
    assert depends_on_seed(lambda s: take(HUMAN, s, 5))
    assert not depends_on_seed(lambda s: take(FIXED, s, 5), seeds=(0, 1, 2))
    assert depends_on_seed(lambda s: [s > 1], seeds=(0, 1, 2))
    with pytest.raises(ValueError, match="at least two seeds"):
        depends_on_seed(lambda s: [s], seeds=(0,))
