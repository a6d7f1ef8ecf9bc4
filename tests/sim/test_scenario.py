"""Scenarios on the real simulator: the shipped examples pass, each kind of
expectation fails at the step that breaks it, saying what it expected and
saw, and names a board or chip lacks are one-line errors before any step runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairdie.scenario import ScenarioError, run_scenario
from fairdie.toolchain import build, firmware_dir

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
TONE_BOARD = EXAMPLES / "tone-board.toml"
BUTTON_BOARD = firmware_dir() / "tests" / "button_die" / "board.toml"

BUTTON_DIE = f"""
[scenario]
firmware = "tests/button_die"
board = "{BUTTON_BOARD}"

[[step]]
wait = "50ms"

[[step]]
press = "roll"
hold = "100ms"

[[step]]
wait = "50ms"
"""
TONE = f"""
[scenario]
firmware = "tests/tone"
board = "{TONE_BOARD}"

[[step]]
wait = "20ms"
"""
EEPROM = """
[scenario]
firmware = "tests/eeprom"

[[step]]
wait = "20ms"
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "test_it.toml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("test_*.toml")))
def test_the_examples_pass(name: str) -> None:
    r = run_scenario(EXAMPLES / name)
    assert r.passed, r.message()
    assert len(r.steps) == len(r.scenario.steps) and r.message() == ""


def test_a_step_runs_for_its_time_to_the_cycle(tmp_path: Path) -> None:
    r = run_scenario(write(tmp_path, EEPROM + '\n[[step]]\nwait = "1234 cycles"\n'))
    assert [(s.start, s.end) for s in r.steps] == [(0, 24_000), (24_000, 25_234)]


@pytest.mark.parametrize(
    ("base", "extra", "key", "expected", "seen"),
    [
        (BUTTON_DIE, 'expect = { leds = ["c"] }', "expect.leds", "{c}", "{bl, br, c, tl, tr}"),
        (BUTTON_DIE, 'expect = { display = { face = "3" } }', "expect.display.face", "'3'", "'5'"),
        (
            BUTTON_DIE,
            'expect = { sleep = "power-down" }',
            "expect.sleep",
            "sleep in power-down",
            "slept in idle",
        ),
        (
            BUTTON_DIE,
            "expect = { sleep = false }",
            "expect.sleep",
            "no sleep",
            "sleeps, last in idle",
        ),
        (TONE, "expect = { tone = 2000 }", "expect.tone", "2000 Hz +/- 1 %", "3000.0 Hz"),
        (TONE, 'expect = { tone = "none" }', "expect.tone", "no tone", "3000.0 Hz"),
        (TONE, "expect = { quiet = true }", "expect.quiet", "no output edges", "PA5 changed"),
        (EEPROM, 'expect = { pins = { PB0 = "low" } }', "expect.pins.PB0", "low", "high"),
        (
            EEPROM,
            "expect = { eeprom = { address = 1, bytes = [0, 0x0F] } }",
            "expect.eeprom",
            "00 0f at 1",
            "ff 0f",
        ),
    ],
)
def test_each_expectation_fails_at_its_step(
    tmp_path: Path, base: str, extra: str, key: str, expected: str, seen: str
) -> None:
    steps = base.count("[[step]]")
    r = run_scenario(write(tmp_path, base + extra + '\n\n[[step]]\nwait = "1ms"\n'))
    assert not r.passed
    bad = r.failed_step
    assert bad is not None and bad.number == steps
    assert len(r.steps) == steps  # the run stops at the failing step
    (f,) = bad.failures
    assert f.key == key and f.expected == expected and seen in f.seen
    msg = r.message()
    assert msg.startswith(f"{r.scenario.source}: step {steps} ({bad.description}) at ")
    assert f"{key}: expected {expected}, saw" in msg
    assert msg.splitlines()[-1] == f"replay: {r.replay}"
    assert r.replay.startswith(f"fairdie run {r.firmware} ")
    assert r.replay.endswith(f"--scenario {r.scenario.source} --seed 0")


def test_the_same_checks_pass_when_they_hold(tmp_path: Path) -> None:
    for base, extra in [
        (BUTTON_DIE, 'expect = { leds = ["tl", "br", "tr", "bl", "c"], sleep = "idle" }'),
        (TONE, 'expect = { tone = { hz = 2990, tolerance = 15 }, sleep = "idle" }'),
        (
            EEPROM,
            'expect = { pins = { PB0 = "high" } }\n[[step]]\nwait = "5ms"\n'
            "expect = { quiet = true, sleep = true }",
        ),
    ]:
        r = run_scenario(write(tmp_path, base + extra))
        assert r.passed, r.message()


def test_a_wait_that_times_out_fails_its_step(tmp_path: Path) -> None:
    text = BUTTON_DIE + '\n[[step]]\nuntil = { display = { face = "2" } }\ntimeout = "30ms"\n'
    r = run_scenario(write(tmp_path, text))
    bad = r.failed_step
    assert bad is not None and bad.number == 4
    assert bad.end - bad.start == 36_000  # it waited its whole timeout
    (f,) = bad.failures
    assert f.key == "until" and f.expected == "display face shows '2'"
    assert f.seen == "not within 30 ms (then display.face '5')"


