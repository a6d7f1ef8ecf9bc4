"""One inner pytest session under xdist, two workers, that three promises read:
the die suite's deselection line and JUnit suite properties come once, from the
controller (test_plugin.py); two workers count the firmware coverage one
process counts (test_coverage_plugin.py); a failing chip test's evidence is
written from a worker where ``--fairdie-evidence`` says (test_evidence.py).
Each worker is a fresh interpreter whose start-up costs about as much as the
tests it runs here: one session instead of three. The controller runs in this
process, as pytester's in-process sessions do; the tests that read the session
run on one xdist worker (make test's ``--dist loadgroup``), so it runs once."""

from __future__ import annotations

import contextlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import kept_modules
from fairdie.toolchain import build

#: the tests that read the session: one xdist worker runs them all
SHARED = pytest.mark.xdist_group("inner-xdist")

#: die suite tests of other builds: the other wiring, another clock, the seed's rule and board
OTHER_BUILDS = "each_face or other_clock or direct_wiring or pullup_alone or rebase_at"

#: tests that each make their own chips, differently: spread over workers
#: they must add up to what one process counts
COV_TESTS = """
import pytest
from fairdie.sim import Chip
from fairdie.toolchain import build, firmware_dir

def chip(**defines):
    b = build(firmware_dir() / "tests" / "cov_c", defines=defines)
    c = Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu)
    c.power_on()
    return c

@pytest.mark.parametrize("loops", [3, 4, 6])  # not 5, the default: one flash, one ELF
def test_loops(loops):
    chip(LOOPS=loops).run(20_000)

def test_interrupt():
    c = chip()
    c.run(10_000)
    c.drive("PB1", 0)
    c.run(10_000)

def test_after_restore():
    c = chip()
    c.run(10_000)
    s = c.snapshot()
    c.drive("PB3", 0)
    c.run(10_000)
    c.restore(s)
    c.run(5_000)
"""

#: a chip test that fails: its whole trace is its evidence
CHIP_TEST = """
def test_pb0(fairdie_chip):
    fairdie_chip.power_on()
    fairdie_chip.run(seconds=0.05)
    assert fairdie_chip.level("PB0").value == "nope"
"""


@dataclass(frozen=True)
class Run:
    """What the session left: its exit code, the controller's terminal output,
    the folder it ran in (its outputs: ``parallel.json``, ``ev/``), its JUnit
    XML (in a folder of its own) and the die firmware it was given."""

    ret: int
    out: str
    path: Path
    junit: Path
    firmware: Path


def run_under_xdist(where: Path, cache: Path) -> Run:
    """The session (run once a process by the session fixture ``xdist_run``):
    the die suite's tests of other builds on our direct build (seed 5),
    :data:`COV_TESTS` and :data:`CHIP_TEST`, on two workers, with a JUnit XML,
    coverage to JSON and evidence to ``ev``; what they build, they build into
    ``cache``."""
    firmware = build("die_t13a", variant="direct").hex
    (where / "test_cov.py").write_text(COV_TESTS)
    (where / "test_chip.py").write_text(CHIP_TEST)
    junit = where / "junit" / "junit.xml"
    args = [
        # collected in this order: the chips' tests first, spread over both workers
        "test_cov.py",
        "test_chip.py",
        "fairdie.subjects.die.suite",
        "--pyargs",
        "-p",
        "no:cacheprovider",
        f"--basetemp={where / 'basetemp'}",
        f"--fairdie-firmware={firmware}",
        "--fairdie-board=die-direct",
        "--fairdie-seed=5",
        "-k",
        f"test_cov or test_chip or {OTHER_BUILDS}",
        "-n",
        "2",
        f"--junitxml={junit}",
        "-o",
        "junit_family=xunit2",
        "--fairdie-cov=json:parallel.json",
        "--fairdie-evidence=ev",
        # what is read is the line, the XML and the files, no assertion's message;
        # with rewriting, where no bytecode is written (PYTHONDONTWRITEBYTECODE),
        # each worker would rewrite the whole suite
        "--assert=plain",
    ]
    modules, path = kept_modules.snapshot(), list(sys.path)
    out = io.StringIO()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(where)
            mp.delenv("PYTEST_ADDOPTS", raising=False)
            mp.setenv("FAIRDIE_CACHE", str(cache))
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                ret = int(pytest.main(args))
    finally:
        # as pytester does: the modules the session imported (its test modules,
        # the suite's) go, or a later inner session's test_cov.py would clash
        modules.restore()
        sys.path[:] = path
    return Run(ret, out.getvalue(), where, junit, firmware)
