"""A new subject is a new folder plus one registry line: ``echo_subject``
beside this file (its board, its firmware target, a verify check, a pytest
fixture and a command) joins fairdie through one line in
:data:`fairdie.subjects.REGISTRY`, and nothing else changes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import fairdie.subjects
from fairdie.board import load_board, shipped_boards
from fairdie.cli import main
from fairdie.toolchain import build
from fairdie.toolchain._target import shipped_targets

HERE = Path(__file__).resolve().parent


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(HERE))  # echo_subject is importable
    monkeypatch.setitem(fairdie.subjects.REGISTRY, "echo", "echo_subject")  # the one line
    yield


def test_without_its_line_fairdie_knows_no_echo() -> None:
    assert "echo" not in shipped_boards() and "echo_fw" not in shipped_targets()


def test_its_command_is_listed_and_runs(echo: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("  echo-press "))
    assert line.split(None, 1)[1] == "press the echo board's button [echo]"
    assert main(["echo-press"]) == 0
    assert capsys.readouterr().out == "LED before True, while pressed False, after True\n"


def test_its_board_and_its_firmware_are_found(echo: None) -> None:
    board = load_board("echo")
    assert board.source == "echo.toml (shipped)" and board.firmware == "echo_fw"
    assert shipped_targets()["echo_fw"] == HERE / "echo_subject" / "firmware" / "echo_fw"
    b = build("echo_fw")
    assert b.elf.is_file() and b.mcu == "attiny13a"


def test_verify_runs_its_check_and_skips_the_dies(
    echo: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--board", "echo", "--json", "--only", "echo-follows"]) == 0
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["echo-follows"]["status"] == "pass", checks["echo-follows"]
    assert checks["faces"]["status"] == "skipped"
    assert checks["faces"]["reason"] == "board echo is no die: no [die] table"
    # and on the die's board, the echo's check is skipped, saying why
    assert main(["verify", "--board", "die-direct", "--json", "--only", "faces"]) == 0
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["echo-follows"]["status"] == "skipped"
    assert checks["echo-follows"]["reason"] == "board die-direct is no echo board"


@pytest.mark.usefixtures("shared_build_cache")  # a fresh HOME's cache would build it again
def test_its_fixture_serves_a_pytest_session(echo: None, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from echo_subject.follow import follows

        def test_the_led_follows(echo_device):
            assert echo_device.board.name == "echo"
            assert follows(echo_device) == (True, False, True)
        """
    )
    r = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--fairdie-board=echo")
    assert r.ret == 0, r.stdout.str()[-3000:]
    r.assert_outcomes(passed=1)
