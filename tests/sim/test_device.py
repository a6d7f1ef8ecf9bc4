"""The device layer on boards other than our die: a die rolled by a button on
its own wiring (series LED pairs, its own faces, no EEPROM), contact bounce,
a speaker, and runs that end on their deadline."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdie.board import Bounce, load_board
from fairdie.cli import main
from fairdie.device import Device
from fairdie.errors import FairdieError
from fairdie.sim import Chip, EventKind
from fairdie.sim._chip import SIMAVR_FIXES
from fairdie.subjects.die import Die
from fairdie.toolchain import firmware_dir

BUTTON_DIE = firmware_dir() / "tests" / "button_die"
BOARD = BUTTON_DIE / "board.toml"


@pytest.fixture(scope="module")
def button_die_hex(build_test_firmware: Callable[..., Any]) -> Path:
    return Path(build_test_firmware("button_die").hex)


def button_die(hex_path: Path, **kw: Any) -> Die:
    from fairdie.sim import load_firmware

    board = load_board(BOARD)
    return Die(
        board=board, firmware=load_firmware(hex_path, mcu="attiny13a", f_cpu=1_200_000), **kw
    )


def test_a_button_die_rolls_every_face_of_its_own_table(button_die_hex: Path) -> None:
    die = button_die(button_die_hex)
    assert not die.rolls_by_power and die.roll_control == "roll"
    faces = [die.roll(0.1).face for _ in range(120)]
    assert None not in faces
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    # its "2" is the other diagonal from the standard die's
    assert die.faces.lit_for("2") == {"tr", "bl"}
    with pytest.raises(FairdieError, match="keeps no counters"):
        _ = die.counts
    assert die.roll(0.1).counts is None


def test_a_button_die_takes_no_noise(button_die_hex: Path) -> None:
    with pytest.raises(FairdieError, match="no analog input"):
        button_die(button_die_hex, noise="uniform")


def test_the_face_is_steady_and_holds_until_the_next_roll(button_die_hex: Path) -> None:
    die = button_die(button_die_hex)
    p = die.roll(0.1)
    die.chip.run(seconds=0.5)
    assert die.display() == str(p.face)


def test_bounce_is_seeded_and_seen_on_the_pin(button_die_hex: Path) -> None:
    def edges(seed: int, bounce: Bounce | bool | None) -> list[int]:
        die = button_die(button_die_hex, seed=seed)
        die.power_on()
        die.chip.run(seconds=0.05)
        die.chip.trace_kinds |= EventKind.PIN
        mark = die.chip.trace.mark()
        die.press("roll", hold=0.05, bounce=bounce)
        level, out = True, []
        for ch in die.chip.trace.pin_changes("B", mark):
            if ch.high(4) != level:
                level = ch.high(4)
                out.append(ch.cycle)
        return out

    board = edges(1, None)  # the board's model: 3 bounces each way
    assert len(board) == 2 * (1 + 2 * 3)
    assert edges(1, None) == board  # the same seed bounces the same
    assert edges(2, None) != board
    assert len(edges(1, False)) == 2  # a clean contact
    assert len(edges(1, Bounce(count=5, spacing_us=100))) == 2 * (1 + 2 * 5)
    gaps = [b - a for a, b in itertools.pairwise(board[:7])]
    assert all(240 <= g <= 720 for g in gaps)  # 400 us +- 50 % at 1.2 MHz


def test_button_errors(button_die_hex: Path) -> None:
    die = button_die(button_die_hex)
    with pytest.raises(FairdieError, match=r"no button .go. \(buttons: roll\)"):
        die.press("go")
    with pytest.raises(FairdieError, match="is not pressed"):
        die.release("roll")
    die.press("roll")
    with pytest.raises(FairdieError, match="already pressed"):
        die.press("roll")
    assert die.is_pressed("roll") and not die.chip.high("PB4")
    die.release("roll")
    with pytest.raises(FairdieError, match="hold 0 s is out of range"):
        die.press("roll", hold=0)


def test_a_die_needs_a_face_table_and_a_roll_control(tmp_path: Path, button_die_hex: Path) -> None:
    text = BOARD.read_text(encoding="utf-8")
    no_faces = text[: text.index("[display.face]")]
    (tmp_path / "a.toml").write_text(no_faces, encoding="utf-8")
    with pytest.raises(FairdieError, match="no face table"):
        Die(board=tmp_path / "a.toml", firmware=button_die_hex)
    no_roll = text.replace('[die]\nroll = "roll"\n', "[die]\n")
    (tmp_path / "b.toml").write_text(no_roll, encoding="utf-8")
    with pytest.raises(FairdieError, match="what rolls the die"):
        Die(board=tmp_path / "b.toml", firmware=button_die_hex)


def test_cli_presses_a_button_die(button_die_hex: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["press", "--firmware", str(button_die_hex), "--board", str(BOARD)]
    rc = main([*argv, "--button", "roll", "--count", "100", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert len(out["faces"]) == 100 and set(out["faces"]) == {1, 2, 3, 4, 5, 6}
    assert out["counts"] is None and out["button"] == "roll"
    # the same run again: the same faces
    assert main([*argv, "--count", "100", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["faces"] == out["faces"]


def test_cli_fails_a_die_that_never_shows_a_face(
    button_die_hex: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # rolled by the power switch, the button die never lights: nobody presses its button
    argv = ["press", "--firmware", str(button_die_hex), "--board", "die-direct", "--count", "3"]
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 1
    assert "no valid face in 3 rolls (displays: off)" in err and "replay: fairdie press" in err


# ---- the speaker --------------------------------------------------------------------------

SPEAKER_BOARD = """
[board]
name = "beeper"
mcu = "attiny84a"
f_cpu = 1200000
vcc_mv = 3000

