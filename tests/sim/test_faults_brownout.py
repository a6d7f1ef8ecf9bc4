"""The power-cut campaigns model what the die's fuses imply: with the
brown-out detector on (the default build) a cut resets the chip first and
the ring survives; with it off (the DIE_MUTANT_BOD_OFF build) a cut may
misexecute, landing the write in flight at a wrong address, which breaks the
ring, and each such violation replays from its id."""

from __future__ import annotations

import pytest
from quick_runs import CUTS, SHARED, quick

from fairdie.subjects.die.faults import Target, replay, run_faults
from fairdie.subjects.die.faults._cuts import plan_g1, plan_g4
from fairdie.subjects.die.faults._outcome import Outcome
from fairdie.subjects.die.faults._run import _run_unit
from fairdie.toolchain import build

pytestmark = [pytest.mark.sim, SHARED]


@pytest.fixture(scope="module")
def bod_off() -> Target:
    elf = build("die_t13a", defines={"DIE_MUTANT_BOD_OFF": 1}).elf
    return Target(firmware=str(elf))


@pytest.fixture(scope="module")
def off_g1(bod_off: Target) -> Outcome:
    """G1's quick tier but for its units with all 256 torn values (an erased
    chip, the ring's wrap: some 3,750 boots each), merged: each of the five
    others lands each write at four seeded wrong addresses, and each breaks
    the ring (the units with every value land at every address the same way)."""
    out = Outcome("G1")
    for unit in plan_g1(bod_off.resolved(), True, 0):
        if not unit.args[3]:  # not every torn value
            out.merge(_run_unit(unit))
    return out


def _misexecuted(replay_id: str) -> bool:
    return any("m" in s for s in replay_id.rsplit("~", 1)[1].split(","))


def test_the_report_says_what_the_fuses_imply(bod_off: Target) -> None:
    on = run_faults([]).brown_out  # no campaign: the fuses are read as the rig is made
    assert on == {
        "fuses": "lfuse 0x6A hfuse 0xFD",
        "source": "declared in the ELF's .fuse section",
        "detector": "1.8 V",
        "misexecutes": False,
    }
    off = run_faults([], target=bod_off).brown_out
    assert off is not None and off["misexecutes"] is True and off["detector"] == "off"
    assert off["fuses"] == "lfuse 0x6A hfuse 0xFF"


def test_with_the_detector_on_a_cut_resets_first_and_the_ring_survives() -> None:
    report = quick(CUTS, "direct")  # the default build's quick tier, as test_faults reads it
    assert report.brown_out is not None and report.brown_out["misexecutes"] is False
    o = report.outcomes["G1"]
    assert o.cuts > 0 and o.violation_count == 0, [v.as_json() for v in o.violations[:3]]


def test_with_the_detector_off_a_cut_misexecutes_and_breaks_the_ring(off_g1: Outcome) -> None:
    o = off_g1
    assert o.violation_count > 0
    # every violation is a cut that misexecuted: the torn cuts alone break nothing
    assert all(_misexecuted(v.replay) for v in o.violations)
    assert {v.invariant for v in o.violations} <= {"I1", "I2"}


def test_each_misexecuted_cut_replays_from_its_id(off_g1: Outcome) -> None:
    for v in off_g1.violations[:3]:
        again = replay(v.replay)
        assert again and again[-1].detail == v.detail


def test_the_soak_lands_cuts_at_seeded_wrong_addresses(bod_off: Target) -> None:
    target = bod_off.resolved()
    (unit,) = plan_g4(target, True, 0, presses=400)
    out = _run_unit(unit)
    assert out.figures["cuts_misexecuted"] > 0
    assert out.violation_count > 0
    for v in out.violations[:2]:
        assert _misexecuted(v.replay)
        assert replay(v.replay)[-1].detail == v.detail
