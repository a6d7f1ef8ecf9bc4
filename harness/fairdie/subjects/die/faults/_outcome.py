"""What a campaign (or one unit of it) found, and how results merge."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from fairdie.subjects.die.faults._verdict import Violation

__all__ = ["KEEP", "Outcome"]

#: violations kept in full per campaign (all are counted)
KEEP = 50


@dataclass
class Outcome:
    campaign: str
    cuts: int = 0  #: power cuts simulated (each leaves the byte in flight at a torn value)
    #: cycles of the runs cut at every cycle: each cut, or covered by a cut that stands for it
    cycles_covered: int = 0
    presses: int = 0  #: presses emulated
    images: set[bytes] = field(default_factory=set)  #: digests of the images booted
    violations: list[Violation] = field(default_factory=list)
    violation_count: int = 0
    #: torn values tried per write -> the writes cut with that many
    torn: dict[int, int] = field(default_factory=dict)
    #: campaign figures: a key ending in ``_max`` merges by max, ``_min`` by min, others add up
    figures: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0  #: wall time of its units, summed
    cpu_seconds: float = 0.0  #: CPU time of its units, summed

    def booted(self, image: bytes) -> None:
        self.images.add(hashlib.blake2b(image, digest_size=8).digest())

    def cut_write(self, values: int) -> None:
        """A write was cut with ``values`` torn values (each one a cut)."""
        self.torn[values] = self.torn.get(values, 0) + 1

    def violate(self, violation: Violation) -> None:
        self.violation_count += 1
        if len(self.violations) < KEEP:
            self.violations.append(violation)

    def figure(self, key: str, value: float) -> None:
        old = self.figures.get(key)
        if old is None:
            self.figures[key] = value
        elif key.endswith("_max"):
            self.figures[key] = max(old, value)
        elif key.endswith("_min"):
            self.figures[key] = min(old, value)
        else:
            self.figures[key] = old + value

    def merge(self, other: Outcome) -> None:
        self.cuts += other.cuts
        self.cycles_covered += other.cycles_covered
        for n, writes in other.torn.items():
            self.torn[n] = self.torn.get(n, 0) + writes
        self.presses += other.presses
        self.images |= other.images
        self.violation_count += other.violation_count
        self.violations += other.violations[: max(0, KEEP - len(self.violations))]
        for k, v in other.figures.items():
            self.figure(k, v)

    def as_json(self) -> dict[str, Any]:
        return {
            "campaign": self.campaign,
            "cuts": self.cuts,
            "cycles_covered": self.cycles_covered,
            "torn_values_per_write": {
                str(n): w for n, w in sorted(self.torn.items(), reverse=True)
            },
            "presses": self.presses,
            "images": len(self.images),
            "violations": self.violation_count,
            "failures": [v.as_json() for v in self.violations],
            "figures": {
                k: round(v, 6) if isinstance(v, float) else v for k, v in self.figures.items()
            },
            "seconds": round(self.seconds, 2),
            "cpu_seconds": round(self.cpu_seconds, 2),
        }