def test_waits_for_events_stop_on_the_event(tmp_path: Path) -> None:
    r = run_scenario(
        write(tmp_path, EEPROM.replace('wait = "20ms"', 'until = "eeprom-write"\ntimeout="9ms"'))
    )
    assert r.passed
    # erase and write takes 3.4 ms: the write completes 3.4 ms after it starts
    assert 3.4e-3 * 1.2e6 < r.steps[0].end < 3.5e-3 * 1.2e6


def test_the_caller_overrides_firmware_board_and_seed(tmp_path: Path) -> None:
    target = firmware_dir() / "tests" / "eeprom"
    elf = build(target).elf
    p = write(tmp_path, '[scenario]\nfirmware = "nowhere.elf"\nseed = 3\n[[step]]\nwait = "20ms"\n')
    r = run_scenario(p, firmware=target, seed=9)
    assert r.passed and r.seed == 9 and r.firmware == str(elf)
    assert "--mcu attiny13a --f-cpu 1200000" in r.replay  # no board: the chip named instead
    with pytest.raises(ScenarioError, match=r"\[scenario\]: firmware: no firmware"):
        run_scenario(write(tmp_path, '[[step]]\nwait = "1ms"\n'))
    p = write(tmp_path, '[scenario]\nfirmware = "nowhere.elf"\n[[step]]\nwait = "20ms"\n')
    with pytest.raises(ScenarioError, match=r"\[scenario\]: firmware: nowhere.elf: no such"):
        run_scenario(p)
    p.write_text('[scenario]\nboard = "nowhere.toml"\n[[step]]\nwait = "20ms"\n')
    with pytest.raises(ScenarioError, match=r"\[scenario\]: board: nowhere.toml: no such board"):
        run_scenario(p)


W = 'wait = "1ms"\nexpect = '


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ('press = "go"', "step 2: press: board button-die has no button 'go' (buttons: roll)"),
        ('release = "roll"', "step 2: release: button 'roll' is not pressed"),
        ('power = "on"', "step 2: power: the chip is already on"),
        ('power = "off"\n[[step]]\nuntil = "sleep"', "step 3: until: the chip is off"),
        (W + '{ leds = ["x"] }', "step 2: expect.leds: board button-die has no LED 'x'"),
        (W + '{ display = { dice = "1" } }', "expect.display.dice: board button-die has no"),
        (W + '{ display = { face = "7" } }', "display 'face' has no symbol '7' (symbols: 1,"),
        (W + "{ tone = 440 }", "step 2: expect.tone: board button-die has no [speaker]"),
        ('until = "tone"', "step 2: until: board button-die has no [speaker]"),
        (W + '{ pins = { PC0 = "high" } }', "expect.pins.PC0: the attiny13a has no pin PC0"),
        (W + "{ eeprom = { address = 63, bytes = [1, 2] } }", "overrun the attiny13a's 64 bytes"),
        ("analog = { noise = 100 }", "step 2: analog.noise: board button-die has no analog"),
    ],
)
def test_names_the_board_or_chip_lacks_are_one_line(
    tmp_path: Path, step: str, message: str
) -> None:
    text = f'[scenario]\nfirmware = "tests/button_die"\nboard = "{BUTTON_BOARD}"\n'
    p = write(tmp_path, text + f'[[step]]\nwait = "1ms"\n[[step]]\n{step}\n')
    with pytest.raises(ScenarioError) as e:
        run_scenario(p)
    assert "\n" not in str(e.value) and str(e.value).startswith(f"{p}: ")
    assert message in str(e.value)


def test_a_scenario_can_start_unpowered_and_feed_an_analog_input(tmp_path: Path) -> None:
    board = tmp_path / "adc-board.toml"
    board.write_text(
        '[board]\nname = "adc"\nmcu = "attiny13a"\nf_cpu = 1200000\nvcc_mv = 3000\n'
        '[analog.knob]\npin = "PB4"\nchannel = 2\n',
        encoding="utf-8",
    )
    text = (
        '[scenario]\nfirmware = "tests/adc"\nboard = "adc-board.toml"\npowered = false\n'
        '[[step]]\nanalog = { knob = 1500 }\n[[step]]\npower = "on"\n[[step]]\nwait = "5ms"\n'
    )
    r = run_scenario(write(tmp_path, text))
    assert r.passed and r.steps[0].end == 0


def test_a_boards_scenarios_run_from_its_folder(tmp_path: Path) -> None:
    from fairdie.board import load_board
    from fairdie.scenario._run import run_scenarios

    board = tmp_path / "board.toml"
    board.write_text(TONE_BOARD.read_text(), encoding="utf-8")
    (tmp_path / "test_a.toml").write_text('[[step]]\nwait = "5ms"\nexpect = { tone = 3000 }\n')
    (tmp_path / "test_b.toml").write_text('[[step]]\nwait = "5ms"\nexpect = { tone = 1000 }\n')
    tone = build(firmware_dir() / "tests" / "tone").elf
    results = run_scenarios(
        ["test_a.toml", tmp_path / "test_b.toml"], firmware=tone, board=load_board(board)
    )
    assert [r.passed for r in results] == [True, False]
    assert results[1].board == str(board)
