"""The ``fairdie press`` a failing die test prints replays the press and
judges it as the suite does: against the die's model, press by press. Run as
printed, it exits 1 when the press it replays is wrong (a firmware that rolls
a face under a stuck pin, where its model shows the fault pattern), and 0
when the presses are right and the test failed for another reason."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from simsupport import run
from test_evidence import properties

# Loaded before any inner run (see test_plugin.py).
import fairdie.subjects.die._die  # noqa: F401
from fairdie.toolchain import build

# what an inner session builds it builds into this process's cache (pytester
# gives each a fresh HOME, whose empty cache would compile it again)
pytestmark = pytest.mark.usefixtures("shared_build_cache")

DICE = """
def test_a_stuck_pin_shows_the_fault(die_factory):
    die = die_factory(noise="stuck:1000")
    assert [die.roll(0.2).display for _ in range(3)] == ["fault"] * 3

def test_fails_after_right_presses(die_factory):
    die = die_factory(noise="floating", seed=5)
    faces = [die.roll(0.2).face for _ in range(4)]
    assert faces == []
"""
FAIRDIE = Path(sys.executable).parent / "fairdie"


def _printed(xml: Path, test: str) -> list[str]:
    """The ``fairdie press`` the junit XML gives ``test``, without ``fairdie``."""
    (press,) = properties(xml)[test]["fairdie_press"]
    argv = shlex.split(press)
    assert argv[:2] == ["fairdie", "press"]
    return argv[1:]


def _replay(xml: Path, test: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(FAIRDIE), *_printed(xml, test)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _run_suite(pytester: pytest.Pytester, xml: Path, defines: dict[str, int]) -> pytest.RunResult:
    firmware = build("die_t13a", defines=defines).hex
    pytester.makepyfile(test_dice=DICE)
    return pytester.runpytest_inprocess(
        "-p",
        "no:cacheprovider",
        f"--fairdie-firmware={firmware}",
        "--fairdie-board=die-direct",
        f"--junitxml={xml}",
    )


def test_the_replay_of_a_wrong_press_exits_1(pytester: pytest.Pytester, tmp_path: Path) -> None:
    xml = tmp_path / "junit.xml"
    r = _run_suite(pytester, xml, {"DIE_MUTANT_NO_HEALTH": 1})
    assert r.parseoutcomes()["failed"] == 2, r.stdout.str()[-3000:]
    done = _replay(xml, "test_a_stuck_pin_shows_the_fault")
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert re.fullmatch(
        r"fairdie: press 1 is not its fair model's: it showed face [1-6], the model the fault"
        r" pattern; replay: fairdie press --board die-direct --firmware \S+die\.hex .*",
        line,
    ), line


def test_the_replay_of_right_presses_exits_0(
    pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The test failed, its presses did not: the replay says so by exiting 0
    (run in this process; the entry point's exit status is the test above's)."""
    xml = tmp_path / "junit.xml"
    r = _run_suite(pytester, xml, {})
    assert r.parseoutcomes() == {"failed": 1, "passed": 1}, r.stdout.str()[-3000:]
    capsys.readouterr()
    rc, _, err = run(capsys, *_printed(xml, "test_fails_after_right_presses"))
    assert rc == 0, err
    assert err == ""


@pytest.mark.parametrize(
    ("ticks", "hold", "status", "why"),
    [
        (None, "9.9", 0, ""),
        (None, "10.05", 0, ""),
        (150, "9.9", 1, "held 9.9 s, it cleared the table; the model clears it after 10 s"),
        (160, "10.05", 1, "held 10.05 s, it kept the table; the model clears it after 10 s"),
    ],
)
def test_a_press_held_for_the_clear_is_judged_by_its_hold(
    capsys: pytest.CaptureFixture[str], ticks: int | None, hold: str, status: int, why: str
) -> None:
    """The 10 s clear too: a firmware that clears early, or late, fails the press
    that ``verify``'s ``clear-10s`` links to; ours passes it either side of 10 s."""
    defines = {} if ticks is None else {"DIE_MUTANT_CLEAR_TICKS": ticks}
    firmware = build("die_t13a", defines=defines).hex
    rc, _, err = run(capsys, "press", "--firmware", str(firmware), "--hold", hold, "--json")
    assert rc == status, err
    assert (why in err) if why else err == ""
