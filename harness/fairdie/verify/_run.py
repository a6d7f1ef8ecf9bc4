"""Run the checks on one firmware and board, in order, into a :class:`Verdict`.

The checks are the core's (:mod:`fairdie.verify._generic`, the build
checks and the scenarios; :mod:`fairdie.verify._recorded`, the checks of a
recorded run; :mod:`fairdie.verify._brownout`, the fuses against the
EEPROM writes) and each registered subject's (``Subject.checks``, found
through :mod:`fairdie.subjects` only). A subject's checks run where it
applies to the board; elsewhere each is listed as skipped, with the
subject's reason, except one named as a core check of a recorded run: it
replaces the core's where the subject applies, and the core's runs elsewhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairdie.errors import FairdieError
from fairdie.verify._brownout import BROWNOUT_CHECKS
from fairdie.verify._burn import DEFAULT_PROGRAMMER, BurnSheet, burn_sheet
from fairdie.verify._candidate import Candidate, load_candidate, temp_folder
from fairdie.verify._check import (
    FAIL,
    PASS,
    SKIP,
    Check,
    CheckResult,
    Checks,
    Context,
    Options,
    ReportPart,
)
from fairdie.verify._energy import Energy
from fairdie.verify._evidence import Evidence
from fairdie.verify._generic import BUILD_CHECKS, LATE_CHECKS
from fairdie.verify._recorded import RUN_CHECKS
from fairdie.verify._timeline import Timeline

__all__ = ["Verdict", "all_checks", "subject_checks", "total_units", "verify"]


def subject_checks() -> tuple[Checks, ...]:
    """Every registered subject's checks (imports the subjects that have any)."""
    from fairdie.subjects import resolve, subjects

    out = []
    for s in subjects():
        if s.checks is not None:
            found = resolve(s.checks)
            if not isinstance(found, Checks):
                raise TypeError(f"{s.checks} is not a fairdie.verify.Checks")
            out.append(found)
    return tuple(out)


def all_checks() -> tuple[tuple[Check, Checks | None], ...]:
    """Every check in the order it runs, with the subject's checks it is one of
    (None: the core's)."""
    core: list[tuple[Check, Checks | None]] = [(c, None) for c in BUILD_CHECKS]
    subject = [(c, s) for s in subject_checks() for c in s.checks]
    replaced = {c.name for c, _ in subject}
    run = [(c, None) for c in RUN_CHECKS if c.name not in replaced]
    late = (*BROWNOUT_CHECKS, *LATE_CHECKS)
    return (*core, *subject, *run, *((c, None) for c in late))


#: the core's checks a subject's check of the same name replaces where it applies
_CORE_BY_NAME = {c.name: c for c in RUN_CHECKS}


@dataclass
class Verdict:
    """Every check's result, and what the report draws."""

    candidate: Candidate
    options: Options
    checks: list[CheckResult]
    seconds: float
    facts: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    unmodelled: tuple[str, ...] = ()
    energy: Energy | None = None
    timeline: Timeline | None = None  #: one recorded run, for the timing diagram
    report: list[ReportPart] = field(default_factory=list)
    burn: BurnSheet | None = None  #: the bytes checked and how to burn them
    #: each check's links (by check name), and the files they name (in memory)
    evidence: dict[str, list[Evidence]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)

    @property
    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == FAIL]

    @property
    def passed(self) -> bool:
        """No check failed (skipped checks say why, and do not fail the run)."""
        return not self.failed

    def count(self, status: str) -> int:
        return sum(c.status == status for c in self.checks)

    def as_json(self) -> dict[str, Any]:
        c = self.candidate
        return {
            "firmware": str(c.path),
            "built": c.built,
            "board": c.board.name,
            "board_file": c.board.source,
            "board_chosen": c.board_chosen or None,
            "mcu": c.board.mcu,
            "f_cpu": c.f_cpu,
            "build": c.identified,
            **self.facts,
            "facts": list(self.facts),  # the keys above that a subject's checks added
            "passed": self.passed,
            "counts": {k: self.count(k) for k in (PASS, FAIL, SKIP)},
            "checks": [
                {**r.as_json(), "evidence": [e.as_json() for e in self.evidence.get(r.name, ())]}
                for r in self.checks
            ],
            "burn": self.burn.as_json() if self.burn is not None else None,
            "notes": list(self.notes),
            "unmodelled": list(self.unmodelled),
            "energy": self.energy.as_json() if self.energy else None,
            "options": self.options.as_json(),
            "seconds": round(self.seconds, 2),
        }


