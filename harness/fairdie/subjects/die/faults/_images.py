"""The starting images of the power-cut campaigns, by the die's model.

Every model gets: an erased chip, all zeros, seeded junk, the tables at the
edges of its rule, the images that presses from an erased chip leave (over
a whole lap of the storage and across its wrap), those images cleared, and
images that a cut in the middle of a save leaves. The fair rule adds its
pool's edges and images in the ring's previous layout (12 records of 5
bytes), as a chip updated to this firmware holds them.
"""

from __future__ import annotations

import random
import sys
from array import array
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from fairdie._recent import Recent
from fairdie.noise import ADC_MAX
from fairdie.subjects.die import _fair, _ring
from fairdie.subjects.die._models import DieModel

if TYPE_CHECKING:
    from fairdie.subjects.die._model_host import HostModel

__all__ = [
    "ERASED",
    "codes_for",
    "draw_press",
    "edge_images",
    "every_value_images",
    "random_codes",
    "random_press",
    "start_images",
    "walk",
]

ERASED = b"\xff" * 64

#: images of the ring's previous layout (12 slots of 5 bytes, a marker whose
#: bit 7 was the lap's parity) after 3, 17 and 38 presses from an erased chip
_OLD_RING = (
    "00005477780101d4ee61020574ae06ffffffffffffffffffffffffffffffffff"
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "108da44cae11cdc46fac12cd95cddc13ce65d2b114896073d5050090034d0640"
    "b0c16c078090bd7108845076710988902f650a89b0c1290b89d4e469ffffffff",
    "30106028b331507003c92251402a42235161844c245195182325515659202661"
    "b65a7027a1b67c172850a1797b296001bf2c2a60c5ba6e2b61557430ffffffff",
)

_SEED_EDGES = (
    (254, 255, 255, 255, 255, 255),  # a rebase (the seed's 4th write)
    (255,) * 6,
    (0,) * 6,
    (254,) * 6,
    (253, 254, 255, 0, 1, 2),
    (255, 0, 0, 0, 0, 0),
    (0, 255, 255, 255, 255, 255),
    (100, 200, 255, 7, 255, 9),
)

_FAIR_TABLES = (
    (0, 0, 0, 0, 0, 0),
    (3, 3, 3, 3, 3, 0),  # one face left: it is forced
    (0, 3, 3, 3, 3, 3),
    (2, 2, 2, 2, 2, 0),
    (1, 2, 3, 0, 1, 2),
    (3, 3, 3, 0, 0, 0),
    (2, 1, 0, 0, 1, 2),
)
_FAIR_POOLS = (1, 0xFFF, 0x800, 0)


#: per model, the starting image whose next press crosses the storage's edge:
#: the fair ring's wrap (a whole lap written, the next save goes to slot 0 of
#: the next lap), the seed's rebase (a counter at 255)
_EDGE = {"fair": f"{_ring.SLOTS} presses", "seed": f"counts {list(_SEED_EDGES[0])}"}


def every_value_images(model: DieModel) -> tuple[str, ...]:
    """The starting images whose presses the quick tier cuts with every torn
    value: an erased chip, and the press across the storage's edge."""
    edge = _EDGE.get(model.name)
    return ("erased",) if edge is None else ("erased", edge)


def codes_for(
    model: DieModel, state: bytes, face: int, rng: random.Random
) -> tuple[int, ...] | None:
    """Codes that make a press from ``state`` show ``face`` (None: none found)."""
    for _ in range(400):
        codes = random_codes(model, rng)
        if model.step(state, codes)[0] == face:
            return codes
    return None


def random_codes(
    model: DieModel, rng: random.Random, host: HostModel | None = None
) -> tuple[int, ...]:
    """Uniform random codes, as many as a press of ``model`` converts from
    them (counted by ``host``, the model in C, where it has a port)."""
    return random_press(model, rng, host)[0]


@cache
def _low_bits(words: int) -> int:
    """ADC_MAX in each of ``words`` little-endian 16-bit words, as one integer."""
    return int.from_bytes(ADC_MAX.to_bytes(2, "little") * words, "little")


def random_press(
    model: DieModel, rng: random.Random, host: HostModel | None = None
) -> tuple[tuple[int, ...], int | None]:
    """:func:`random_codes`, and the press's digest (``HostModel.digest``;
    None without ``host``)."""
    drawn, n, digest = draw_press(model, rng, host)
    return tuple(drawn[:n]), digest


