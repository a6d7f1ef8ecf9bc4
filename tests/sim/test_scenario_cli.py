"""``fairdie run`` (called in process) and pytest's collection of scenario
files (pytester, in process): exit codes 0/1/2, JSON, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# The inner pytest runs share this process: the engine and the runner are
# loaded before any of them (see test_plugin.py).
import fairdie.scenario._run
import fairdie.sim._chip
from fairdie._run_cli import run_main
from fairdie.toolchain import build, firmware_dir

# what an inner session builds it builds into this process's cache (pytester
# gives each a fresh HOME, whose empty cache would compile it again)
pytestmark = pytest.mark.usefixtures("shared_build_cache")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
TESTS = firmware_dir() / "tests"
BUTTON_BOARD = str(TESTS / "button_die" / "board.toml")
TONE_ELF = str(build(TESTS / "tone").elf)  # an ELF that names neither MCU nor clock


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = run_main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_free_run_prints_what_it_saw(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(
        capsys, "tests/tone", "--board", str(EXAMPLES / "tone-board.toml"), "--for", "20ms"
    )
    assert rc == 0, err
    assert "ran 20 ms" in out and "pin PA5: 120 edges" in out
    assert "tone 3000.0 Hz" in out and "sleep idle: 1 times" in out


def test_a_free_run_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    elf = build(TESTS / "button_die").elf
    rc, out, _ = run(capsys, str(elf), "--board", BUTTON_BOARD, "--for", "50ms", "--json")
    got = json.loads(out)
    assert rc == 0 and got["ms"] == 50 and got["board"] == "button-die"
    assert got["displays"]["face"] == [{"from_ms": 0, "to_ms": 50, "shown": "off"}]
    assert got["sleeps"]["idle"]["count"] == 50
    rc, out, _ = run(capsys, "tests/eeprom", "--for", "20ms", "--json")
    got = json.loads(out)
    assert [w["byte"] for w in got["eeprom_writes"]] == [0x5A, 0xFF, 0x0F]
    assert got["eeprom_changed"] == {"0": [255, 90], "2": [255, 15]}


def test_until_stops_at_the_event_or_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "tests/wdt", "--until", "PB0=high", "--for", "2s", "--json")
    got = json.loads(out)
    assert rc == 0 and got["seen"] and 1024 <= got["ms"] < 1025  # the watchdog's 1.024 s
    assert got["sleeps"]["power-down"]["count"] == 1
    rc, out, _ = run(capsys, "tests/echo", "--until", "sleep", "--for", "5ms")
    assert rc == 1 and "sleep: not seen" in out


def test_a_scenario_exits_0_or_1_naming_the_step(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rc, out, _ = run(capsys, "--scenario", str(EXAMPLES / "test_eeprom.toml"))
    assert rc == 0 and out.strip().endswith("5 steps passed")
    bad = tmp_path / "s.toml"
    bad.write_text('[[step]]\nwait = "20ms"\nexpect = { pins = { PB0 = "low" } }\n')
    elf = str(build(TESTS / "eeprom").elf)
    rc, out, err = run(
        capsys, elf, "--mcu", "attiny13a", "--f-cpu", "1200000", "--scenario", str(bad)
    )
    assert rc == 1 and out == ""
    assert err.splitlines()[0] == f"{bad}: step 1 (wait 20 ms) at 20.000 ms:"
    assert "expect.pins.PB0: expected low, saw high" in err
    replay = err.splitlines()[-1].removeprefix("replay: fairdie run ").split()
    rc, out, _ = run(capsys, *replay, "--json")  # the replay command replays it
    got = json.loads(out)
    assert rc == 1 and got["steps"][0]["failures"][0]["key"] == "expect.pins.PB0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([TONE_ELF], "no clock: give --f-cpu HZ or a --board"),
        ([TONE_ELF, "--mcu", "attiny84a"], "no clock: give --f-cpu HZ or a --board"),
        (["tests/echo", "--board", "die-direct", "--mcu", "attiny13a"], "give --board or --mcu"),
        (["tests/echo", "--for", "5"], "argument --for: '5' is not a time"),
        (["tests/echo", "--until", "rain"], "--until 'rain': expected an event"),
        (["tests/echo", "--until", "PC0=high"], "--until 'PC0=high': the attiny13a has no pin PC0"),
        (["nowhere.elf"], "nowhere.elf: no such firmware file"),
        (["--for", "1s"], "give FIRMWARE"),
        (["--scenario", "missing.toml"], "missing.toml: no such scenario file"),
        (["--scenario", "x.toml", "--for", "1s"], "--for and --until run without --scenario"),
        (["tests/echo", "--board", "nowhere.toml"], "nowhere.toml: no such board file"),
        (["tests/echo", "--seed", "-1"], "argument --seed"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    rc, out, err = run(capsys, *args)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_a_bad_scenario_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    p = tmp_path / "s.toml"
    p.write_text(f'[scenario]\nboard = "{BUTTON_BOARD}"\n[[step]]\npress = "go"\n')
    rc, _, err = run(capsys, "tests/button_die", "--scenario", str(p))
    assert (
        rc == 2
        and err
        == f"fairdie: error: {p}: step 1: press: board button-die has no"
        " button 'go' (buttons: roll)\n"
    )


# ---- pytest collects test_*.toml ----------------------------------------------------------

# loaded by name: a no-op once the fairdie plugin loads it too (pytest imports a plugin once)
PLUGIN = ("-p", "fairdie.scenario._pytest", "-p", "no:cacheprovider")


def test_pytest_runs_scenario_files(pytester: pytest.Pytester) -> None:
    for name in ("test_eeprom.toml", "test_watchdog.toml"):
        pytester.path.joinpath(name).write_text((EXAMPLES / name).read_text())
    fail = (EXAMPLES / "test_eeprom.toml").read_text().replace("0x0F] } }", "0x0E] } }", 1)
    pytester.path.joinpath("test_broken.toml").write_text(fail)
    pytester.path.joinpath("other.toml").write_text("not a scenario")  # not collected
    r = pytester.runpytest_inprocess(*PLUGIN)
    r.assert_outcomes(passed=2, failed=1)
    r.stdout.fnmatch_lines(
        [
            "*test_broken.toml: step 5 (power on) at 113.4* ms:",
            "  expect.eeprom: expected 5a ff 0e at 0, saw 5a ff 0f",
            "replay: fairdie run *eeprom.elf --mcu attiny13a --f-cpu 1200000 --scenario"
            " *test_broken.toml --seed 0",
        ]
    )
    assert "Traceback" not in r.stdout.str() and "def runtest" not in r.stdout.str()


def test_a_bad_scenario_file_is_a_one_line_collection_error(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("test_bad.toml").write_text('[[step]]\nwait = "soon"\n')
    r = pytester.runpytest_inprocess(*PLUGIN)
    assert r.ret == pytest.ExitCode.INTERRUPTED
    r.stdout.fnmatch_lines(["*test_bad.toml: step 1: wait: 'soon' is not a time such as*"])
    out = r.stdout.str()
    assert "Traceback" not in out and "load_scenario" not in out


def test_a_fault_in_the_run_is_not_called_a_bad_seed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.path.joinpath("test_eeprom.toml").write_text(
        (EXAMPLES / "test_eeprom.toml").read_text()
    )

    def broken(*args: object, **kwargs: object) -> None:  # a fault inside the run
        raise ValueError("a fault inside the run")

    monkeypatch.setattr(fairdie.scenario._run, "run_scenario", broken)
    r = pytester.runpytest_inprocess(*PLUGIN, "--fairdie-seed=7")
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines(["FAILED *::scenario - ValueError: a fault inside the run"])
    assert "--fairdie-seed '7'" not in r.stdout.str()


def test_the_sessions_firmware_and_board_stand_in_only_for_what_a_file_names_not(
    pytester: pytest.Pytester,
) -> None:
    own = Path(__file__).resolve().parents[1] / "scenarios"
    for path in own.glob("test_*.toml"):  # each names its firmware and its board
        pytester.path.joinpath(path.name).write_text(path.read_text())
    # names neither: the session's firmware on the session's board
    pytester.path.joinpath("test_neither.toml").write_text(
        '[[step]]\nwait = "100ms"\nexpect = { leds = ["c"] }\n'
    )
    # names its board alone: the session's firmware on it
    pytester.path.joinpath("test_board_only.toml").write_text(
        f'[scenario]\nboard = "{BUTTON_BOARD}"\n'
        '[[step]]\nwait = "100ms"\nexpect = { display = { face = "off" } }\n'
    )
    elf = build(TESTS / "button_die").elf
    r = pytester.runpytest_inprocess(
        *PLUGIN, "--fairdie-board=die-direct", f"--fairdie-firmware={elf}", "-p", "no:randomly"
    )
    r.assert_outcomes(passed=len(list(own.glob("test_*.toml"))) + 1, failed=1)
    # die-direct has no LED "c": the session's board reached the file naming none
    r.stdout.fnmatch_lines(["*test_neither.toml*board die-direct has no LED 'c'*"])
