"""The die's quick-tier campaign runs that several test modules read
(test_faults, test_faults_hostile): each is run once in a process, however
many modules ask for it. The reports are read, never changed."""

from __future__ import annotations

from functools import cache

from fairdie.subjects.die.faults import Report, Target, run_faults

#: the power-cut campaigns, and the hostile ones (images, noise, wear)
CUTS = ("G1", "G2", "G3", "G4")
HOSTILE = ("G5", "G6", "G7")


@cache
def quick(campaigns: tuple[str, ...], variant: str | None = None) -> Report:
    """``campaigns``' quick tier on the build ``variant`` (None: the board's), in this process."""
    return run_faults(list(campaigns), quick=True, target=Target(variant=variant))
