"""The machinery of the seeded noise models: the protocols, keyed
generators, and per-press, per-channel streams.

A noise model is a deterministic callable ``model(channel) -> millivolts``
called once per ADC conversion. The chip rounds the value to whole
millivolts and simavr converts it with :func:`~fairdie.noise.code_for_mv`.

Optional methods:

``seek(press)``
    Start press number ``press`` (0-based; the die powers on once per press).
    After it, the press reads values that depend only on the seed, the press
    number and each conversion's index within the press (and, for a model of
    mains hum, the conversion's time), never on what was read before, so a
    campaign sharded over processes reads what one process reading every
    press in turn would. Without a ``seek`` a model reads press 0 on and on.
``next_values(channel, n)``
    The channel's next values in bulk: about ``n`` of them (a hint; at least
    one), as a sequence of millivolts (a float64 numpy array is taken as it
    is), the very values that as many calls of ``model(channel)`` would give,
    the model standing after them. A chip hands them to C and asks again
    when they run out: Python is called once per block, not per conversion.
    A model with it and a ``seek`` also has ``epoch``, a value that its
    ``seek`` and ``restore`` change: the chip then drops the values it holds
    ahead (the old position's) before its next run. Values must not depend
    on when they are asked for, so a model that needs time (Hum with a
    clock) gives one value per call.
``press_values(press, n, channel=0)``
    The first ``n`` values of press ``press`` on a channel, without moving
    the model: a press's noise where no chip runs (a reference model, a
    campaign's chain of presses). The seeded models have it.
``bind_clock(clock)``
    A model that needs time calls ``clock()`` at each conversion for the
    seconds since this press's power-on. Models that do not need it do not
    have it.

``snapshot()`` / ``restore(state)`` keep a model's position for
``Chip.snapshot``. Each channel of a seeded model reads its own stream, as
if no other channel were converted.

The seeded models draw from splitmix64 (Steele, Lea and Flood, 2014), whose
whole state is one integer, so a chip snapshot keeps a noise source's
position for the cost of an int; a generator keyed by a string costs one
hash. Its values come from C kernels (:class:`fairdie.sim.NoiseStream`)
that give exactly what the models' Python arithmetic gives, on every
machine: libm's log, cos and sin, as Python's math module calls them.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from fairdie.sim._noise import NoiseStream, Values

__all__ = [
    "BlockNoise",
    "NoiseModel",
    "Seeded",
    "SeekableNoise",
    "State",
    "Values",
    "check_count",
    "check_press",
    "check_vcc",
    "clip",
    "keyed",
    "keyed_starts",
]


class NoiseModel(Protocol):
    """``model(channel) -> millivolts``, called once per ADC conversion."""

    def __call__(self, channel: int) -> float: ...


@runtime_checkable
class SeekableNoise(NoiseModel, Protocol):
    """A noise model that reads the same press whatever came before it."""

    def seek(self, press: int) -> None: ...


@runtime_checkable
class BlockNoise(NoiseModel, Protocol):
    """A noise model that gives its values a block at a time (``next_values``)."""

    def next_values(self, channel: int, n: int) -> Any: ...


def check_vcc(vcc_mv: float) -> float:
    if isinstance(vcc_mv, bool) or not math.isfinite(vcc_mv) or vcc_mv <= 0:
        raise ValueError(f"vcc_mv must be a positive number, got {vcc_mv!r}")
    return float(vcc_mv)


def check_press(press: int) -> int:
    if isinstance(press, bool) or not isinstance(press, int) or press < 0:
        raise ValueError(f"press must be an integer >= 0, got {press!r}")
    return press


def check_count(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < 2**32:
        raise ValueError(f"n must be an integer 0..2**32-1, got {n!r}")
    return n


def clip(mv: float, vcc: float) -> float:
    return min(max(mv, 0.0), vcc)


def keyed(key: str, value: float = 0.0) -> NoiseStream:
    """A splitmix64 generator whose start is the first 8 bytes of the key's
    SHA-256 (carrying ``value``: see :class:`NoiseStream`)."""
    return NoiseStream(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little"), value)


def keyed_starts(prefix: str, suffixes: Iterable[str]) -> list[int]:
    """The starts of :func:`keyed` generators of the keys ``prefix + suffix``,
    one per suffix (the prefix hashed once)."""
    head = hashlib.sha256(prefix.encode())
    starts = []
    for suffix in suffixes:
        h = head.copy()
        h.update(suffix.encode())
        starts.append(int.from_bytes(h.digest()[:8], "little"))
    return starts


#: ``(press, ((channel, generator state, value, count), ...))``
State = tuple[int, tuple[tuple[int, int, float, int], ...]]

#: When a model is sought press after press, the first blocks of this many
#: presses are made at once (a press's values are the same; it costs less).
AHEAD = 32
#: Calls (a value each) are served from blocks of this many values.
CALL_BLOCK = 64


class Served:
    """Values made for calls on a channel, how many were served, and the
    stream's state before them (None: the press's start)."""

    __slots__ = ("at", "start", "values")

    def __init__(self, values: list[float], start: tuple[int, float, int] | None) -> None:
        self.values = values
        self.start = start
        self.at = 0


class Seeded:
    """A seeded model whose generators are keyed by (kind, seed, press, channel).

    A subclass gives :meth:`_fill` (the next values of a stream, from its
    kernel) and may give :meth:`_begin` (a stream's start, other than zero);
    calls, blocks and :meth:`press_values` all read through :meth:`_fill`.
    """

    #: The model's name in the generators' keys (fixed: a key is a sequence).
    kind: ClassVar[str]

    def __init__(self, seed: int, vcc_mv: float) -> None:
        self.seed = seed
        self.vcc_mv = check_vcc(vcc_mv)
        self.press = 0
        #: changed by every seek and restore (see the module)
        self.epoch = 0
        self._streams: dict[int, NoiseStream] = {}
        # per channel: presses' first blocks made ahead, and the last press started
        self._ahead: dict[int, dict[int, tuple[NoiseStream, Values]]] = {}
        self._started: dict[int, int] = {}
        self._served: dict[int, Served] = {}

    def seek(self, press: int) -> None:
        """Start press ``press``: its readings depend on nothing read before."""
        if press.__class__ is not int or press < 0:  # the common case at the cost of a test
            check_press(press)
        self.press = press
        if self._streams:
            self._streams.clear()
        if self._served:
            self._served.clear()
        self.epoch += 1

    def _begin(self, press: int, channel: int, stream: NoiseStream) -> None:
        """Set a channel's stream at the start of press ``press``."""

    def _fill(self, stream: NoiseStream, press: int, channel: int, n: int) -> Values:
        """The next ``n`` values of a stream of press ``press``."""
        raise NotImplementedError

    def _first_blocks(
        self, presses: range, channel: int, n: int
    ) -> list[tuple[NoiseStream, Values]]:
        """Each press's stream after its first ``n`` values on a channel, and
        those values: :meth:`_new_stream` then :meth:`_fill`, press by press
        (a subclass may make them in one pass)."""
        made = []
        for k in presses:
            s = self._new_stream(k, channel)
            made.append((s, self._fill(s, k, channel, n)))
        return made

    def _key(self, press: int, channel: int) -> str:
        """The key of a stream's generator: (kind, seed, press, channel)."""
        return f"fairdie.noise.{self.kind}:{self.seed}:{press}:{channel}"

    def _starts(self, presses: range, channel: int) -> list[int]:
        """The starts of the generators of ``presses`` on a channel: those of
        :func:`keyed` of their :meth:`_key`, in one pass."""
        return keyed_starts(
            f"fairdie.noise.{self.kind}:{self.seed}:", (f"{k}:{channel}" for k in presses)
        )

    def _new_stream(self, press: int, channel: int) -> NoiseStream:
        s = keyed(self._key(press, channel))
        self._begin(press, channel, s)
        return s

    def _stream(self, channel: int) -> NoiseStream:
        s = self._streams.get(channel)
        if s is None:
            s = self._streams[channel] = self._new_stream(self.press, channel)
        return s

    def __call__(self, channel: int) -> float:
        served = self._served.get(channel)
        if served is None or served.at == len(served.values):
            stream = self._streams.get(channel)
            start = None if stream is None else stream.state()
            block = self.next_values(channel, CALL_BLOCK)
            served = self._served[channel] = Served(block.tolist(), start)
        served.at += 1
        return served.values[served.at - 1]

    def next_values(self, channel: int, n: int) -> Values:
        """The channel's next ``n`` values (see the module)."""
        if self._served:
            served = self._served.pop(channel, None)
            if served is not None and served.at < len(served.values):  # made for calls
                return np.array(served.values[served.at :], dtype=np.float64)
        s = self._streams.get(channel)
        if s is not None:
            return self._fill(s, self.press, channel, max(1, n))
        # the first block of this press: made ahead, or now
        press = self.press
        ahead = self._ahead.get(channel)
        made = None if ahead is None else ahead.pop(press, None)
        if made is None:
            made = self._make_ahead(channel, max(1, n))
        self._started[channel] = press
        self._streams[channel], block = made
        return block

    def _make_ahead(self, channel: int, n: int) -> tuple[NoiseStream, Values]:
        """This press's stream and first block on a channel, made with those
        of the next presses (:data:`AHEAD`, kept) when the presses come in turn."""
        press = self.press
        ahead = self._ahead.setdefault(channel, {})
        ahead.clear()
        count = AHEAD if self._started.get(channel) == press - 1 else 1
        presses = range(press, press + count)
        ahead.update(zip(presses, self._first_blocks(presses, channel, n), strict=True))
        return ahead.pop(press)

    def press_values(self, press: int, n: int, channel: int = 0) -> Values:
        """The first ``n`` values of press ``press`` on ``channel``; the model
        does not move (see the module)."""
        check_press(press)
        return self._fill(self._new_stream(press, channel), press, channel, check_count(n))

    def snapshot(self) -> State:
        """The position in the noise sequence (``Chip.snapshot`` keeps it)."""
        return self.press, tuple([(n, *self._position(n, s)) for n, s in self._streams.items()])

    def _drop_served(self) -> None:
        """Forget the values made ahead for calls: each stream stands after
        the values served (for a model whose next values may change)."""
        for channel, stream in self._streams.items():
            self._streams[channel] = NoiseStream(*self._position(channel, stream))
        self._served.clear()

    def _position(self, channel: int, stream: NoiseStream) -> tuple[int, float, int]:
        """A channel's stream as it would be had it made only the values served."""
        served = self._served.get(channel)
        if served is None or served.at == len(served.values):
            return stream.state()
        if served.start is None:
            at = self._new_stream(self.press, channel)
        else:
            at = NoiseStream(*served.start)
        self._fill(at, self.press, channel, served.at)
        return at.state()

    def restore(self, state: State) -> None:
        press, streams = state
        self.seek(press)
        for n, rng, value, count in streams:
            self._streams[n] = NoiseStream(rng, value, count)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed}, vcc_mv={self.vcc_mv:g})"
