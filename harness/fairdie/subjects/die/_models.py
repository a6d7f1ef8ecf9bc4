"""Reference models of our die's builds: what a press does to the EEPROM.

A model takes an EEPROM image and the ADC codes a press converted, and gives
the face and the image after, exactly as the firmware does; the chip is
checked against it press by press. Each build of die_t13a names its model in
target.toml (``model = "fair"`` or ``"seed"``).

- ``fair``: the default rule (fairdie.subjects.die._fair) and its ring of records
  (fairdie.subjects.die._ring). Its table is six offsets 0..3 above the least-counted
  face.
- ``seed``: the seed's rule (fairdie.subjects.die._rule) on six byte counters at
  EEPROM 0..5, one code per press.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from fairdie.subjects.die import _fair, _ring, _rule

__all__ = [
    "CLEARED_BY_S",
    "HEALTHY_CODES",
    "KEPT_UNDER_S",
    "MODELS",
    "DieModel",
    "FairModel",
    "SeedModel",
    "conversion_mismatch",
    "model_named",
    "press_mismatch",
]

ERASED = b"\xff" * 64
#: a press held this long must have cleared the table; one held this long or
#: less must not have (the firmware clears after 155 watchdog ticks, 9.92 s)
CLEARED_BY_S, KEPT_UNDER_S = 10.05, 9.9
#: Codes any build's press takes as healthy noise: all different, each pair's
#: low bits 1 then 0, so every pair gives a fresh bit.
HEALTHY_CODES = tuple((i * 389 + 7) % 1024 for i in range(_fair.MOST_READS))


class DieModel(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def reads(self) -> int:
        """The most ADC conversions a press makes."""
        ...

    @property
    def table_kind(self) -> str:
        """What :meth:`table`'s numbers are: ``"counts"`` (presses per face) or
        ``"offsets"`` (each face's count above the least-shown face's)."""
        ...

    def conversions(self, codes: Iterable[int]) -> int:
        """How many of ``codes`` (read in turn, as the ADC gives them) a press
        converts: it depends on the codes alone, never on the EEPROM."""
        ...

    @property
    def footprint(self) -> range:
        """EEPROM bytes the firmware may write."""
        ...

    def table(self, image: bytes) -> tuple[int, ...]:
        """The six numbers the die keeps for faces 1..6."""
        ...

    def state(self, image: bytes) -> bytes:
        """What the image holds, canonically: two images with the same state
        show the same faces for the same noise from now on."""
        ...

    def step(self, state: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        """``(face, state after)`` of a press from ``state`` (the rule alone:
        :meth:`press` also stores it)."""
        ...

    def press(self, image: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        """``(face 1..6, image after)`` for a press that read ``codes`` (the
        first :meth:`conversions` of them); ``(None, image)`` when the noise
        failed the firmware's health tests: no face, nothing stored."""
        ...

    def cleared(self, image: bytes) -> bytes:
        """The image after the 10 s clear."""
        ...

    def forcing(self, face: int) -> tuple[bytes, tuple[int, ...]]:
        """An image and the codes that make the next press show ``face``."""
        ...

    def with_table(self, table: Sequence[int]) -> bytes:
        """A fresh image holding this table."""
        ...