def _wanted(only: Iterable[str] | None, checks: Iterable[Check]) -> set[str]:
    listed = list(checks)
    names = [c.name for c in listed]
    if only is None:
        return set(names)
    wanted = set(only)
    unknown = sorted(wanted - set(names))
    if unknown:
        raise FairdieError(f"no check {unknown[0]!r} (checks: {', '.join(names)})")
    return wanted | {c.name for c in listed if c.always}


def verify(
    firmware: str | Path | None = None,
    *,
    board: str | None = None,
    eep: str | Path | None = None,
    only: Iterable[str] | None = None,
    options: Options | None = None,
    progress: Callable[[float], None] | None = None,
    programmer: str = DEFAULT_PROGRAMMER,
    report: Path | None = None,
    evidence: bool = True,
) -> Verdict:
    """Verify ``firmware`` (an ELF or HEX; None: build the board's own) on ``board``.

    ``only`` names the checks to run (those marked ``always`` run anyway);
    the burn sheet names ``programmer``, and with ``report`` (the report
    folder) the HEX and EEP of an ELF are copied there; without ``evidence``
    the verdict names each check's evidence but holds none of its files (no
    VCD is written: the verdict is for no report);
    ``progress(units)`` is told of work done, out of :func:`total_units`.
    Raises :class:`~fairdie.errors.FairdieError` for bad input (a missing or
    unreadable file, no board and no build to pick one by); a firmware that
    cannot run on the board is a failed check, not an error.
    """
    t0 = time.perf_counter()
    opts = options or Options()
    checks = all_checks()
    wanted = _wanted(only, (c for c, _ in checks))
    candidate = load_candidate(
        Path(firmware) if firmware is not None else None,
        board=board,
        eep=Path(eep) if eep is not None else None,
        seed=opts.seed,
    )
    bd = candidate.board
    not_here = {id(s): s.applies(bd) for s in {id(s): s for _, s in checks if s}.values()}
    results: list[CheckResult] = []
    with temp_folder() as tmp:
        ctx = Context(candidate, opts, Path(tmp), keep_files=evidence)
        done = [0.0]

        def tick(units: float) -> None:
            done[0] += units
            if progress is not None:
                progress(units)

        for check, subject in checks:
            before = done[0]
            ctx.tick = lambda f, w=check.weight: tick(f * w)  # type: ignore[misc]
            reason = not_here.get(id(subject)) if subject is not None else None
            run = check
            if reason is not None and check.name in _CORE_BY_NAME:
                run, reason = _CORE_BY_NAME[check.name], None  # the core's, on this board
            results.append(_one(run, ctx, wanted, reason))
            tick(max(0.0, before + check.weight - done[0]))
        sheet = _sheet(ctx, programmer, report)
    unmodelled = tuple(ctx.unmodelled())
    notes = list(ctx.notes)
    if unmodelled:
        notes.append(
            f"the emulation does not model {', '.join(unmodelled)}, which the firmware uses:"
            " what depends on it is not checked"
        )
    return Verdict(
        candidate,
        opts,
        results,
        time.perf_counter() - t0,
        facts=ctx.facts,
        notes=notes,
        unmodelled=unmodelled,
        energy=ctx.energy,
        timeline=ctx.timeline,
        report=ctx.report,
        burn=sheet,
        evidence=ctx.evidence,
        files=ctx.files,
    )


def _sheet(ctx: Context, programmer: str, report: Path | None) -> BurnSheet | None:
    """The burn sheet, or None (and a note why) for a firmware not to burn on this board."""
    if not ctx.runs:
        ctx.notes.append("no burn sheet: the firmware cannot run on this board")
        return None
    try:
        return burn_sheet(ctx.c, programmer=programmer, work=ctx.folder, report=report)
    except FairdieError as e:
        ctx.notes.append(f"no burn sheet: {e}")
        return None


def total_units(only: Iterable[str] | None = None) -> float:
    """What :func:`verify`'s progress adds up to."""
    checks = [c for c, _ in all_checks()]
    wanted = _wanted(only, checks)
    return sum(c.weight for c in checks if c.name in wanted)


def _one(check: Check, ctx: Context, wanted: set[str], not_here: str | None) -> CheckResult:
    if not_here is not None:
        return CheckResult(check.name, SKIP, not_here)
    if check.name not in wanted:
        return CheckResult(check.name, SKIP, "not asked for (--only)")
    if check is not BUILD_CHECKS[0] and not ctx.runs:
        return CheckResult(
            check.name, SKIP, "the firmware cannot run on this board (see mcu-and-memory)"
        )
    t0 = time.perf_counter()
    ctx.current = check.name
    status, reason, details = check.run(ctx)
    return CheckResult(check.name, status, reason, details, time.perf_counter() - t0)
