"""Run every check on one firmware and board, in order, into a :class:`Verdict`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie.errors import FairdieError
from fairdie.verify._checks import CHECKS, FAIL, PASS, SKIP, Check, Context, Options, run_check
from fairdie.verify._energy import Energy
from fairdie.verify._subject import Subject, load_subject, temp_folder
from fairdie.verify._timeline import Timeline

if TYPE_CHECKING:
    from fairdie.subjects.die.faults import Report
    from fairdie.subjects.die.lab._campaign import CampaignResult

__all__ = ["ALWAYS", "WEIGHTS", "Verdict", "total_units", "verify"]

#: checks that run even when not asked for: the others depend on what they find
ALWAYS = ("mcu-and-memory", "board-wiring", "model")
#: a check's share of the progress bar (roughly its share of the time)
WEIGHTS = {"fairness": 12.0, "power-cuts": 8.0}


@dataclass
class Verdict:
    """Every check's result, and what the report draws."""

    subject: Subject
    options: Options
    checks: list[Check]
    seconds: float
    energy: Energy | None = None
    timeline: Timeline | None = None  #: one press, for the timing diagram
    campaigns: dict[str, CampaignResult] = field(default_factory=dict)
    faults: Report | None = None
    roll_faces: list[int] = field(default_factory=list)  #: faces rolled (a die with no model)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.status == FAIL]

    @property
    def passed(self) -> bool:
        """No check failed (skipped checks say why, and do not fail the run)."""
        return not self.failed

    def count(self, status: str) -> int:
        return sum(c.status == status for c in self.checks)

    def as_json(self) -> dict[str, Any]:
        s = self.subject
        return {
            "firmware": str(s.path),
            "built": s.built,
            "board": s.board.name,
            "board_file": s.board.source,
            "board_chosen": s.board_chosen or None,
            "mcu": s.board.mcu,
            "f_cpu": s.f_cpu,
            "build": s.identified,
            "model": s.model.name if s.model else None,
            "passed": self.passed,
            "counts": {k: self.count(k) for k in (PASS, FAIL, SKIP)},
            "checks": [c.as_json() for c in self.checks],
            "energy": self.energy.as_json() if self.energy else None,
            "options": {
                "presses": self.options.presses,
                "hold": self.options.hold,
                "seed": self.options.seed,
                "jobs": self.options.jobs,
            },
            "seconds": round(self.seconds, 2),
        }


def verify(
    firmware: str | Path | None = None,
    *,
    board: str | None = None,
    eep: str | Path | None = None,
    only: Iterable[str] | None = None,
    options: Options | None = None,
    progress: Callable[[float], None] | None = None,
) -> Verdict:
    """Verify ``firmware`` (an ELF or HEX; None: build the board's own) on ``board``.

    ``only`` names the checks to run (the ones in :data:`ALWAYS` run anyway);
    ``progress(units)`` is told of work done, out of :func:`total_units`.
    Raises :class:`~fairdie.errors.FairdieError` for bad input (a missing or
    unreadable file, a board file that is no die); a firmware that cannot run
    on the board is a failed check, not an error.
    """
    t0 = time.perf_counter()
    opts = options or Options()
    names = [n for n, _ in CHECKS]
    wanted = set(names) if only is None else set(only) | set(ALWAYS)
    unknown = sorted(wanted - set(names))
    if unknown:
        raise FairdieError(f"no check {unknown[0]!r} (checks: {', '.join(names)})")
    subject = load_subject(
        Path(firmware) if firmware is not None else None,
        board=board,
        eep=Path(eep) if eep is not None else None,
    )
    checks: list[Check] = []
    with temp_folder() as tmp:
        done = [0.0]

        def tick(units: float) -> None:
            done[0] += units
            if progress is not None:
                progress(units)

        ctx = Context(subject, opts, Path(tmp), lambda f: None)
        for name in names:
            weight = WEIGHTS.get(name, 1.0)
            ctx.tick = lambda f, w=weight: tick(f * w)  # type: ignore[misc]
            before = done[0]
            checks.append(_one(name, ctx, wanted, checks))
            tick(max(0.0, before + weight - done[0]))
            if name == "mcu-and-memory" and ctx.runs:
                _probe(ctx)
    return Verdict(
        subject,
        opts,
        checks,
        time.perf_counter() - t0,
        energy=ctx.energy,
        timeline=ctx.any_press(),
        campaigns=ctx.campaigns,
        faults=ctx.faults,
        roll_faces=ctx.roll_faces,
    )


def total_units(only: Iterable[str] | None = None) -> float:
    """What :func:`verify`'s progress adds up to."""
    wanted = None if only is None else set(only) | set(ALWAYS)
    return sum(WEIGHTS.get(n, 1.0) for n, _ in CHECKS if wanted is None or n in wanted)


def _one(name: str, ctx: Context, wanted: set[str], done: list[Check]) -> Check:
    if name not in wanted:
        return Check(name, SKIP, "not asked for (--only)")
    if name != "mcu-and-memory" and not ctx.runs:
        return Check(name, SKIP, "the firmware cannot run on this board (see mcu-and-memory)")
    return run_check(name, ctx)


def _probe(ctx: Context) -> None:
    """One die of this firmware on this board: a board that is no die is bad input."""
    ctx.by_power = ctx.die().rolls_by_power
