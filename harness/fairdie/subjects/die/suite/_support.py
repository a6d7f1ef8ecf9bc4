"""What the die suite's test modules share: our boards, the marks of a test of
one rule and of a test that needs a build of its own, which tests a given
build cannot run, the model of a die that only declares counters, and
Hypothesis strategies of tables, EEPROM images and ADC codes for a die's model.

Nothing here imports the compiled binding: the suite's conftest uses it.
"""

from __future__ import annotations

import functools
import random
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np
import pytest
from hypothesis import strategies as st

from fairdie.errors import ToolchainError
from fairdie.noise.strategies import counters, noise_sequences
from fairdie.subjects.die import press as seed_press
from fairdie.subjects.die._board import die_spec, same_die
from fairdie.subjects.die._models import HEALTHY_CODES

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.subjects.die import Die
    from fairdie.subjects.die._model_host import HostModel
    from fairdie.subjects.die._models import DieModel

__all__ = [
    "BOARDS",
    "BUILD_MARK",
    "ERASED",
    "MODEL_MARK",
    "RECORD",
    "SLOTS",
    "Pressing",
    "SeedCountersAt",
    "checked_press",
    "clear_is_known",
    "images",
    "model_of",
    "needs_build",
    "needs_model",
    "not_for",
    "per_model",
    "press_codes",
    "pressing",
    "random_codes",
    "session_boards",
    "tables",
    "writes",
]

#: Our two product boards, both of whose builds follow the fair rule (the
#: seed's rule has its own board, die-seed, and tests: test_seed_rule.py).
BOARDS = ("die-direct", "die-charlieplex")
EEPROM_SIZE = 64  # the ATtiny13A's
ERASED = b"\xff" * EEPROM_SIZE
MODEL_MARK = "fairdie_model"
BUILD_MARK = "fairdie_build"
#: the parameters that name the board a test's die sits on
_BOARD_PARAMS = ("board", "seed_board")


_BOARDS: pytest.StashKey[Callable[[str], Board]] = pytest.StashKey()


def session_boards(config: pytest.Config) -> Callable[[str], Board]:
    """``load_board`` for the suite's collection hooks, each board loaded once
    a session (they ask for our boards once per test function)."""
    load = config.stash.get(_BOARDS, None)
    if load is None:
        from fairdie.board import load_board

        cached: Callable[[str], Board] = functools.cache(load_board)
        config.stash[_BOARDS] = load = cached
    return load


def needs_model(name: str) -> pytest.MarkDecorator:
    """Mark a test of one rule: it skips, saying why, unless the die it rolls
    (its ``board`` parameter's, else the session's) follows model ``name``."""
    return pytest.mark.fairdie_model(name)


def needs_build(*, board: str | None = None, f_cpu: int | None = None) -> pytest.MarkDecorator:
    """Mark a test that rolls a die of another build than its ``board``
    parameter names: one for ``board`` (a shipped name), or at ``f_cpu``."""
    return pytest.mark.fairdie_build(board=board, f_cpu=f_cpu)


def not_for(item: pytest.Item, given: Board, load: Callable[[str], Board]) -> str | None:
    """Why a test cannot run on the one build given for board ``given``: the
    build it needs (its board: a board parameter, a :func:`needs_build` mark,
    else the session's; its clock: the mark's, else the board's), when that is
    another; else, for a test of one rule, the rule ``given``'s die follows
    when it is another. None: the test runs on the build given."""
    from fairdie.subjects.die._die import board_model  # it loads the binding

    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    mark = item.get_closest_marker(BUILD_MARK)
    want = mark.kwargs if mark is not None else {}
    name = want.get("board") or next((params[p] for p in _BOARD_PARAMS if p in params), None)
    board = given if name is None else load(name)
    f_cpu = want.get("f_cpu") or board.f_cpu
    if not same_die(board, given) or f_cpu != given.f_cpu:
        return f"a build for {board.name} at {f_cpu} Hz"
    rule = item.get_closest_marker(MODEL_MARK)
    follows = board_model(given) or ("seed" if _counters(given) else None)
    if rule is not None and follows is not None and rule.args[0] != follows:
        return f"a die of the {rule.args[0]} rule"
    return None


def _counters(board: Board) -> bool:
    spec = die_spec(board)
    return spec is not None and spec.counters is not None


def model_of(die: Die) -> DieModel:
    """The model a die's presses must match (the suite's factory gives every
    die of ours one, and a die with bare counters the seed rule's)."""
    if die.model is None:
        pytest.skip(f"board {die.board.name}: the die follows no model and keeps no counters")
    return die.model


