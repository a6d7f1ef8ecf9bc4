"""Scenario files read without the simulator: what each key becomes, and every
mistake reported as one line naming the file, the step and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairdie.errors import FairdieError
from fairdie.scenario import ScenarioError, load_scenario
from fairdie.scenario._model import (
    Duration,
    Power,
    Press,
    Release,
    ToneExpect,
    Wait,
    WaitUntil,
)

GOOD = """
[scenario]
name = "demo"
firmware = "fw.elf"
board = "board.toml"
seed = 7

[[step]]
power = "cut"

[[step]]
power = "on"

[[step]]
press = "go"
hold = "20ms"
expect = { leds = ["a", "b"], display = { face = 3 }, pins = { pb0 = "high" } }

[[step]]
press = "go"

[[step]]
release = "go"

[[step]]
wait = "1200 cycles"
expect = { tone = { hz = 440, tolerance = 5 }, eeprom = [{ address = 2, bytes = [1, 0xff] }] }

[[step]]
until = "sleep"
expect = { sleep = "Power-Down", quiet = true }

[[step]]
until = { display = { face = "off" } }
timeout = "2s"

[[step]]
expect = { tone = "none", sleep = false }
"""


def write(tmp_path: Path, text: str, name: str = "test_s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_a_file_reads_as_it_says(tmp_path: Path) -> None:
    sc = load_scenario(write(tmp_path, GOOD))
    assert (sc.name, sc.firmware, sc.board, sc.seed, sc.powered) == (
        "demo",
        "fw.elf",
        "board.toml",
        7,
        True,
    )
    assert sc.base == tmp_path.resolve()
    s = sc.steps
    assert [x.number for x in s] == list(range(1, 10))
    assert s[0].action == Power(False) and s[1].action == Power(True)
    assert s[2].action == Press("go", Duration(20, "ms"))
    assert s[2].expect.leds == frozenset({"a", "b"})
    assert s[2].expect.display == (("face", "3"),)
    assert s[2].expect.pins == (("PB0", True),)
    assert s[3].action == Press("go") and s[4].action == Release("go")
    assert s[5].action == Wait(Duration(1200, "cycles"))
    assert s[5].expect.tone == ToneExpect(440, 5, relative=False)
    assert s[5].expect.eeprom == ((2, b"\x01\xff"),)
    assert s[6].action == WaitUntil("sleep", None, Duration(1, "s"))
    assert s[6].expect.sleep == "power-down" and s[6].expect.quiet
    assert isinstance(s[7].action, WaitUntil) and s[7].action.timeout == Duration(2, "s")
    assert s[8].expect.tone == ToneExpect(None) and s[8].expect.sleep is False
    assert s[2].describe() == "press go for 20 ms"
    assert s[7].describe() == "wait until display face shows 'off', at most 2 s"


@pytest.mark.parametrize(
    ("text", "cycles"),
    [("250ms", 300_000), ("10s", 12_000_000), ("1200 cycles", 1200), ("0.5 us", 1), ("3us", 4)],
)
def test_times_convert_to_cycles_at_the_clock(text: str, cycles: int) -> None:
    assert Duration.parse(text).cycles(1_200_000) == cycles


@pytest.mark.parametrize(
    ("step", "where"),
    [
        ('wait = "10 parsecs"', "step 1: wait: '10 parsecs' is not a time"),
        ("wait = 250", "step 1: wait: expected a time with its unit"),
        ('wait = "0ms"', "step 1: wait: '0ms' is not a positive time"),
        ('wait = "2h"', "step 1: wait:"),
        ('wait = "1.5 cycles"', "cycles are whole numbers"),
        ('wait = "5000s"', "longer than 3600 s"),
        ('blink = "led"', "step 1: blink: unknown key"),
        ('press = "a"\nrelease = "a"', "step 1: release: a step does one thing"),
        ('wait = "1ms"\nhold = "1ms"', "step 1: hold: goes with 'press'"),
        ('wait = "1ms"\ntimeout = "1ms"', "step 1: timeout: goes with 'until'"),
        ('power = "maybe"', "step 1: power: expected 'on', 'off' or 'cut'"),
        ('until = "rain"', "step 1: until: unknown event 'rain'"),
        ("until = { tone = 5 }", "step 1: until.tone: unknown key"),
        ('name = "only a name"', "step 1: step: does nothing"),
        ('press = ""', "step 1: press: expected a non-empty string"),
        ("analog = { noise = -1 }", "step 1: analog.noise: -1 mV is out of range"),
        ('wait = "1ms"\nexpect = { tone = { tolerance = 1 } }', "expect.tone: missing key 'hz'"),
        (
            'wait = "1ms"\nexpect = { eeprom = { bytes = [1] } }',
            "step 1: expect.eeprom: missing key 'address'",
        ),
        ('wait = "1ms"\nexpect = { eeprom = { address = 0, bytes = [256] } }', "bytes 0..255"),
        ('wait = "1ms"\nexpect = { pins = { PX9 = "high" } }', "expect.pins.PX9: bad pin name"),
        ('wait = "1ms"\nexpect = { pins = { PB0 = "up" } }', "expected 'high' or 'low'"),
        ('wait = "1ms"\nexpect = { sleep = "doze" }', "step 1: expect.sleep: expected true"),
        ('wait = "1ms"\nexpect = { quiet = 1 }', "step 1: expect.quiet: expected true or false"),
        ('wait = "1ms"\nexpect = { smell = 1 }', "step 1: expect.smell: unknown key"),
        ('wait = "1ms"\nexpect = { leds = "a" }', "step 1: expect.leds: expected a list"),
        ('wait = "1ms"\nexpect = {}', "step 1: expect: empty"),
        ('wait = "1ms"\nexpect = { tone = { hz = 1, tolerance = "x%" } }', "a percentage"),
    ],
)
def test_each_mistake_is_one_line_naming_file_step_and_key(
    tmp_path: Path, step: str, where: str
) -> None:
    p = write(tmp_path, f'[[step]]\nwait = "1ms"\n\n[[step]]\n{step}\n')
    # the mistake is in the second step: numbering counts from 1 in the file
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{p}: step 2:")
    assert where.replace("step 1", "step 2") in msg
    assert isinstance(e.value, FairdieError)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("", "step: no steps"),
        ("[scenario]\nname = 'x'\n", "no steps"),
        ("[[step]]\nwait = '1ms'\n[other]\n", "unknown table 'other'"),
        ("[scenario]\nspeed = 1\n[[step]]\nwait = '1ms'\n", "[scenario]: speed: unknown key"),
        ("[scenario]\nseed = -1\n[[step]]\nwait = '1ms'\n", "[scenario]: seed: expected"),
        ("[scenario]\npowered = 'yes'\n[[step]]\nwait = '1ms'\n", "[scenario]: powered"),
        ("[[step]]\nwait = '1ms\n", "not valid TOML"),
        ("step = 3\n", "step: no steps"),
    ],
)
def test_header_and_file_mistakes_are_one_line(tmp_path: Path, text: str, where: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    assert "\n" not in str(e.value) and str(e.value).startswith(str(p)) and where in str(e.value)


def test_a_missing_or_unreadable_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "nope.toml")
    with pytest.raises(ScenarioError, match="a directory"):
        load_scenario(tmp_path)
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load_scenario(tmp_path / "bin.toml")
