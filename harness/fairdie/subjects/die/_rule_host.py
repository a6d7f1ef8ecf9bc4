"""The die firmware's rule.c compiled for the host, to test the C itself.

``rule.c`` is free of I/O (it includes only ``<stdint.h>``), so the host's C
compiler (``cc``) builds it into a shared library unchanged; cffi opens it in
ABI mode, which needs no Python headers. A tiny check file compiled with it
(see ``_CHECK``) makes the build fail if ``die_roll``'s signature or
``DIE_FACES`` stop matching what this module declares.

The host's ``int`` is wider than the AVR's 16 bits; rule.c computes with
``uint8_t`` counters (stored back modulo 256 on both) and ``code % 3`` of a
``uint16_t``, so both give the same results for every input.

Builds are cached by content (see :mod:`fairdie.subjects.die._host_c`).

    >>> rule = host_rule()                      # doctest: +SKIP
    >>> rule.press((0, 0, 0, 0, 0, 0), 1)       # doctest: +SKIP
    (3, (0, 0, 1, 0, 0, 0))
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cffi import FFI

from fairdie.subjects.die._host_c import HOST_CFLAGS, HostBuild, build_host_library
from fairdie.subjects.die._rule import FACES, MAX_COUNT, Counts

__all__ = ["HOST_CFLAGS", "HostRule", "host_rule", "rule_dir"]

_KEY_FORMAT = "fairdie-host-rule-1"
_MAX_CODE = 0xFFFF  # die_roll takes a uint16_t; the ADC gives 0..1023
_GUARD = (0xA5, 0x5A)  # bytes on either side of the counters, to catch stray writes

_CDEF = f"uint8_t die_roll(uint8_t counts[{FACES}], uint16_t code);"
_CHECK = f"""\
/* Checks rule.h against the declaration in fairdie.subjects.die._rule_host. */
#include "rule.h"

_Static_assert(DIE_FACES == {FACES}, "DIE_FACES differs from fairdie.subjects.die._rule.FACES");
uint8_t (*const fairdie_host_die_roll)(uint8_t *, uint16_t) = die_roll;
"""

_ffi = FFI()
_ffi.cdef(_CDEF)


def rule_dir() -> Path:
    """The folder holding the die firmware's rule.c and rule.h."""
    return Path(__file__).resolve().parent / "firmware" / "die_t13a"


@dataclass(frozen=True)
class HostRule:
    """rule.c's ``die_roll``, loaded from a host build (see :func:`host_rule`)."""

    library: Path
    key: str
    _lib: Any = field(repr=False, compare=False)

    def die_roll(self, counts: Sequence[int], code: int) -> tuple[int, Counts]:
        """What the C returns: the face index 0..5 and the table it leaves.

        ``counts`` are six integers 0..255 and ``code`` an integer 0..65535 (the
        C's ``uint16_t``); anything else raises ``ValueError``.
        """
        table = _check(counts, code)
        buf = _ffi.new(f"uint8_t[{FACES + 2}]", [_GUARD[0], *table, _GUARD[1]])
        index = int(self._lib.die_roll(buf + 1, code))
        head, a, b, c, d, e, f, tail = _ffi.unpack(buf, FACES + 2)
        if (head, tail) != _GUARD:
            raise RuntimeError("rule.c wrote outside counts[0..5]")
        return index, (a, b, c, d, e, f)

    def press(self, counts: Sequence[int], adc_code: int) -> tuple[int, Counts]:
        """``(face 1..6, new_counts)``, the shape of :func:`fairdie.subjects.die.press`."""
        index, new = self.die_roll(counts, adc_code)
        return index + 1, new


def _check(counts: Sequence[int], code: int) -> list[int]:
    if isinstance(counts, str) or len(counts) != FACES:
        raise ValueError(f"counts must be {FACES} integers, got {counts!r}")
    table = list(counts)
    for v in table:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_COUNT:
            raise ValueError(f"counts must be integers 0..{MAX_COUNT}, got {table}")
    if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code <= _MAX_CODE:
        raise ValueError(f"code must be an integer 0..{_MAX_CODE}, got {code!r}")
    return table


@functools.lru_cache(maxsize=8)
def _open(library: Path, key: str) -> HostRule:
    return HostRule(library=library, key=key, _lib=_ffi.dlopen(str(library)))


def _load(cc: str, cache_dir: Path | None, src: Path) -> HostRule:
    build = HostBuild(
        name="rule",
        key_format=_KEY_FORMAT,
        sources=(src / "rule.c",),
        headers=(src / "rule.h",),
        include=(src,),
        check=_CHECK,
        mismatch="rule.h no longer matches the declaration in fairdie.subjects.die._rule_host",
    )
    return _open(*build_host_library(build, cc, cache_dir))


def host_rule(
    *, cc: str = "cc", cache_dir: Path | None = None, source_dir: Path | None = None
) -> HostRule:
    """Build (or take from the cache) rule.c for the host and load it.

    ``cc`` is the host C compiler (a name on PATH or a path); ``cache_dir``
    replaces the default cache folder; ``source_dir`` the folder holding
    rule.c and rule.h (default: :func:`rule_dir`). Raises ``ToolchainError``
    when the compiler is missing or the build fails. Each call hashes the
    sources; a build is compiled once per cache and loaded once per process.
    """
    src = source_dir if source_dir is not None else rule_dir()
    return _load(cc, cache_dir, src.resolve())
