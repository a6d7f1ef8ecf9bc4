"""What ran of a firmware: executed instructions and branch outcomes, keyed by
byte address in flash, merged across chips, processes and files.

A :class:`Coverage` is one firmware (one flash image, named by its SHA-256);
a :class:`CoverageSet` holds several, as a test session runs several builds.
Both merge by summing counts, so the order of merging never matters. A set is
saved as JSON with a version key and sorted keys, so equal sets make equal
files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from fairdie._files import check_output_file, read_input
from fairdie.errors import FairdieError

__all__ = [
    "FORMAT_VERSION",
    "MAX_COVERAGE_FILE",
    "Coverage",
    "CoverageError",
    "CoverageSet",
    "is_our_json",
    "write_text",
]

FORMAT_VERSION = 1  #: the value of the "fairdie-coverage" key of a saved set
MAX_COVERAGE_FILE = 256 << 20  #: the most bytes a coverage file may have
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
#: how a saved set begins: its keys are sorted, and "fairdie-coverage" comes first
_OUR_JSON = re.compile(rb'\A\s*\{\s*"fairdie-coverage"\s*:')


def is_our_json(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) begins a coverage file fairdie saved."""
    return _OUR_JSON.match(head) is not None


class CoverageError(FairdieError):
    """A coverage file or record is missing, malformed or inconsistent."""


def write_text(
    path: Path,
    text: str,
    what: str,
    *,
    ours: Callable[[bytes], bool] | None,
    force: bool = False,
) -> None:
    """Write an output the user named, only over a file ``ours`` recognises
    (:func:`fairdie._files.check_output_file`; None: a file in a folder
    fairdie claimed); one line if it cannot be. ``what`` names the output."""
    path = Path(path)
    if ours is not None:
        check_output_file(path, what, ours=ours, force=force)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise CoverageError(f"{what} {path}: cannot write: {e.strerror or e}") from None