@dataclass(frozen=True)
class FairModel:
    name: str = "fair"
    reads: int = _fair.MOST_READS
    table_kind: str = "offsets"
    footprint: range = range(_ring.SLOTS * _ring.RECORD)

    def conversions(self, codes: Iterable[int]) -> int:
        return _fair.sampled(codes).reads

    def table(self, image: bytes) -> tuple[int, ...]:
        return _fair.offsets(_fair.unpack(_ring.load(image).state)[0])

    def state(self, image: bytes) -> bytes:
        return _fair.canonical(_ring.load(image).state)

    def step(self, state: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        face, after = _fair.press(state, codes)
        return face, _fair.canonical(after)

    def press(self, image: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        face, state = _fair.press(_ring.load(image).state, codes)
        return face, image if face is None else _ring.save(image, state)

    def cleared(self, image: bytes) -> bytes:
        state = _ring.load(image).state
        return _ring.save(image, bytes((0, state[1] & 0xF0, state[2])))

    def forcing(self, face: int) -> tuple[bytes, tuple[int, ...]]:
        # only the face at offset 0 has any weight: any healthy noise picks it
        return self.with_table([0 if f == face else 3 for f in range(1, 7)]), HEALTHY_CODES

    def with_table(self, table: Sequence[int]) -> bytes:
        if len(table) != 6 or any(not 0 <= t <= 3 for t in table):
            raise ValueError(f"a fair table is six offsets 0..3, not {list(table)}")
        packed = sum(t << (2 * f) for f, t in enumerate(table))
        return _ring.save(ERASED, _fair.pack((packed, 1)))


@dataclass(frozen=True)
class SeedModel:
    name: str = "seed"
    reads: int = 1
    table_kind: str = "counts"
    footprint: range = range(6)

    def conversions(self, codes: Iterable[int]) -> int:
        if next(iter(codes), None) is None:
            raise ValueError("a seed-rule press converts once, got no code")
        return 1

    def table(self, image: bytes) -> tuple[int, ...]:
        return tuple(image[:6])

    def state(self, image: bytes) -> bytes:
        return bytes(image[:6])

    def step(self, state: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        face, counts = self.press(state, codes)
        return face, counts[:6]

    def press(self, image: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        code = next(iter(codes), None)
        if code is None:
            raise ValueError("a seed-rule press converts once, got no code")
        face, counts = _rule.press(image[:6], code)
        return face, bytes(counts) + image[6:]

    def cleared(self, image: bytes) -> bytes:
        return bytes(6) + image[6:]

    def forcing(self, face: int) -> tuple[bytes, tuple[int, ...]]:
        # the least-counted face is candidate 0, which code 0 picks
        return bytes(0 if f == face else 1 for f in range(1, 7)) + ERASED[6:], (0,)

    def with_table(self, table: Sequence[int]) -> bytes:
        return bytes(table) + ERASED[6:]


MODELS: dict[str, DieModel] = {"fair": FairModel(), "seed": SeedModel()}


def conversion_mismatch(model: DieModel, codes: Sequence[int]) -> str | None:
    """None when a press of ``model`` converts exactly ``codes`` (what a chip
    converted in a press), else why not, in words."""
    try:
        wanted = model.conversions(codes)
    except ValueError:
        wanted = None
    if wanted == len(codes):
        return None
    more = "more" if wanted is None else str(wanted)
    return f"the firmware converted {len(codes)} times, its {model.name} model {more}"


def press_mismatch(
    model: DieModel,
    before: bytes,
    codes: Sequence[int],
    face: int | None,
    after: bytes,
    hold: float | None = None,
) -> str | None:
    """None when a press is ``model``'s: from the image ``before``, converting
    ``codes``, it showed ``face`` (None: no face) and left ``after``, or, held
    ``hold`` s past :data:`KEPT_UNDER_S`, the model's clear of it (held
    :data:`CLEARED_BY_S` or longer, only that); else why not, in words."""
    wrong = conversion_mismatch(model, codes)
    if wrong is not None:
        return wrong
    want_face, want = model.press(before, codes)
    if face != want_face:
        return f"it showed {_shown(face)}, the model {_shown(want_face)}"
    got = after[: len(want)]
    if got == want and (hold is None or hold < CLEARED_BY_S):
        return None  # the common case, decided without the clear
    cleared = model.cleared(want)[: len(want)]
    if got == want == cleared:
        return None
    if got == cleared and (hold is None or hold > KEPT_UNDER_S):
        return None
    if hold is not None and got in (want, cleared):
        done = "kept" if got == want else "cleared"
        return f"held {hold:g} s, it {done} the table; the model clears it after 10 s"
    at = next(i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w)
    return (
        f"it left EEPROM byte {at} at 0x{got[at]:02X} (table {list(model.table(after))}),"
        f" the model 0x{want[at]:02X} (table {list(model.table(want))})"
    )


def _shown(face: int | None) -> str:
    return "the fault pattern" if face is None else f"face {face}"


def model_named(name: str) -> DieModel:
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"no die model {name!r} (models: {', '.join(MODELS)})") from None
