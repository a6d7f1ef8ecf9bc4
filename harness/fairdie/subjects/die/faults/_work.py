"""A unit of campaign work and the process-wide rigs it runs on."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from fairdie._recent import Recent
from fairdie.subjects.die.faults._ids import Step, replay_id, step, unit_step
from fairdie.subjects.die.faults._outcome import Outcome
from fairdie.subjects.die.faults._rig import Boot, Rig, Target, Write
from fairdie.subjects.die.faults._verdict import Expect, Violation, judge_boot

__all__ = ["Unit", "Work", "rig_for"]

#: per process: the rig of each target and the setup it resolved to (the
#: last few: a process serves campaign after campaign)
_RIGS: Recent[Hashable, Rig] = Recent(16)
#: per process, of each rig: image -> I4 verdict of its boot (None: fine)
_BOOTED: WeakKeyDictionary[Rig, dict[bytes, tuple[str, str] | None]] = WeakKeyDictionary()


def rig_for(target: Target) -> Rig:
    target = target.resolved()
    assert target.setup is not None
    return _RIGS.get((target, target.setup.recipe()), lambda: Rig(target))


@dataclass(frozen=True)
class Unit:
    """One piece of a campaign, run in any process: ``args`` are the campaign's."""

    campaign: str
    target: Target
    args: tuple[Any, ...]
    #: its CPU seconds, roughly (the full tier, die-direct): the pool starts the longest first
    cost: float = field(default=1.0, compare=False)


class Work:
    """A unit's run: its rig, its outcome, and the checks every campaign makes."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self.target = unit.target
        self.rig = rig_for(unit.target)
        self.model = self.rig.model
        self.out = Outcome(unit.campaign)
        self._booted: set[bytes] = set()

    def replay(self, image: bytes, codes: Sequence[int], steps: Sequence[str]) -> str:
        return replay_id(self.unit.campaign, self.target, image, codes, steps)

    def unit_replay(self) -> str:
        """The id that reruns this whole unit."""
        return replay_id(self.unit.campaign, self.target, b"", (), [unit_step(self.unit.args)])

    def expect(self, before: bytes, codes: Sequence[int], digest: int | None = None) -> Expect:
        """What a press from ``before`` reading ``codes`` (whose ``digest`` the
        model in C gave, if known) may leave: the model in C sampling the codes
        and storing, where it has a port."""
        return Expect(self.model, before, codes, self.rig.host, digest)

    def violate(self, found: tuple[str, str], replay: str) -> None:
        self.out.violate(Violation(found[0], replay, found[1]))

    def judge(
        self,
        expect: Expect,
        image: bytes,
        *,
        lit: bool,
        replay: tuple[bytes, Sequence[int], Sequence[str | Step]],
    ) -> bool:
        """Judge a cut's image (I1, I2); False if it broke one. The replay's
        steps are ids (``step``) or ``(cycles, torn, land)`` to make one of, only
        for a violation."""
        found = expect.judge(image, lit=lit)
        if found is not None:
            image0, codes, steps = replay
            text = [s if isinstance(s, str) else step(*s) for s in steps]
            self.violate(found, self.replay(image0, codes, text))
            return False
        return True

    def cut(self, write: Write, torn: int | None, land: int | None = None) -> bytes:
        """A power cut as ``write`` has just started (:meth:`Rig.cut`), counted."""
        self.out.cuts += 1
        return self.rig.cut(write, torn, land)

    def boot(self, image: bytes) -> None:
        """Boot ``image`` (I4): on the chip once per process, counted as a press
        once per unit (so the count does not depend on how units are spread),
        judged against the model in C where it has a port (thousands a campaign)."""
        booted = _BOOTED.setdefault(self.rig, {})
        if image not in booted:
            boot: Boot = self.rig.boot(image)
            booted[image] = judge_boot(self.model, image, boot, self.rig.host)
        if image not in self._booted:
            self._booted.add(image)
            self.out.presses += 1
        self.out.booted(image)
        found = booted[image]
        if found is not None:
            self.violate(found, self.replay(image, (), ["boot"]))