def _count(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


@dataclass(frozen=True)
class Coverage:
    """What ran of one firmware: counts keyed by byte address in flash."""

    flash_sha256: str  #: SHA-256 of the flash image bytes: identifies the firmware
    mcu: str  #: e.g. "attiny13a"
    elf: str | None  #: the ELF for source mapping (None when only a HEX was run)
    #: byte address of an instruction's first word -> times executed (only > 0)
    hits: Mapping[int, int] = field(default_factory=dict)
    #: byte address of a conditional branch or skip -> (times taken, times not taken)
    branches: Mapping[int, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.flash_sha256, str) or not _SHA256.match(self.flash_sha256):
            raise CoverageError(f"flash_sha256 is not a SHA-256 in hex: {self.flash_sha256!r}")
        if not isinstance(self.mcu, str) or not self.mcu:
            raise CoverageError(f"mcu is not a name: {self.mcu!r}")
        if self.elf is not None and not isinstance(self.elf, str):
            raise CoverageError(f"elf is not a path: {self.elf!r}")
        hits: dict[int, int] = {}
        for a, n in self.hits.items():
            if not (_count(a) and _count(n)) or a % 2:
                raise CoverageError(f"hit {a!r}: {n!r} is not an even address and a count")
            if n:
                hits[a] = n
        branches: dict[int, tuple[int, int]] = {}
        for a, tn in self.branches.items():
            if not (_count(a) and isinstance(tn, tuple | list) and len(tn) == 2) or a % 2:
                raise CoverageError(f"branch {a!r}: {tn!r} is not an address and two counts")
            taken, fell = tn
            if not (_count(taken) and _count(fell)):
                raise CoverageError(f"branch {a:#x}: {tn!r} is not two counts")
            if taken or fell:
                branches[a] = (taken, fell)
        # read-only views of sorted copies: the record cannot change under a holder
        object.__setattr__(self, "hits", MappingProxyType(dict(sorted(hits.items()))))
        object.__setattr__(self, "branches", MappingProxyType(dict(sorted(branches.items()))))

    def merged(self, other: Coverage) -> Coverage:
        """Both runs' counts summed; the same firmware is required."""
        if other.flash_sha256 != self.flash_sha256:
            raise ValueError(
                f"cannot merge coverage of two firmwares "
                f"({self.flash_sha256[:12]} and {other.flash_sha256[:12]})"
            )
        if other.mcu != self.mcu:
            raise ValueError(f"one firmware run as two MCUs: {self.mcu} and {other.mcu}")
        hits = dict(self.hits)
        for a, n in other.hits.items():
            hits[a] = hits.get(a, 0) + n
        branches = dict(self.branches)
        for a, (t, f) in other.branches.items():
            t0, f0 = branches.get(a, (0, 0))
            branches[a] = (t0 + t, f0 + f)
        return Coverage(
            self.flash_sha256, self.mcu, self.elf if self.elf is not None else other.elf,
            hits, branches,
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "flash_sha256": self.flash_sha256,
            "mcu": self.mcu,
            "elf": self.elf,
            "hits": [[a, n] for a, n in self.hits.items()],
            "branches": [[a, t, f] for a, (t, f) in self.branches.items()],
        }

    @classmethod
    def from_json(cls, d: object) -> Coverage:
        """The record :meth:`to_json` wrote; :class:`CoverageError` for anything else."""
        if not isinstance(d, dict):
            raise CoverageError("a firmware's record is not an object")
        keys = {"flash_sha256", "mcu", "elf", "hits", "branches"}
        if set(d) != keys:
            raise CoverageError(f"a firmware's record has keys {sorted(d)}, not {sorted(keys)}")
        hits, branches = d["hits"], d["branches"]
        if not isinstance(hits, list) or not all(isinstance(h, list) and len(h) == 2 for h in hits):
            raise CoverageError("hits is not a list of [address, count]")
        if not isinstance(branches, list) or not all(
            isinstance(b, list) and len(b) == 3 for b in branches
        ):
            raise CoverageError("branches is not a list of [address, taken, not taken]")
        if not all(type(x) is int for row in (*hits, *branches) for x in row):
            raise CoverageError("an address or count is not a whole number")
        if len({h[0] for h in hits}) != len(hits) or len({b[0] for b in branches}) != len(branches):
            raise CoverageError("an address is listed twice")
        return cls(
            d["flash_sha256"],
            d["mcu"],
            d["elf"],
            {h[0]: h[1] for h in hits},
            {b[0]: (b[1], b[2]) for b in branches},
        )


class CoverageSet:
    """Several firmwares' coverage at once, one :class:`Coverage` per flash image."""

    def __init__(self, items: Iterable[Coverage] = ()) -> None:
        self._by_sha: dict[str, Coverage] = {}
        for cov in items:
            self.add(cov)

    def add(self, cov: Coverage) -> None:
        """Merge ``cov`` into the record of its firmware (a new one if none)."""
        old = self._by_sha.get(cov.flash_sha256)
        self._by_sha[cov.flash_sha256] = cov if old is None else old.merged(cov)

    def __iter__(self) -> Iterator[Coverage]:
        """The firmwares in the order of their SHA-256 (stable across processes)."""
        return iter([self._by_sha[k] for k in sorted(self._by_sha)])

    def __len__(self) -> int:
        return len(self._by_sha)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CoverageSet) and self._by_sha == other._by_sha

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"CoverageSet({list(self)!r})"

    def get(self, flash_sha256: str) -> Coverage | None:
        return self._by_sha.get(flash_sha256)

    def merged(self, other: CoverageSet) -> CoverageSet:
        """A new set holding both sets' counts; neither is changed."""
        out = CoverageSet(self)
        for cov in other:
            out.add(cov)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"fairdie-coverage": FORMAT_VERSION, "firmwares": [c.to_json() for c in self]}

    def save(self, path: Path, *, what: str = "coverage file", force: bool = False) -> None:
        """Write the set as JSON (sorted keys, so equal sets make equal files),
        only over a coverage file unless ``force``."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        write_text(path, text + "\n", what, ours=is_our_json, force=force)

    @classmethod
    def load(cls, path: Path) -> CoverageSet:
        """The set :meth:`save` wrote; :class:`CoverageError` (one line) for a bad file."""
        raw = read_input(Path(path), "coverage file", CoverageError, limit=MAX_COVERAGE_FILE)
        try:
            d = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise CoverageError(f"{path}: not a fairdie coverage file (not JSON)") from None
        if not isinstance(d, dict) or "fairdie-coverage" not in d:
            raise CoverageError(f"{path}: not a fairdie coverage file")
        if d["fairdie-coverage"] != FORMAT_VERSION:
            raise CoverageError(
                f"{path}: coverage format {d['fairdie-coverage']!r}, "
                f"this fairdie reads {FORMAT_VERSION}"
            )
        if set(d) != {"fairdie-coverage", "firmwares"} or not isinstance(d["firmwares"], list):
            raise CoverageError(f"{path}: a coverage file holds only a list of firmwares")
        try:
            return cls(Coverage.from_json(f) for f in d["firmwares"])
        except CoverageError as e:
            raise CoverageError(f"{path}: {e}") from None
        except ValueError as e:  # one firmware listed as two MCUs
            raise CoverageError(f"{path}: {e}") from None
