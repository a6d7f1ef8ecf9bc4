"""``fairdie run``, ``fairdie trace``, scenarios and ``fairdie verify`` make
their chip by one recipe (:class:`fairdie.device.Setup`): the same clock for
the same inputs, the same targets found by the same names, and a scenario's
replay line that runs it again as it ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairdie._run_cli import run_main
from fairdie._trace import trace_main
from fairdie.device import Setup
from fairdie.scenario import run_scenario
from fairdie.toolchain import build, firmware_dir
from fairdie.verify._candidate import load_candidate

BOARD_HZ = 1_200_000  # die-direct's clock
FAST_HZ = 8_000_000
BUTTON_BOARD = str(firmware_dir() / "tests" / "button_die" / "board.toml")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = run_main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _scenario(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("given", [None, FAST_HZ])
def test_run_trace_scenario_and_verify_agree_on_the_clock(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, given: int | None
) -> None:
    elf = build("die_t13a", f_cpu=FAST_HZ).elf  # its ELF names 8 MHz; the board says 1.2
    want = given or BOARD_HZ
    more = [] if given is None else ["--f-cpu", str(given)]
    assert Setup.make(elf, board="die-direct", f_cpu=given).f_cpu == want
    if given is None:  # verify takes no --f-cpu: the board's clock
        assert load_candidate(elf, board="die-direct", eep=None).setup.f_cpu == want

    rc, out, err = _run(capsys, str(elf), "--board", "die-direct", "--for", "1ms", *more)
    assert rc == 0, err
    assert f" at {want} Hz" in out.splitlines()[0]

    vcd = tmp_path / "run.vcd"
    rc = trace_main([str(elf), "--board", "die-direct", "--for", "1ms", "--vcd", str(vcd), *more])
    assert rc == 0 and f" at {want} Hz" in vcd.read_text()
    capsys.readouterr()

    s = _scenario(tmp_path, '[[step]]\nwait = "1ms"\n')
    r = run_scenario(s, firmware=elf, board="die-direct", f_cpu=given)
    assert r.passed and r.frequency == want == r.device.chip.frequency  # type: ignore[union-attr]


def test_shipped_and_test_targets_by_name_everywhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rc, out, err = _run(capsys, "die_t13a", "--board", "die-direct", "--for", "1ms")
    assert rc == 0, err
    assert out.startswith("die.elf on die-direct")
    s = _scenario(
        tmp_path,
        '[scenario]\nfirmware = "die_t13a"\nboard = "die-direct"\n[[step]]\nwait = "1ms"\n',
    )
    assert run_scenario(s).passed
    rc, out, err = _run(capsys, "tests/echo", "--for", "1ms")
    assert rc == 0, err
    rc, out, err = _run(capsys, "no_such_target", "--for", "1ms")
    assert rc == 2 and "no such firmware file, target folder or shipped target" in err
    assert "die_t13a" in err and "tests/NAME" in err


def test_the_replay_line_runs_at_the_clock_it_ran_at(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the echo firmware's ELF names no clock: without --f-cpu, the replay
    # would run it at the board's 1.2 MHz and fail elsewhere
    bad = _scenario(
        tmp_path,
        '[[step]]\nwait = "1000 cycles"\nexpect = { eeprom = { address = 0, bytes = 0x12 } }\n',
    )
    argv = ["tests/echo", "--board", BUTTON_BOARD, "--f-cpu", str(FAST_HZ), "--scenario", str(bad)]
    rc, out, err = _run(capsys, *argv)
    assert rc == 1 and out == ""
    assert "at 0.125 ms" in err.splitlines()[0]  # 1000 cycles at 8 MHz
    replay = err.splitlines()[-1].removeprefix("replay: fairdie run ").split()
    assert replay[replay.index("--f-cpu") + 1] == str(FAST_HZ)
    rc, out, again = _run(capsys, *replay)
    assert rc == 1 and again == err  # the same failure, the same replay line


def test_a_folder_without_target_toml_names_the_flags_to_give(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "main.c").write_text("int main(void) { return 0; }\n")
    rc, out, err = _run(capsys, str(tmp_path), "--for", "1ms")
    assert rc == 2 and out == ""
    assert err == (
        f"fairdie: error: {tmp_path}: no target.toml: give the MCU and clock (--mcu and --f-cpu)\n"
    )
    rc, out, err = _run(capsys, str(tmp_path), "--mcu", "attiny13a", "--f-cpu", "1000000")
    assert rc == 0 and out.startswith(f"{tmp_path.name}.elf on bare attiny13a at 1000000 Hz"), err


def test_a_plain_name_of_a_working_directory_folder_still_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    shutil.copytree(firmware_dir() / "tests" / "echo", tmp_path / "mine")
    monkeypatch.chdir(tmp_path)
    rc, out, err = _run(capsys, "mine", "--for", "1ms")
    assert rc == 0 and out.startswith("echo.elf on bare attiny13a"), err
    s = _scenario(tmp_path, '[scenario]\nfirmware = "mine"\n[[step]]\nwait = "1ms"\n')
    assert run_scenario(s).passed


def test_a_file_that_names_another_clock_says_so(capsys, tmp_path) -> None:
    import json

    from fairdie.cli import main
    from fairdie.toolchain import build

    fast = build("die_t13a", f_cpu=8_000_000).elf  # die-direct's fuses say 1.2 MHz
    assert main(["run", str(fast), "--board", "die-direct", "--for", "10ms", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["clock_note"] == (
        f"{fast.name} names 8000000 Hz but runs at 1200000 Hz"
        " (the board's clock; --f-cpu 8000000 runs it at its own)"
    )
    assert (
        main(
            [
                "run",
                str(fast),
                "--board",
                "die-direct",
                "--for",
                "10ms",
                "--f-cpu",
                "8000000",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["clock_note"] is None
