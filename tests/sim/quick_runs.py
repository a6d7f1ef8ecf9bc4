"""The die's quick-tier campaign runs that several test modules read
(test_faults, test_faults_hostile, test_faults_brownout, test_verify's power-cut check): each is
run once in a process, however many tests ask for it. The reports are read,
never changed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from fairdie.subjects.die.faults import Report, Target
from fairdie.subjects.die.faults._run import run_faults

#: the power-cut campaigns, and the hostile ones (images, noise, wear)
CUTS = ("G1", "G2", "G3", "G4")
HOSTILE = ("G5", "G6", "G7")

#: the tests that read these runs, or boot the images they boot (faults/_work.py
#: keeps a process's boots): one xdist worker runs them all under ``--dist loadgroup``
#: (make test), so each run is made once a session, not once per worker
SHARED = pytest.mark.xdist_group("die-quick-tier")

#: (campaigns, target, its setup, seed) -> the report of their quick tier
_RUNS: list[tuple[tuple[object, ...], Report]] = []


def run_once(
    campaigns: Sequence[str],
    *,
    target: Target | None = None,
    quick: bool = False,
    seed: int = 0,
    jobs: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """:func:`run_faults`, with a quick tier in this process run once: the same
    campaigns on the same target (its strings, which replay ids name, and the
    recipe they resolve to: board, firmware file, clock) from the same seed
    give the same report. Any other run is run."""
    target = (target or Target()).resolved()
    if not quick or jobs != 1 or scheduler is not None:
        return run_faults(
            campaigns,
            target=target,
            quick=quick,
            seed=seed,
            jobs=jobs,
            scheduler=scheduler,
            progress=progress,
        )
    key = (tuple(campaigns), target, target.setup, seed)
    for known, report in _RUNS:
        if known == key:
            if progress is not None:
                progress(1, 1)
            return report
    report = run_faults(campaigns, target=target, quick=True, seed=seed, progress=progress)
    _RUNS.append((key, report))
    return report


def quick(campaigns: tuple[str, ...], variant: str | None = None) -> Report:
    """``campaigns``' quick tier on the build ``variant`` (None: the board's)."""
    return run_once(campaigns, target=Target(variant=variant), quick=True)