def draw_press(
    model: DieModel, rng: random.Random, host: HostModel | None = None
) -> tuple[array[int], int, int | None]:
    """:func:`random_press` before its codes are made a tuple: the codes
    drawn (array "H", as many as a press may convert), how many the press
    converts, and its digest (None without ``host``)."""
    # the low 10 bits of random little-endian 16-bit words, the most a press converts:
    # masked as one integer (a press's few microseconds, over G5's tens of thousands)
    size = 2 * model.reads
    words = int.from_bytes(rng.randbytes(size), "little") & _low_bits(model.reads)
    drawn = array("H", words.to_bytes(size, "little"))
    if sys.byteorder == "big":
        drawn.byteswap()
    if host is None:
        return drawn, model.conversions(drawn), None
    digest, n = host.digest(drawn)
    return drawn, n, digest


def walk(model: DieModel, presses: int, seed: int) -> list[bytes]:
    """The images ``presses`` seeded presses from an erased chip leave, in turn."""
    rng = random.Random(seed)
    image, out = ERASED, []
    for _ in range(presses):
        image = model.press(image, [rng.randrange(1024) for _ in range(model.reads)])[1]
        out.append(image)
    return out


def _edges(model: DieModel) -> list[tuple[str, bytes]]:
    if model.name == "fair":
        out = []
        for table in _FAIR_TABLES:
            packed = sum(t << (2 * f) for f, t in enumerate(table))
            for pool in _FAIR_POOLS if table == _FAIR_TABLES[0] else _FAIR_POOLS[:1]:
                state = _fair.pack((packed, pool))
                out.append(
                    (f"table {''.join(map(str, table))} pool {pool:03x}", _ring.save(ERASED, state))
                )
        out += [(f"old layout {i}", bytes.fromhex(h)) for i, h in enumerate(_OLD_RING)]
        return out
    if model.name == "seed":
        return [(f"counts {list(t)}", model.with_table(t)) for t in _SEED_EDGES]
    return []


def _mid_save(model: DieModel, image: bytes, codes: Sequence[int]) -> list[tuple[str, bytes]]:
    """Images a cut leaves inside the save of a press from ``image``: after
    each write but the last, the next byte torn to 0x00, 0xFF or its new
    value with bit 7 flipped (model-level: the campaigns cut the chip)."""
    after = model.press(image, codes)[1]
    diff = [a for a in range(len(image)) if image[a] != after[a]]
    out = []
    for k, a in enumerate(diff):
        for torn in (0x00, 0xFF, after[a] ^ 0x80):
            cut = bytearray(image)
            for b in diff[:k]:
                cut[b] = after[b]
            cut[a] = torn
            out.append((f"mid-save byte {a} torn {torn:02x}", bytes(cut)))
    return out


def _first_images(model: DieModel, rng: random.Random) -> list[tuple[str, bytes]]:
    """What :func:`start_images` begins with: an erased chip, all zeros, two of
    junk, then the images at the edges of the rule."""
    return [
        ("erased", ERASED),
        ("zeros", bytes(64)),
        ("junk 0", rng.randbytes(64)),
        ("junk 1", rng.randbytes(64)),
        *_edges(model),
    ]


def _unique(images: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """Each image once, under its first name, in the order first seen."""
    unique: dict[bytes, str] = {}
    for name, image in images:
        unique.setdefault(image, name)
    return [(n, i) for i, n in unique.items()]


def edge_images(model: DieModel, *, seed: int = 0) -> list[tuple[str, bytes]]:
    """Of :func:`start_images`, the erased chip, all zeros and the images at
    the edges of the rule, in its order, without the presses it walks for the rest."""
    first = _unique(_first_images(model, random.Random(seed)))
    return [(n, i) for n, i in first if not n.startswith("junk")]


#: per process: (model, seed) -> its starting images (each campaign plans from them)
_STARTS: Recent[tuple[DieModel, int], tuple[tuple[str, bytes], ...]] = Recent(16)


def start_images(model: DieModel, *, seed: int = 0) -> list[tuple[str, bytes]]:
    """At least 40 named starting images for ``model``: walked once a process
    (hundreds of presses of the model in Python) for each model and seed."""
    key = (model, seed)
    try:
        hash(key)
    except TypeError:  # a model that cannot be a key: made each time
        return _start_images(model, seed)
    return list(_STARTS.get(key, lambda: tuple(_start_images(model, seed))))


def _start_images(model: DieModel, seed: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    out = _first_images(model, rng)
    lap = walk(model, 90, seed)
    for n in (1, 2, 3, 5, 9, 10, 11, 19, 20, 40, 79, 80, 81, 89):
        out.append((f"{n} presses", lap[n - 1]))
    for n in (1, 10, 80):
        out.append((f"{n} presses, cleared", model.cleared(lap[n - 1])))
    codes = [rng.randrange(1024) for _ in range(model.reads)]
    mids = _mid_save(model, lap[9], codes) + _mid_save(model, ERASED, codes)
    out += mids[:: max(1, len(mids) // 8)][:8]
    more = iter(walk(model, 300, seed + 1)[::7])
    while len({i for _, i in out}) < 40:
        out.append(("presses, another noise", next(more)))
    return _unique(out)
