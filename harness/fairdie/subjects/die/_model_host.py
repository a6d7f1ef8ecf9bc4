"""The die's reference models in C, for campaigns: fast, and the same.

``host/models.c`` ports the fair rule (fair.S: sampling, health tests,
roll) and its ring of records (store.S) from their Python models
(:mod:`._fair`, :mod:`._ring`), links the seed's rule from the firmware's
own rule.c, and plays the lab's adversary
(:class:`fairdie.subjects.die.lab._adversary.Adversary`) with the same
menus. Tests hold it to the Python models press for press; campaigns hold
the chip to it. It is built for the host like rule.c
(:mod:`._host_c`).
"""

from __future__ import annotations

import functools
import hashlib
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cffi import FFI

from fairdie.subjects.die import _fair
from fairdie.subjects.die._host_c import HostBuild, build_host_library
from fairdie.subjects.die._models import MODELS, DieModel
from fairdie.subjects.die._rule_host import rule_dir

__all__ = ["FIXED_ITEMS", "MAX_TRIES", "PORTS", "HostModel", "host_model", "mt_key"]

_KINDS = {"fair": 0, "seed": 1}
#: the models whose C is a port of the Python model (host/models.c: the fair
#: rule and ring). The seed's C links the firmware's own rule.c: a chip held to
#: it would be held to its own source, so a check of a chip uses its Python model.
PORTS = frozenset({"fair"})
#: the adversary's fixed menu items, and the most seeded ones it tries
FIXED_ITEMS = 6
MAX_TRIES = 64
_CDEF = """
int32_t fm_digest(int kind, const uint16_t *codes, int n, int *reads);
int fm_apply(int kind, uint8_t *image, int32_t digest);
void fm_chain(int kind, uint8_t *image, const int32_t *digests, int presses, int8_t *faces);
void fm_table(int kind, const uint8_t *image, uint8_t table[6]);
void fm_menu_digests(int kind, const uint32_t *key, int keylen, int n, int tries,
                     int32_t *digests);
void fm_adversary_chain(int kind, uint8_t *image, const int32_t *digests, int items, int presses,
                        int8_t *faces);
int fm_adversary(int kind, const uint8_t *image, const uint32_t *key, int keylen, int n,
                 int tries, uint16_t *chosen);
"""
# the same declarations and numbers again: a difference from models.h fails the build
_CHECK = f"""/* Checks models.h against fairdie.subjects.die._model_host. */
#include "models.h"
{_CDEF}
_Static_assert(FM_FAIR == {_KINDS["fair"]} && FM_SEED == {_KINDS["seed"]}, "FM_FAIR, FM_SEED");
_Static_assert(FM_MOST_READS == {_fair.MOST_READS}, "FM_MOST_READS differs from _fair.MOST_READS");
_Static_assert(FM_FIXED == {FIXED_ITEMS} && FM_MAX_TRIES == {MAX_TRIES}, "FM_FIXED, FM_MAX_TRIES");
"""

_ffi = FFI()
_ffi.cdef(_CDEF)