class SeedCountersAt:
    """The seed's rule on six byte counters at EEPROM ``address``: what the
    suite takes a die to follow that declares ``[die] counters = ADDRESS`` and
    names no model (at address 0 it is fairdie.subjects.die's seed model)."""

    name = "seed"
    reads = 1
    table_kind = "counts"

    def __init__(self, address: int, size: int = EEPROM_SIZE) -> None:
        if not 0 <= address <= size - 6:
            raise ValueError(f"six counters at {address} do not fit {size} bytes of EEPROM")
        self.address = address
        self.size = size
        self.footprint = range(address, address + 6)

    def _put(self, image: bytes, counts: Sequence[int]) -> bytes:
        a = self.address
        return image[:a] + bytes(counts) + image[a + 6 :]

    def table(self, image: bytes) -> tuple[int, ...]:
        return tuple(image[self.address : self.address + 6])

    def state(self, image: bytes) -> bytes:
        return bytes(self.table(image))

    def conversions(self, codes: Iterable[int]) -> int:
        return 1

    def step(self, state: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        code = next(iter(codes), None)
        if code is None:
            raise ValueError("a seed-rule press converts once, got no code")
        face, counts = seed_press(state, code)
        return face, bytes(counts)

    def press(self, image: bytes, codes: Iterable[int]) -> tuple[int | None, bytes]:
        face, counts = self.step(self.state(image), codes)
        return face, self._put(image, counts)

    def cleared(self, image: bytes) -> bytes:
        return self._put(image, bytes(6))

    def forcing(self, face: int) -> tuple[bytes, tuple[int, ...]]:
        # the least-counted face is candidate 0, which code 0 picks
        return self.with_table([0 if f == face else 1 for f in range(1, 7)]), (0,)

    def with_table(self, table: Sequence[int]) -> bytes:
        if len(table) != 6 or any(not 0 <= t <= 255 for t in table):
            raise ValueError(f"counters are six bytes 0..255, not {list(table)}")
        return self._put(b"\xff" * self.size, table)

    def __repr__(self) -> str:
        return f"SeedCountersAt({self.address})"


#: The fair rule's ring (store.S): 10 slots of 6-byte records, gate last.
RECORD, SLOTS = 6, 10


def clear_is_known(model: DieModel, before: bytes, after: bytes) -> bool:
    """Whether the model's clear of ``after`` is the firmware's clear after a
    press from ``before`` to ``after``. The firmware clears the press's record
    (in RAM), the model the record the image loads: under the fair rule they
    differ when the press's record is not the ring's newest, as in a ring
    whose records span more than 15 seqs, which only a corrupted image holds
    (the ring then recovers: fairdie.subjects.die.faults, campaign G5). Then the
    model's clear does not go to the slot after the press's (each save ends with its gate).
    A press that saved nothing clears the record it loaded, as the model does."""
    if model.name != "fair":
        return True
    roll, clear = writes(before, after), writes(after, model.cleared(after))
    if not roll:  # no save (the noise failed the health tests): it clears what it loaded
        return True
    return bool(clear) and clear[-1][0] // RECORD == (roll[-1][0] // RECORD + 1) % SLOTS


def writes(before: bytes, after: bytes) -> list[tuple[int, int, int]]:
    """``(address, old, new)`` of every byte that differs, in address order:
    the writes of a save that skips unchanged bytes (``eeprom_update_byte``)."""
    return [(a, b, c) for a, (b, c) in enumerate(zip(before, after, strict=True)) if b != c]


# ---- strategies ------------------------------------------------------------------------


_T = TypeVar("_T")


def per_model(make: Callable[[DieModel], _T]) -> Callable[[DieModel], _T]:
    """``make``, its answer kept for each model (by identity): for strategies,
    which Hypothesis validates each time one is made, at more cost than a draw."""
    made: dict[int, tuple[DieModel, _T]] = {}

    @functools.wraps(make)
    def get(model: DieModel) -> _T:
        hit = made.get(id(model))
        if hit is None or hit[0] is not model:
            hit = made[id(model)] = (model, make(model))
        return hit[1]

    return get


@per_model
def tables(model: DieModel) -> st.SearchStrategy[tuple[int, ...]]:
    """Tables ``Die.set_counts`` takes: six offsets 0..3 for the fair rule,
    six counters 0..255 leaning to the edges for the seed's."""
    if model.name == "fair":
        return st.tuples(*[st.integers(0, 3)] * 6)
    return counters(edges=True)


@per_model
def press_codes(model: DieModel) -> st.SearchStrategy[tuple[int, ...]]:
    """The codes of one press: ``model.reads`` of them, leaning to what breaks
    a rule that trusts its noise (a stuck pin, the rails, alternation); each
    list of codes drawn one by one as one byte string (the fair rule's press
    reads up to 256: 256 Hypothesis choices a press cost more than its
    simulation)."""
    n = model.reads
    return noise_sequences(min_size=n, max_size=n, compact=True).map(tuple)


def random_codes(rnd: random.Random, n: int) -> list[int]:
    """``n`` codes uniform over 0..1023 from ``rnd``, as ``rnd.randrange(1024)``
    would give (but not the same ones): the low 10 bits of little-endian 16-bit
    words of ``rnd.randbytes``, one call for them all."""
    codes: list[int] = (np.frombuffer(rnd.randbytes(2 * n), dtype="<u2") & 0x3FF).tolist()
    return codes


def _host(model: DieModel) -> HostModel | None:
    """``model`` in C (fairdie.subjects.die._model_host, held to the Python
    model press for press), where it has a port and the host a C compiler."""
    from fairdie.subjects.die._model_host import PORTS
    from fairdie.subjects.die._models import MODELS

    ported = model.name in PORTS and MODELS.get(model.name) == model
    return _host_of(model.name) if ported else None


@functools.cache
def _host_of(name: str) -> HostModel | None:
    from fairdie.subjects.die._model_host import host_model
    from fairdie.subjects.die._models import MODELS

    try:
        return host_model(MODELS[name])
    except ToolchainError:
        return None


class Pressing(Protocol):
    """What a press-by-press check needs of a model: its name, the most codes
    and how many of given codes a press converts, and the press."""

    @property
    def name(self) -> str: ...

    @property
    def reads(self) -> int: ...

    def conversions(self, codes: Iterable[int]) -> int: ...

    def press(self, image: bytes, codes: Sequence[int]) -> tuple[int | None, bytes]: ...


@dataclass(frozen=True)
class _InC:
    host: HostModel

    @property
    def name(self) -> str:
        return self.host.name

    @property
    def reads(self) -> int:
        return self.host.reads

    def conversions(self, codes: Iterable[int]) -> int:
        return self.host.digest(array("H", codes))[1]

    def press(self, image: bytes, codes: Sequence[int]) -> tuple[int | None, bytes]:
        return self.host.press(image, codes)

    def checked(self, image: bytes, codes: Sequence[int]) -> tuple[int, int | None, bytes]:
        """:func:`checked_press`, from one digest of the codes (the press's
        digest depends on the codes it converts alone)."""
        words = array("H", codes)
        words.extend(_HEALTHY_WORDS)
        digest, wanted = self.host.digest(words)
        if wanted != len(codes):
            return wanted, None, image
        return wanted, *self.host.apply(image, digest)


_HEALTHY_WORDS = array("H", HEALTHY_CODES)


@per_model
def pressing(model: DieModel) -> Pressing:
    """The model's presses in C where it has a port (held to the Python model
    press for press: the same answers, faster), for a test that checks the
    firmware against them; else the model itself. One per model."""
    host = _host(model)
    return model if host is None else _InC(host)


def checked_press(
    model: Pressing, image: bytes, codes: Sequence[int]
) -> tuple[int, int | None, bytes]:
    """``(wanted, face, after)`` of a press that converted ``codes``: how
    many of them, then healthy codes, the model's press converts, and when
    that is all of them (the press converted what the model's would) the face
    and image its press leaves from ``image``; else ``(wanted, None, image)``."""
    if isinstance(model, _InC):
        return model.checked(image, codes)
    wanted = model.conversions([*codes, *HEALTHY_CODES])
    if wanted != len(codes):
        return wanted, None, image
    return wanted, *model.press(image, codes)


def _pressed(model: DieModel, image: bytes, codes: list[int], presses: int) -> bytes:
    """``image`` after ``presses`` of the model's presses, press k reading
    ``codes[k * model.reads:]``: in C where the model has a port (the same
    images, faster), else the model's own."""
    n = model.reads
    host = _host(model)
    if host is None:
        for k in range(presses):
            image = model.press(image, codes[k * n : (k + 1) * n])[1]
        return image
    words = array("H", codes)
    digests = array("i", [host.digest(words[k * n : (k + 1) * n])[0] for k in range(presses)])
    return host.chain(image, digests)[1]


@per_model
def _edits(model: DieModel) -> st.SearchStrategy[list[tuple[int, int]]]:
    """Up to three bytes of the model's footprint, overwritten (by :func:`images`)."""
    return st.lists(st.tuples(st.sampled_from(model.footprint), st.integers(0, 255)), max_size=3)


@st.composite
def images(draw: st.DrawFn, model: DieModel) -> bytes:
    """EEPROM images a die may hold: any bytes, or a table's image with any
    bytes outside the model's footprint; after up to 120 of the model's
    presses (for the fair rule: the ring part-filled, wrapped, its laps
    turned over, its first record written over leftover bytes); with a few
    bytes inside the footprint overwritten (torn or corrupt records)."""
    size = EEPROM_SIZE
    image = draw(st.binary(min_size=size, max_size=size))
    if draw(st.booleans()):
        table = model.with_table(draw(tables(model)))
        inside = model.footprint
        image = bytes(table[i] if i in inside else b for i, b in enumerate(image))
    # one draw seeds the presses' noise: a few choices to shrink, not thousands
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    presses = draw(st.integers(0, 120))
    image = _pressed(model, image, random_codes(rnd, presses * model.reads), presses)
    out = bytearray(image)
    for address, value in draw(_edits(model)):
        out[address] = value
    return bytes(out)