[speaker]
pin = "PA5"
"""


def test_tones_are_read_off_the_speaker_pin(
    tmp_path: Path, build_test_firmware: Callable[..., Any]
) -> None:
    (tmp_path / "beeper.toml").write_text(SPEAKER_BOARD, encoding="utf-8")
    b = build_test_firmware("tone", TONE_TOP=199)
    dev = Device(Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu), load_board(tmp_path / "beeper.toml"))
    dev.power_on()
    dev.chip.run(seconds=0.01)
    (tone,) = dev.tones()
    assert tone.frequency_hz == pytest.approx(1_200_000 / (2 * 200), rel=1e-3)
    assert tone.duration_s == pytest.approx(0.01, abs=0.0005)


def test_a_board_without_a_speaker_has_no_tones(button_die_hex: Path) -> None:
    with pytest.raises(FairdieError, match="has no speaker"):
        button_die(button_die_hex).tones()


def test_a_device_refuses_a_board_for_another_mcu(build_test_firmware: Callable[..., Any]) -> None:
    b = build_test_firmware("tone", TONE_TOP=199)
    with pytest.raises(FairdieError, match="is for the attiny13a, not the attiny84a"):
        Device(Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu), load_board("die-direct"))


# ---- runs end on their deadline --------------------------------------------------------------


def _overshoots(hex_path: Path, fixes: set[str]) -> list[int]:
    chip = Chip(hex_path, mcu="attiny13a", f_cpu=1_200_000, simavr_fixes=fixes)
    chip.power_on()
    rng = random.Random(1)
    out = []
    for _ in range(400):
        target = chip.cycle + rng.randint(1, 700)
        chip.run(to_cycle=target)
        out.append(chip.cycle - target)
    return out


def test_a_run_ends_on_its_deadline_when_a_sleep_starts_on_it(button_die_hex: Path) -> None:
    # The firmware sleeps between 1 ms timer ticks: some SLEEP executes right
    # on a deadline, and the fast-forward that follows must stop there.
    # at most an interrupt entry and one instruction past it
    assert max(_overshoots(button_die_hex, set(SIMAVR_FIXES))) <= 8
    assert max(_overshoots(button_die_hex, set(SIMAVR_FIXES) - {"sleep"})) > 100


def test_a_restored_device_counts_its_leds_from_the_power_on_before_the_snapshot() -> None:
    """A restored chip: what an eye sees after it is what it saw in the run the
    snapshot came from, not what the power-on since would let it see (the
    device counts light from the chip's own power-on cycle, which a snapshot keeps)."""
    die = Die(board="die-direct", seed=3)
    die.roll()
    die.power_on()
    die.chip.run(seconds=0.3)  # its face lit, then a snapshot
    snap = die.chip.snapshot()
    die.chip.run(seconds=0.2)
    seen, shown = die.lit(), die.chip.cycle
    assert seen
    die.power_off()
    die.power_on()  # later than the cycle the snapshot reads again
    die.chip.restore(snap)
    die.chip.run(to_cycle=shown)
    assert die.lit() == seen