def mt_key(text: str) -> array[int]:
    """The 32-bit words ``random.Random(text)`` seeds its Mersenne Twister
    with (CPython: the text, then its SHA-512, as one big-endian integer;
    its words least significant first)."""
    data = text.encode()
    x = int.from_bytes(data + hashlib.sha512(data).digest(), "big")
    words = array("I", x.to_bytes(4 * max(1, (x.bit_length() + 31) // 32), "little"))
    if sys.byteorder == "big":
        words.byteswap()
    return words


def _u8(buf: bytes | bytearray) -> Any:
    return _ffi.from_buffer("uint8_t[]", buf)


@dataclass(frozen=True)
class HostModel:
    """A reference model's press, in C (see the module). A press's *digest*
    is what the rule takes of its codes: the fair rule's fresh bits (-1: the
    health tests failed), the seed rule's code."""

    name: str
    reads: int
    _kind: int
    _lib: Any

    def digest(self, codes: array[int]) -> tuple[int, int]:
        """``(digest, conversions)`` of a press reading ``codes`` (array
        "H"); ValueError when the codes end before the press does."""
        reads = _ffi.new("int *")
        d = self._lib.fm_digest(
            self._kind, _ffi.from_buffer("uint16_t[]", codes), len(codes), reads
        )
        if d == -2:
            raise ValueError(f"a {self.name} press converts more than these {len(codes)} codes")
        return int(d), int(reads[0])

    def press(self, image: bytes, codes: Sequence[int]) -> tuple[int | None, bytes]:
        """As :meth:`DieModel.press`: ``(face, image after)``, ``(None,
        image)`` when the noise fails the health tests."""
        return self.apply(image, self.digest(array("H", codes))[0])

    def apply(self, image: bytes, digest: int) -> tuple[int | None, bytes]:
        """:meth:`press` of a press whose codes have this digest."""
        buf = bytearray(image)
        face = self._lib.fm_apply(self._kind, _u8(buf), digest)
        return (face or None), bytes(buf)

    def chain(self, image: bytes, digests: array[int]) -> tuple[bytes, bytes]:
        """Presses in turn from ``image``, one per digest (array "i"): their
        faces (0: the health tests failed) and the image after."""
        buf, faces = bytearray(image), bytearray(len(digests))
        d = _ffi.from_buffer("int32_t[]", digests)
        self._lib.fm_chain(
            self._kind, _u8(buf), d, len(digests), _ffi.from_buffer("int8_t[]", faces)
        )
        return bytes(faces), bytes(buf)

    def table(self, image: bytes) -> tuple[int, ...]:
        out = _ffi.new("uint8_t[6]")
        self._lib.fm_table(self._kind, image, out)
        return tuple(out)

    def menu_digests(self, key: str, tries: int) -> array[int]:
        """The digests of the adversary's menu for a press (the random part
        keyed by ``key``, as ``random.Random(key)``)."""
        words = mt_key(key)
        out = array("i", bytes(4 * (FIXED_ITEMS + tries)))
        w = _ffi.from_buffer("uint32_t[]", words)
        d = _ffi.from_buffer("int32_t[]", out)
        self._lib.fm_menu_digests(self._kind, w, len(words), self.reads, tries, d)
        return out

    def adversary_chain(self, image: bytes, digests: array[int], items: int) -> tuple[bytes, bytes]:
        """Adversarial presses in turn from ``image``, press k choosing among
        ``digests[k * items:(k + 1) * items]`` (see :meth:`adversary`): their
        faces (0: every item failed) and the image after."""
        presses = len(digests) // items
        buf, faces = bytearray(image), bytearray(presses)
        d = _ffi.from_buffer("int32_t[]", digests)
        f = _ffi.from_buffer("int8_t[]", faces)
        self._lib.fm_adversary_chain(self._kind, _u8(buf), d, items, presses, f)
        return bytes(faces), bytes(buf)

    def adversary(self, image: bytes, key: str, tries: int) -> array[int]:
        """The adversary's codes for a press from ``image``: of its menu, the
        one whose face is the most counted, the lowest face on a tie (see
        :class:`~fairdie.subjects.die.lab._adversary.Adversary`)."""
        if not 0 <= tries <= MAX_TRIES:
            raise ValueError(f"tries must be 0..{MAX_TRIES}, got {tries}")
        words = mt_key(key)
        out = array("H", bytes(2 * self.reads))
        best = self._lib.fm_adversary(
            self._kind,
            image,
            _ffi.from_buffer("uint32_t[]", words),
            len(words),
            self.reads,
            tries,
            _ffi.from_buffer("uint16_t[]", out),
        )
        if best < 0:
            raise ValueError("every code set of the adversary's menu fails the health tests")
        return out


def _build() -> HostBuild:
    here = Path(__file__).resolve().parent / "host"
    rules = rule_dir()
    return HostBuild(
        name="models",
        key_format="fairdie-host-models-1",
        sources=(here / "models.c", rules / "rule.c"),
        headers=(here / "models.h", rules / "rule.h", rules / "store.h"),
        include=(here, rules),
        check=_CHECK,
        mismatch="models.h no longer matches the declarations in fairdie.subjects.die._model_host",
    )


@functools.lru_cache(maxsize=4)
def _lib(cc: str) -> Any:
    library, _key = build_host_library(_build(), cc, None)
    return _ffi.dlopen(str(library))


def host_model(model: DieModel, *, cc: str = "cc") -> HostModel | None:
    """``model`` in C, built for the host (once per cache); None for a model
    it has no port of."""
    kind = _KINDS.get(model.name)
    if kind is None or model != MODELS[model.name]:  # a model of another make
        return None
    return HostModel(model.name, model.reads, kind, _lib(cc))
