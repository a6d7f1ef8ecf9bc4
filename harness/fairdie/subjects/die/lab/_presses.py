"""What a campaign's presses read: each press's ADC codes, from a noise
model, as the chip would read them (see :class:`PressReader`)."""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from fairdie.noise import code_for_mv
from fairdie.subjects.die._models import DieModel

__all__ = ["HOLD_S", "PressReader", "code_table", "conversion_instants"]

#: a campaign's press: long enough for the face to show, short of anything else
HOLD_S = 0.1


def conversion_instants(die: Any) -> tuple[int, list[float]]:
    """The analog channel and the seconds after power-on at which one press of
    this (fresh) die converts: the firmware converts at the same instants
    at every press, as many as it needs (see :class:`PressReader`)."""
    die.set_noise("uniform")
    die.roll(HOLD_S)
    chip = die.chip
    start = chip.power_on_cycle
    log = chip.adc_log()
    channel = log[0].channel if log else 0
    return channel, [(a.cycle - start) / chip.frequency for a in log]


@functools.lru_cache(maxsize=8)
def _codes(vcc: int) -> tuple[int, ...]:
    """The code of each whole millivolt 0..vcc (made once a supply: every
    piece of a campaign reads through it)."""
    return tuple(code_for_mv(mv, vcc) for mv in range(vcc + 1))


def code_table(vcc: int) -> Callable[[float], int]:
    """``mv -> code`` as the chip converts (whole millivolts, then simavr's
    floor(mv * 1023 / vcc)), by table: the model run converts every reading."""
    table = _codes(vcc)

    def code(mv: float) -> int:
        m = round(mv)
        return table[m] if 0 <= m <= vcc else code_for_mv(m, vcc)

    return code


class PressReader:
    """Reads one press's codes from a noise model as the chip would: as many
    as the firmware's model converts, each (for a noise bound to a clock) at
    its instant after power-on. Conversions past those the probe press made
    are taken to follow at its mean spacing."""

    def __init__(
        self, noise: Any, model: DieModel, channel: int, instants: Sequence[float], vcc: int
    ) -> None:
        self._noise = noise
        self._model = model
        self._channel = channel
        self._instants = list(instants) or [0.0]
        n = len(self._instants)
        self._spacing = (self._instants[-1] - self._instants[0]) / (n - 1) if n > 1 else 0.0
        self._code = code_table(vcc)
        self._at = 0
        bind = getattr(noise, "bind_clock", None)
        if bind is not None:
            bind(self._now)
        # a press's values in bulk, where they do not depend on when they are read
        self._values = getattr(noise, "press_values", None) if bind is None else None
        self._codes = np.array(_codes(vcc), np.uint16)
        self._vcc = vcc

    def _now(self) -> float:
        return self.instant(self._at)

    def instant(self, i: int) -> float:
        """The seconds after power-on at which conversion ``i`` is taken."""
        last = len(self._instants) - 1
        return self._instants[i] if i <= last else self._instants[last] + (i - last) * self._spacing

    def read(self, start: int, count: int) -> list[int]:
        """Codes ``start .. start + count - 1`` of this press, read in turn
        after codes ``0 .. start - 1`` (seek the noise to the press first)."""
        out: list[int] = []
        for i in range(start, start + count):
            self._at = i
            out.append(self._code(self._noise(self._channel)))
        return out

    def press_codes(self, press: int, start: int, count: int) -> array[int]:
        """Codes ``start .. start + count - 1`` of press ``press`` (read in
        turn after codes ``0 .. start - 1``: the noise sought to the press
        first, for a noise that gives no press's values in bulk)."""
        if self._values is None:
            return array("H", self.read(start, count))
        mv = np.rint(self._values(press, start + count, self._channel)[start:])
        return array("H", self._codes[np.clip(mv, 0, self._vcc).astype(np.intp)].tobytes())

    def codes(self) -> list[int]:
        """This press's codes (seek the noise to the press first)."""
        out: list[int] = []

        def read() -> Iterator[int]:
            for i in range(self._model.reads):
                out.extend(self.read(i, 1))
                yield out[-1]

        self._model.conversions(read())
        return out
