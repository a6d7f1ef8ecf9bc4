"""The adversarial noise source: it knows the firmware and the table.

Before each press it is shown the chip's EEPROM image; it tries a menu of
readings for the press (every rail, alternations, steps, and seeded random
patterns) through the firmware's reference model, and feeds the chip the
one whose face is the most counted of those it can reach (the most unfair
choice), the lowest such face on a tie (the most predictable one). It
needs the firmware's reference model, so it lives in the lab, not in
:mod:`fairdie.noise`. Campaigns play it in C
(:meth:`fairdie.subjects.die._model_host.HostModel.adversary`, the same
menus and choice); this class is its reference, and plays any model.
"""

from __future__ import annotations

import random
from array import array

from fairdie.noise import mv_table
from fairdie.subjects.die._models import DieModel

__all__ = ["TRIES", "Adversary", "menu_key"]

_MAX = 1023
#: the seeded code sets the adversary tries per press, beside its six fixed ones
TRIES = 12


def menu_key(seed: int, press: int) -> str:
    """The key of press ``press``'s seeded code sets (``random.Random(key)``)."""
    return f"fairdie.subjects.die.lab.Adversary:{seed}:{press}"


class Adversary:
    """Noise chosen press by press to make the die unfair (see the module)."""

    def __init__(self, model: DieModel, seed: int, vcc_mv: float, *, tries: int = TRIES) -> None:
        self.model = model
        self.seed = seed
        self.vcc_mv = vcc_mv
        self.tries = tries
        self._press = 0
        self._mv: list[float] = [0.0]
        self._next = 0

    def _menu(self) -> list[tuple[int, ...]]:
        n = self.model.reads
        fixed = [
            (0,) * n,
            (_MAX,) * n,
            tuple(_MAX * (i % 2) for i in range(n)),
            tuple(_MAX * (1 - i % 2) for i in range(n)),
            tuple(i % 4 for i in range(n)),
            tuple(range(n)),
        ]
        rng = random.Random(menu_key(self.seed, self._press))
        # uniform codes: the low 10 bits of random 16-bit words (no Python call per code)
        return fixed + [
            tuple(map(_MAX.__and__, array("H", rng.randbytes(2 * n)))) for _ in range(self.tries)
        ]

    def seek(self, press: int) -> None:
        self._press = press

    def prepare(self, image: bytes) -> tuple[int, ...]:
        """Choose this press's codes for the chip whose EEPROM is ``image``."""
        table = self.model.table(image)
        best: tuple[tuple[int, int], tuple[int, ...]] | None = None
        for codes in self._menu():
            face = self.model.press(image, codes)[0]
            if face is None:  # fails the health tests: no face to steer
                continue
            score = (table[face - 1], -face)
            if best is None or score > best[0]:
                best = (score, codes)
        assert best is not None
        mv = mv_table(self.vcc_mv)
        self._mv = [mv[c] for c in best[1]]
        self._next = 0
        return best[1]

    def __call__(self, channel: int) -> float:
        mv = self._mv[min(self._next, len(self._mv) - 1)]
        self._next += 1
        return mv

    def __repr__(self) -> str:
        return f"Adversary(model={self.model.name!r}, seed={self.seed})"
