"""fairdie debug's command line (it listens on loopback and says how to connect;
bad input is one line and exit 2) and ``monitor press`` on any board, a die's
or not (no gdb; the stub under avr-gdb is in test_debug.py)."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdie.debug._rsp import frame

# ---- the command line ------------------------------------------------------------------


def _sigint_as_from_a_terminal() -> None:
    """A child inherits an ignored or blocked SIGINT (Python then installs no
    KeyboardInterrupt for it), as some of the test process's libraries may leave it:
    start the command as a terminal would, with SIGINT at its default and unblocked."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_cli_listens_on_loopback_and_says_how_to_connect():
    proc = subprocess.Popen(
        [sys.executable, "-m", "fairdie.cli", "debug", "--board", "die-direct", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_as_from_a_terminal,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", lines[1])
        assert m, lines
        port = int(m.group(1))
        assert re.search(rf"avr-gdb \S+die\.elf .*-ex 'target remote :{port}'", lines[2])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(frame(b"?"))
            assert s.recv(1) == b"+"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 130
        assert proc.stderr is not None and proc.stderr.read() == "fairdie: interrupted\n"
    finally:
        proc.kill()


def test_cli_port_in_use_is_one_line_and_exit_2(capsys):
    from fairdie.cli import main

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        rc = main(["debug", "--board", "die-direct", "--port", str(port)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith(f"fairdie: error: port {port} on 127.0.0.1")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["debug", "/no/such/die.elf"], "no such firmware file"),
        (["debug", "--port", "70000"], "out of range"),
        (["debug", "--bogus"], "unrecognized arguments"),
        (["debug", "--port", "0"], "give a FIRMWARE (ELF or HEX) or a --board"),
        (["debug", "--mcu", "attiny85"], "give a FIRMWARE (ELF or HEX) or a --board"),
        (["debug", "--board", "die-direct", "--mcu", "attiny85"], "--mcu goes without --board"),
        (["debug", "--board", "/no/such/board.toml"], "no such board file"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv, says):
    from fairdie.cli import main

    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("fairdie: error: ")
    assert says in err


def test_cli_garbage_firmware_is_one_line(capsys, tmp_path):
    from fairdie.cli import main

    bad = tmp_path / "die.hex"
    bad.write_text(":zz\n")
    rc = main(["debug", str(bad), "--port", "0"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("fairdie: error: ")


# ---- monitor press on any board (no gdb) ------------------------------------------------


def _button_setup(tmp_path: Path, build: Callable[..., Any], *, die: bool) -> Any:
    """The button die's firmware on its board: with its ``[die]`` table (the
    die subject claims it: a Die) or without (the core's Device)."""
    from fairdie.device import Setup
    from fairdie.toolchain import firmware_dir

    text = (firmware_dir() / "tests" / "button_die" / "board.toml").read_text()
    board = tmp_path / "board.toml"
    board.write_text(text if die else text.split("\n[die]\n")[0] + "\n")
    return Setup.make(build("button_die").hex, board=board)


def test_monitor_press_names_any_board_button(tmp_path, build_test_firmware):
    from fairdie.debug._monitor import Monitor
    from fairdie.device import Device
    from fairdie.subjects.die import Die

    dev = _button_setup(tmp_path, build_test_firmware, die=False).device()
    assert type(dev) is Device  # no subject claims a board without a [die] table
    dev.power_on()
    dev.chip.run(seconds=0.05)
    monitor = Monitor(dev.chip, dev)
    before = dev.chip.cycle
    answer = monitor.run("press roll 0.3")
    assert dev.chip.cycle - before >= dev.chip.cycles_for(0.3)
    face = dev.read("face")
    assert face in "123456" and len(face) == 1  # the press rolled a face
    lit = ", ".join(sorted(dev.lit()))
    assert answer.startswith(f"pressed roll for 0.3 s: LEDs lit: {lit}; face {face!r}; cycle ")
    # its only button needs no name; the default hold is 0.2 s
    assert monitor.run("press").startswith("pressed roll for 0.2 s: LEDs lit: ")
    assert not isinstance(dev, Die) and dev.chip.powered
    assert monitor.run("press nope") == (
        "monitor press: board button-die has no button 'nope' (buttons: roll)\n"
    )
    assert monitor.run("press roll soon") == "monitor press: not a number of seconds: 'soon'\n"
    assert monitor.run("press roll 0").startswith("monitor press: hold 0.0 s is out of range")
    assert monitor.run("press roll 1 2").startswith("monitor press: say `monitor press [NAME")


def test_monitor_press_without_a_name_is_the_devices_own(tmp_path, build_test_firmware):
    """A die presses its own way (``debug_press``); a named button still presses."""
    from fairdie.debug._monitor import Monitor
    from fairdie.subjects.die import Die

    die = _button_setup(tmp_path, build_test_firmware, die=True).device()
    assert isinstance(die, Die)
    die.power_on()
    monitor = Monitor(die.chip, die)
    answer = monitor.run("press")
    assert die.presses == 1
    assert answer.startswith(f"press 1: face {die.display()}, display {die.display()!r}")
    assert monitor.run("press roll 0.2").startswith("pressed roll for 0.2 s: LEDs lit: ")
    assert die.presses == 1  # a named press is the board's button, not the die's roll


def test_monitor_press_without_a_board_says_so(make_chip):
    from fairdie.debug._monitor import Monitor

    answer = Monitor(make_chip("ctc")).run("press")
    assert (
        answer == "monitor press: no board here: run fairdie debug with --board to press buttons\n"
    )
