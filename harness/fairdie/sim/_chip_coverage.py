"""Coverage of a :class:`Chip`: which flash words its CPU executed and which
way each conditional branch and skip went, counted in C (``_shim_coverage.c``).

Off by default, when it costs nothing. On (``Chip(coverage=True)`` or
:meth:`CoverageMixin.coverage_on`), the engine counts each instruction and
the run is cycle for cycle the one it would be without (what it costs:
``fairdie bench``'s ``coverage_overhead``). Counts are not chip state: they
cover the chip's whole life, a restore neither rolls them back nor adds the
snapshot's past to them (a path run again after a restore counts again).

:func:`record_chips` turns coverage on for every chip made while it is open
and gathers their counts, also of chips freed meanwhile: how the pytest
plugin and the CLI's ``--cov`` see every chip a session makes.
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from fairdie.errors import FairdieError
from fairdie.sim._chipbase import ChipBase
from fairdie.sim._simavr import ffi, lib

if TYPE_CHECKING:
    from fairdie.coverage import Coverage, CoverageSet
    from fairdie.sim._firmware import Firmware

__all__ = ["ChipRecorder", "CoverageMixin", "record_chips"]

#: one firmware's counts: byte address -> times executed, -> (taken, not taken)
_Counts = tuple[dict[int, int], dict[int, tuple[int, int]]]


def _read(c: Any, words: int) -> _Counts:
    """The shim's counts of one chip (``c``: its fd_chip)."""
    buf = [ffi.new(f"{t}[]", max(words, 1)) for t in ("uint32_t", "uint64_t", "uint64_t")]
    address, hits, taken = buf
    fell = ffi.new("uint64_t[]", max(words, 1))
    branch = ffi.new("uint8_t[]", max(words, 1))
    n = min(lib.fd_cov_read(c, address, hits, taken, fell, branch, words), words)
    addrs = ffi.unpack(address, n)
    counts = dict(zip(addrs, ffi.unpack(hits, n), strict=True))
    branches = {
        a: (t, f)
        for a, t, f, b in zip(
            addrs, ffi.unpack(taken, n), ffi.unpack(fell, n), ffi.unpack(branch, n), strict=True
        )
        if b
    }
    return counts, branches


def _identity(fw: Firmware, mcu: str) -> tuple[str, str, str | None]:
    """A firmware's key in a coverage record: flash SHA-256, MCU, ELF path."""
    elf = str(fw.path.resolve()) if fw.path is not None and fw.sections else None
    return hashlib.sha256(fw.flash).hexdigest(), mcu, elf


def _coverage(ident: tuple[str, str, str | None], counts: _Counts) -> Coverage:
    from fairdie.coverage import Coverage

    return Coverage(ident[0], ident[1], ident[2], counts[0], counts[1])


class CoverageMixin(ChipBase):
    """Turning coverage on and reading it."""

    def coverage_on(self) -> None:
        """Count from now on every instruction this chip executes (see the
        module docstring); a no-op when already on."""
        if lib.fd_cov_on(self._c) != 0:
            raise FairdieError("coverage: the engine could not allocate its counters")

    @property
    def coverage_recording(self) -> bool:
        """Coverage is on."""
        return bool(lib.fd_cov_active(self._c))

    def coverage(self) -> Coverage:
        """What this chip ran so far, keyed by its flash image's SHA-256."""
        if not self.coverage_recording:
            raise FairdieError("coverage is off: Chip(coverage=True) or chip.coverage_on() first")
        return _coverage(_identity(self.firmware, self.mcu), _read(self._c, self.flash_size // 2))


class ChipRecorder:
    """The coverage of the chips made while :func:`record_chips` is open:
    counts of chips already freed, plus what live ones ran so far."""

    def __init__(self) -> None:
        # counts of freed chips, summed per firmware as plain dicts: a
        # Coverage (checked, sorted) is made once per firmware when asked,
        # not once per chip
        self._done: dict[tuple[str, str, str | None], _Counts] = {}
        self._live: list[weakref.finalize[Any, Any]] = []

    def _watch(self, chip: CoverageMixin) -> None:
        chip.coverage_on()
        ident = _identity(chip.firmware, chip.mcu)
        # the finalizer holds the shim's chip, not the Python one: read when freed
        self._live = [f for f in self._live if f.alive]
        self._live.append(
            weakref.finalize(chip, self._harvest, chip._c, chip.flash_size // 2, ident)
        )

    def _harvest(self, c: Any, words: int, ident: tuple[str, str, str | None]) -> None:
        _add(self._done, ident, _read(c, words))

    def coverage_set(self) -> CoverageSet:
        """Every recorded chip's coverage so far, merged by firmware."""
        from fairdie.coverage import CoverageSet

        counts = {ident: (dict(h), dict(b)) for ident, (h, b) in self._done.items()}
        for f in self._live:
            held = f.peek()
            if held is not None:
                _, _, (c, words, ident), _ = held
                _add(counts, ident, _read(c, words))
        return CoverageSet(_coverage(ident, n) for ident, n in counts.items())


def _add(into: dict[tuple[str, str, str | None], _Counts], ident: Any, counts: _Counts) -> None:
    """Sum one chip's ``counts`` into ``into``'s record of its firmware."""
    old = into.get(ident)
    if old is None:
        into[ident] = counts
        return
    hits, branches = old
    for a, n in counts[0].items():
        hits[a] = hits.get(a, 0) + n
    for a, (t, f) in counts[1].items():
        t0, f0 = branches.get(a, (0, 0))
        branches[a] = (t0 + t, f0 + f)


_RECORDERS: list[ChipRecorder] = []


def watch_new_chip(chip: CoverageMixin) -> None:
    """Called by every new chip: the open recorders record it."""
    for r in _RECORDERS:
        r._watch(chip)


@contextmanager
def record_chips() -> Iterator[ChipRecorder]:
    """Record the coverage of every chip made inside the block."""
    r = ChipRecorder()
    _RECORDERS.append(r)
    try:
        yield r
    finally:
        _RECORDERS.remove(r)
