"""Bad board files, and boards that do not fit the build given: one line, exit 2,
nothing changed (tests/sim/test_bad_input.py says how each case runs)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from refusals import die, refused
from simsupport import run

from fairdie.toolchain import build

BOARDS = Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "subjects" / "die" / "boards"


DIRECT = (BOARDS / "die-direct.toml").read_text()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: "this is [not toml\n", "not valid TOML"),
        (lambda t: t.replace('mcu = "attiny13a"\n', ""), "[board]: missing key 'mcu'"),
        (lambda t: t.replace("f_cpu = 1200000", 'f_cpu = "fast"'), "f_cpu must be an integer"),
        (lambda t: t.replace("vcc_mv = 3000", "vcc_mv = 3.3"), "vcc_mv must be an integer"),
        (
            lambda t: t.replace("f_cpu = 1200000", "f_cpu = 99999999999999999"),
            "f_cpu must be a positive number of Hz in 1000..32000000",
        ),
        (
            lambda t: t.replace("persistence_ms = 20", "persistence_ms = 1e300"),
            "persistence_ms must be a positive number up to 1000",
        ),
        (
            lambda t: t.replace('anode = "PB3"', 'anode = "PB7"'),
            "anode PB7 is not a pin of the attiny13a",
        ),
        (lambda t: t.replace('anode = "PB3"', 'anode = "XY"'), "'XY' is not a pin name"),
        (
            lambda t: t.replace('anode = "PB3"', 'anode = "PB4"'),
            "analog 'noise': PB4 is also used by LED 'middle-left'",
        ),
        (lambda t: t.replace("channel = 2", "channel = 3"), "PB4 is ADC2 on the attiny13a"),
        (
            lambda t: t.replace('name = "centre"', 'name = "centre"\ncolour = "red"'),
            "unknown key 'colour'",
        ),
        (lambda t: t + "\n[wat]\nx = 1\n", "unknown key 'wat'"),
        (lambda t: t.replace('roll = "power"', 'roll = "nope"'), "roll 'nope' is not a button"),
        (
            lambda t: t.replace('roll = "power"', 'roll = "power"\ncounters = 60'),
            "counters at 60: six counters from there overrun the attiny13a's 64 bytes of EEPROM",
        ),
        (
            lambda t: t.replace('firmware = "die_t13a"', 'firmware = "nosuch"'),
            "[board] firmware 'nosuch': firmware target not found",
        ),
        (
            lambda t: t.replace('variant = "direct"', 'variant = "bogus"'),
            "[board] variant: unknown variant 'bogus' for die_t13a",
        ),
        (
            lambda t: t.replace('mcu = "attiny13a"', 'mcu = "attiny85"'),
            "the board's MCU is attiny85, but firmware die_t13a is for the attiny13a",
        ),
        (
            # the board names a build that does not drive its LEDs as they are wired
            lambda t: t.replace('variant = "direct"', 'variant = "charlieplex"'),
            "the board's LEDs are wired for direct drive (each between a pin and GND or VCC),"
            " but build die_t13a (charlieplex) charlieplexes them",
        ),
    ],
)
def test_bad_board_file(capsys, tmp_path, edit, message):
    board = tmp_path / "board.toml"
    board.write_text(edit(DIRECT))
    line = refused(capsys, "press", "--board", str(board), inputs=(board,))
    assert f"error: {board}: " in line and message in line


def test_board_file_that_is_no_text_or_no_file(capsys, tmp_path):
    binary = tmp_path / "b.toml"
    binary.write_bytes(b"\xff\xfe[board]\n")
    assert "b.toml: not a board file (not UTF-8 text)" in refused(
        capsys, "press", "--board", str(binary), inputs=(binary,)
    )
    folder = tmp_path / "d.toml"
    folder.mkdir()
    assert "d.toml: not a regular file (a directory)" in refused(
        capsys, "press", "--board", str(folder)
    )
    fifo = tmp_path / "f.toml"
    os.mkfifo(fifo)
    assert "f.toml: not a regular file (a FIFO)" in refused(capsys, "press", "--board", str(fifo))


@pytest.mark.parametrize(
    ("argv", "wired", "drive"),
    [
        (["--board", "die-charlieplex", "--variant", "direct"], "charlieplexed", "directly"),
        (
            ["--board", str(BOARDS / "die-charlieplex.toml"), "--variant", "direct"],
            "charlieplexed",
            "directly",
        ),
        (["--board", "die-direct", "--variant", "charlieplex"], "wired for direct", "charlieplex"),
    ],
)
def test_board_and_build_of_another_led_drive(capsys, argv, wired, drive):
    line = refused(capsys, "press", *argv, "--json")
    assert f"the board's LEDs are {wired}" in line and drive in line.split(", but ")[1]


def test_a_hex_standing_in_for_a_build_of_another_led_drive(capsys):
    line = refused(
        capsys,
        "press",
        "--board",
        "die-direct",
        "--variant",
        "charlieplex",
        "--firmware",
        str(die().hex),
    )
    assert "but build die_t13a (charlieplex) charlieplexes them" in line


def test_a_build_of_the_same_led_drive_runs(capsys):
    """The seed build drives the direct board's LEDs as it is wired: no refusal."""
    rc, _out, err = run(
        capsys,
        "press",
        "--board",
        "die-direct",
        "--variant",
        "seed",
        "--noise",
        "stuck:0",
        "--json",
    )
    assert rc == 0, err


def test_a_hex_given_with_its_variant_is_read_by_that_variants_model(capsys):
    """--variant with --firmware names the build the file stands in for: the
    seed build's table is read as the seed keeps it, not as the fair rule's ring."""
    seed = build("die_t13a", variant="seed")
    argv = ("press", "--firmware", str(seed.hex), "--count", "5", "--noise", "stuck:1000")
    rc, out, err = run(capsys, *argv, "--variant", "seed", "--json")
    assert rc == 0, err
    r = json.loads(out)
    assert sum(r["counts"]) == 5 and all(r["counts"][f - 1] > 0 for f in r["faces"])


def test_lab_campaign_checks_the_pairing_too(capsys):
    line = refused(
        capsys,
        "lab",
        "campaign",
        "--presses",
        "3",
        "--board",
        "die-charlieplex",
        "--variant",
        "direct",
    )
    assert line.startswith("fairdie lab campaign: error: die-charlieplex.toml (shipped):")
    assert "charlieplexed" in line
