"""A failing simulation test attaches what replays it: the plugin, run in
process with pytester on small test files of our own, its JUnit XML parsed
back, its VCDs read with pyvcd's reader."""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest
from simsupport import read_vcd
from xdist_run import SHARED, Run

# Loaded before any inner run (see test_plugin.py).
import fairdie.cli
import fairdie.subjects.die._die

# what an inner session builds it builds into this process's cache (pytester
# gives each a fresh HOME, whose empty cache would compile it again)
pytestmark = pytest.mark.usefixtures("shared_build_cache")

DICE = """
def test_three_sevens(die_factory):
    die = die_factory(noise="floating", seed=11)
    faces = [die.roll(0.2).face for _ in range(3)]
    assert faces == [7, 7, 7]

def test_passes(die):
    assert die.roll(0.1).face in range(1, 7)
"""
PRESS = "fairdie press --board die-direct --seed 11 --noise floating --count 3 --hold 0.2"


def properties(xml: Path) -> dict[str, dict[str, list[str]]]:
    """Each test case's properties: test name -> property name -> values."""
    out: dict[str, dict[str, list[str]]] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        props: dict[str, list[str]] = defaultdict(list)
        for p in case.iterfind("properties/property"):
            props[str(p.get("name"))].append(str(p.get("value")))
        out[str(case.get("name"))] = dict(props)
    return out


def test_a_failing_die_test_leaves_its_replay_and_vcd_next_to_the_junit_xml(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_dice=DICE)
    xml = tmp_path / "out" / "junit.xml"
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--junitxml={xml}")
    assert r.ret == 1
    assert r.parseoutcomes() == {"failed": 1, "passed": 1}
    vcd = tmp_path / "out" / "fairdie-evidence" / "test_dice.test_three_sevens.vcd"
    props = properties(xml)
    assert props["test_passes"] == {}
    got = props["test_three_sevens"]
    assert set(got) == {"fairdie_replay", "fairdie_seed", "fairdie_press", "fairdie_vcd"}
    assert got["fairdie_replay"] == [
        f"pytest {pytester.path / 'test_dice.py'}::test_three_sevens --fairdie-seed=0"
    ]
    assert got["fairdie_seed"] == ["11"] and got["fairdie_press"] == [PRESS]
    assert got["fairdie_vcd"] == [str(vcd)]
    assert sorted(vcd.parent.iterdir()) == [vcd]  # the passing test left nothing
    r.stdout.fnmatch_lines(
        [
            "*- fairdie replay -*",
            "pytest *test_dice.py::test_three_sevens --fairdie-seed=0",
            f"die (seed 11): {PRESS}",
            f"  VCD of its last press (press 3): {vcd}",
        ]
    )

    # the press command replays it: with --vcd added it records the same
    # press, pin edge for pin edge, conversion for conversion
    again = tmp_path / "again.vcd"
    assert fairdie.cli.main([*shlex.split(PRESS)[1:], "--vcd", str(again)]) == 0
    evidence, traced = read_vcd(vcd)[1], read_vcd(again)[1]
    assert [n for n in evidence if n.startswith("P")] == ["PB0", "PB1", "PB2", "PB3"]
    assert {"centre", "top-left", "middle-right"} <= set(evidence)  # the board's LED names
    assert "sleep" not in evidence  # cheap: the plugin's dice do not record sleep
    assert set(evidence) < set(traced)
    for name, wave in evidence.items():
        assert wave == traced[name], name
    assert len(evidence["adc"]) > 1 and len(evidence["eeprom_busy"]) > 1


@SHARED
def test_a_chip_test_under_xdist_writes_to_the_evidence_option(xdist_run: Run) -> None:
    """A chip's whole trace; --fairdie-evidence (relative to where pytest runs)
    wins over the JUnit folder; the properties reach the XML from a worker.
    The shared session (xdist_run.py) runs CHIP_TEST, seed 5, on a worker."""
    vcd = xdist_run.path / "ev" / "test_chip.test_pb0.vcd"
    got = properties(xdist_run.junit)["test_pb0"]
    assert got["fairdie_vcd"] == [str(vcd)] and got["fairdie_seed"] == ["5"]
    assert "fairdie_press" not in got
    waves = read_vcd(vcd)[1]
    assert {"PB0", "power", "sleep", "adc", "eeprom_busy"} <= set(waves)
    assert waves["power"][-1][1] == "1" and len(waves["PB0"]) > 1
    assert not (xdist_run.junit.parent / "fairdie-evidence").exists()
    assert sorted(vcd.parent.iterdir()) == [vcd]  # no passing test left any


def test_without_junit_the_evidence_goes_under_the_basetemp(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """Inside @given the last die is the failing example's (Hypothesis runs it
    last, shrunk); a die fed a noise model object has no press command."""
    pytester.makepyfile(
        test_held="""
        from hypothesis import given, settings, strategies as st
        from fairdie.noise import Stuck

        @settings(max_examples=5, database=None, derandomize=True)
        @given(hold=st.floats(0.05, 0.5))
        def test_any_hold(die_factory, hold):
            die = die_factory(noise="stuck:1000")
            die.roll(hold)
            assert hold < 0.2

        def test_a_model(die_factory):
            die = die_factory(noise=Stuck(1000))
            assert die.roll(0.1).display != "fault"
        """
    )
    base = tmp_path / "bt"
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--basetemp={base}")
    assert r.parseoutcomes() == {"failed": 2}
    out = r.stdout.str()
    hold = float(re.findall(r"hold=([0-9.e+-]+),", out)[-1])
    n = int(re.findall(r"^die (\d) of \1 \(seed 0\): ", out, re.M)[-1])
    held = base / "fairdie-evidence" / f"test_held.test_any_hold-{n}.vcd"
    r.stdout.fnmatch_lines(
        [
            f"die {n} of {n} (seed 0): fairdie press --board die-direct --seed 0"
            f" --noise stuck:1000 --count 1 --hold {hold!r}",
            f"  VCD of its last press (press 1): {held}",
            "die (seed 0): no fairdie press equivalent: its noise is a model object, not a name",
        ]
    )
    (on, _), (off, _) = read_vcd(held)[1]["power"][-2:]
    assert off - on == pytest.approx(hold * 1e9, abs=10_000)
    assert (base / "fairdie-evidence" / "test_held.test_a_model.vcd").is_file()


@pytest.mark.parametrize("form", ["env", "ini"])
def test_the_evidence_option_forms(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, form: str
) -> None:
    pytester.makepyfile(
        test_form="""
        def test_fails(fairdie_chip, fairdie_evidence):
            fairdie_chip.power_on()
            fairdie_chip.run(seconds=0.01)
            assert fairdie_evidence.name == "nowhere"
        """
    )
    where = tmp_path / form
    if form == "env":
        monkeypatch.setenv("FAIRDIE_EVIDENCE", str(where))
    else:
        pytester.makeini(f"[pytest]\nfairdie_evidence = {where}\n")
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--fairdie-board=die-direct")
    assert r.parseoutcomes() == {"failed": 1}
    r.stdout.fnmatch_lines([f"*AssertionError: assert '{form}' == 'nowhere'*"])
    assert read_vcd(where / "test_form.test_fails.vcd")[1]["power"][-1][1] == "1"
