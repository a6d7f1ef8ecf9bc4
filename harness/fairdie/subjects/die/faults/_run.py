"""Run power-cut campaigns: plan their units, spread them, merge the outcomes."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fairdie.campaigns import map_work
from fairdie.subjects.die.faults import _cuts, _hostile, _wear
from fairdie.subjects.die.faults import _hostile_noise as _noise
from fairdie.subjects.die.faults._ids import WholePress, parse_replay, unit_args
from fairdie.subjects.die.faults._outcome import Outcome
from fairdie.subjects.die.faults._rig import Rig
from fairdie.subjects.die.faults._target import FaultsError, Target
from fairdie.subjects.die.faults._verdict import Expect, Violation, judge_boot, judge_press
from fairdie.subjects.die.faults._work import Unit, Work, rig_for

__all__ = ["CAMPAIGNS", "Report", "replay", "run_faults"]

Planner = Callable[[Target, bool, int], list[Unit]]
Runner = Callable[[Work], None]

#: name -> (planner, runner, what it does)
CAMPAIGNS: dict[str, tuple[Planner, Runner, str]] = {
    "G1": (_cuts.plan_g1, _cuts.run_g1, "a single cut in every write, every torn value"),
    "G2": (_cuts.plan_g2, _cuts.run_g2, "a cut at every CPU cycle, the write's physics modelled"),
    "G3": (_cuts.plan_g3, _cuts.run_g3, "a second cut in every write of the recovery"),
    "G4": (_cuts.plan_g4, _cuts.run_g4, "a seeded soak of presses, holds and cuts"),
    "G5": (_hostile.plan_g5, _hostile.run_g5, "hostile images: boot, recover, stay fair"),
    "G6": (_noise.plan_g6, _noise.run_g6, "hostile noise: rails, extremes, adversary, search"),
    "G7": (_wear.plan_g7, _wear.run_g7, "EEPROM wear per byte under each noise"),
}


#: the full tier's torn values, as its report states them
_FULL_TORN = (
    "G1 and G3 cut every write with all 256 torn values; G2 leaves the byte in flight as the"
    " physics says at each cycle, G4 at a seeded point of the write"
)


def _run_unit(unit: Unit) -> Outcome:
    t0, cpu = time.perf_counter(), time.process_time()
    work = Work(unit)
    CAMPAIGNS[unit.campaign][1](work)
    work.out.seconds = time.perf_counter() - t0
    work.out.cpu_seconds = time.process_time() - cpu
    return work.out


def _run_indexed(item: tuple[int, Unit]) -> tuple[int, Outcome]:
    return item[0], _run_unit(item[1])


def _longest_first(units: Sequence[Unit]) -> list[tuple[int, Unit]]:
    """The units with their places in the plan, the costliest first: the
    workers take them in turn, so none is left with a long unit at the end."""
    return sorted(enumerate(units), key=lambda x: -x[1].cost)


@dataclass
class Report:
    target: Target
    quick: bool
    seed: int
    outcomes: dict[str, Outcome]
    seconds: float
    brown_out: dict[str, object] | None = None
    #: CPU seconds the calling process spent planning the units and merging their outcomes
    parent_cpu_seconds: float = 0.0  #: the fuses and what the cuts modelled

    @property
    def violations(self) -> int:
        return sum(o.violation_count for o in self.outcomes.values())

    def torn_per_write(self) -> str:
        """The writes cut, by torn values tried in each ("torn values per write:
        256 at 54, 8 at 115 writes")."""
        torn: dict[int, int] = {}
        for o in self.outcomes.values():
            for n, writes in o.torn.items():
                torn[n] = torn.get(n, 0) + writes
        parts = [f"{n} at {w:,}" for n, w in sorted(torn.items(), reverse=True)]
        return f"torn values per write: {', '.join(parts)} writes" if parts else "no write cut"

    def as_json(self) -> dict[str, object]:
        return {
            "target": self.target.label,
            "board": self.target.board,
            "tier": "quick" if self.quick else "full",
            "seed": self.seed,
            "cuts": sum(o.cuts for o in self.outcomes.values()),
            "cycles_covered": sum(o.cycles_covered for o in self.outcomes.values()),
            "torn_values": _cuts.QUICK_TORN if self.quick else _FULL_TORN,
            "images": sum(len(o.images) for o in self.outcomes.values()),
            "presses": sum(o.presses for o in self.outcomes.values()),
            "violations": self.violations,
            "replays": [v.replay for o in self.outcomes.values() for v in o.violations],
            "campaigns": {k: o.as_json() for k, o in self.outcomes.items()},
            "brown_out": self.brown_out,
            "seconds": round(self.seconds, 2),
            # CPU time: the units' (summed over the processes that ran them) and the parent's
            "cpu_seconds": round(sum(o.cpu_seconds for o in self.outcomes.values()), 2),
            "parent_cpu_seconds": round(self.parent_cpu_seconds, 2),
        }


def run_faults(
    campaigns: Sequence[str],
    *,
    target: Target | None = None,
    quick: bool = False,
    seed: int = 0,
    jobs: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Run ``campaigns`` (names of :data:`CAMPAIGNS`) on ``target``;
    ``progress(done, total)`` is told as units finish."""
    unknown = [c for c in campaigns if c not in CAMPAIGNS]
    if unknown:
        raise FaultsError(f"no campaign {unknown[0]!r} (campaigns: {', '.join(CAMPAIGNS)}, all)")
    t0, cpu = time.perf_counter(), time.process_time()
    # the setup made once, here: every unit carries it to its worker
    target = (target or Target()).resolved()
    rig = rig_for(target)  # a target with no model fails here, before any work
    units = [u for c in campaigns for u in CAMPAIGNS[c][0](target, quick, seed)]
    parent = time.process_time() - cpu  # planning, then merging the outcomes
    done: list[Outcome | None] = [None] * len(units)
    for n, (i, out) in enumerate(
        map_work(
            _run_indexed,
            _longest_first(units),
            jobs=jobs,
            scheduler=scheduler,
            error=FaultsError,
        ),
        1,
    ):
        done[i] = out
        if progress is not None:
            progress(n, len(units))
    cpu = time.process_time()
    outcomes = {c: Outcome(c) for c in campaigns}
    for each in done:  # in the plan's order, however the units were spread
        assert each is not None
        out = each
        outcomes[out.campaign].merge(out)
        outcomes[out.campaign].seconds += out.seconds
        outcomes[out.campaign].cpu_seconds += out.cpu_seconds
    parent += time.process_time() - cpu
    seconds = time.perf_counter() - t0
    return Report(target, quick, seed, outcomes, seconds, _brown_out(rig), parent)


def _brown_out(rig: Rig) -> dict[str, object]:
    f = rig.fuses
    return {
        "fuses": f.burn if f is not None else None,
        "source": rig.fuse_source,
        "detector": f.bod if f is not None else "unknown",
        "misexecutes": rig.misexecutes,
    }


def replay(text: str) -> list[Violation]:
    """Run the cuts a replay id names, judging each: the violations found."""
    campaign, target, image, codes, steps = parse_replay(text)
    target = target.resolved()
    args = unit_args(text)
    if args is not None:
        if campaign not in CAMPAIGNS:
            raise FaultsError(f"not a replay id: {text!r} (no campaign {campaign!r})")
        return _run_unit(Unit(campaign, target, args)).violations
    rig = rig_for(target)
    found: list[Violation] = []
    for s in steps:
        if s is None:
            verdict = judge_boot(rig.model, image, rig.boot(image))
            if verdict is not None:
                found.append(Violation(verdict[0], text, verdict[1]))
            continue
        if isinstance(s, WholePress):
            w = rig.press(image, codes, s.cycles / rig.chip.frequency)
            verdict = judge_press(rig.model, image, w.codes, w.shown, w.after)
            if verdict is not None:
                found.append(Violation(verdict[0], text, verdict[1]))
            image = w.after
            continue
        cycles, torn, land = s
        expect = Expect(rig.model, image, codes)
        cut = rig.cut_at(image, codes, cycles, torn, land)
        verdict = expect.judge(cut.image, lit=cut.lit)
        if verdict is not None:
            found.append(Violation(verdict[0], text, verdict[1]))
        image = cut.image
    return found
