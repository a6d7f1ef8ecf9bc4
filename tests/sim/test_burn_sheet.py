"""The burn sheet: ``fairdie build --out`` writes the files to burn and
replaces only its own; ``fairdie verify`` names the exact bytes it checked
(SHA-256 of the HEX and EEP, MCU, clock, fuses, version, date) and the
avrdude line that burns them; a check that does not apply is skipped with a
reason; each check links its evidence, which the report folder holds; without
matplotlib, a report is refused in one line."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from fairdie import __version__
from fairdie.cli import main
from fairdie.toolchain import build

pytestmark = pytest.mark.sim

BUTTON_DIE = Path(__file__).resolve().parents[2] / "harness/fairdie/firmware/tests/button_die"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def verify_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    rc, out, _ = run(capsys, "verify", *argv, "--json")
    return rc, json.loads(out)


# ---- fairdie build --out ------------------------------------------------------------------


def test_build_out_writes_the_elf_hex_and_fuses(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    rc, text, err = run(capsys, "build", "--target", "die_t13a", "--out", str(out), "--json")
    assert rc == 0, err
    b = build("die_t13a")
    got = json.loads(text)
    assert sorted(p.name for p in out.iterdir()) == [
        ".fairdie-outputs",
        "die.elf",
        "die.hex",
        "fuses",
    ]
    assert got["out"] == [str(out / n) for n in ("die.elf", "die.hex", "fuses")]
    assert got["hex"] == str(out / "die.hex")
    assert sha(out / "die.elf") == sha(b.elf) and sha(out / "die.hex") == sha(b.hex)
    lines = (out / "fuses").read_text().splitlines()
    assert lines[0].startswith("# die_t13a (direct): attiny13a @ 1200000 Hz")
    assert lines[1:] == ["lfuse 0x6A", "hfuse 0xFD"]  # an ATtiny13A has no extended fuse
    # run again: its own files are replaced without a word
    assert run(capsys, "build", "--target", "die_t13a", "--out", str(out))[0] == 0


def test_build_out_writes_the_eep_of_a_build_with_eeprom_data(tmp_path: Path, capsys) -> None:
    rc, _, err = run(capsys, "build", "--target", "tests/busy", "--out", str(tmp_path))
    assert rc == 0, err
    assert sha(tmp_path / "busy.eep") == sha(build("tests/busy").eep)
    assert (tmp_path / "fuses").read_text().splitlines()[1:] == ["lfuse 0x6A", "hfuse 0xFF"]


def test_build_out_refuses_a_file_it_did_not_write(tmp_path: Path, capsys) -> None:
    hex_file = tmp_path / "die.hex"
    hex_file.write_text("my own firmware\n")
    rc, out, err = run(capsys, "build", "--target", "die_t13a", "--out", str(tmp_path))
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "die.hex is there and fairdie did not write it (--force replaces it)" in err
    assert hex_file.read_text() == "my own firmware\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["die.hex"]  # nothing else written
    rc, _, err = run(capsys, "build", "--target", "die_t13a", "--out", str(tmp_path), "--force")
    assert rc == 0, err
    assert sha(hex_file) == sha(build("die_t13a").hex)
    # a file where the folder should be: one line, nothing written
    rc, out, err = run(capsys, "build", "--target", "die_t13a", "--out", str(hex_file))
    assert rc == 2 and out == "" and err == f"fairdie: error: --out {hex_file}: not a folder\n"


# ---- verify's burn sheet ------------------------------------------------------------------


def test_a_hex_and_eep_are_named_by_their_sha256_and_burnt_as_they_are(
    tmp_path: Path, capsys
) -> None:
    run(capsys, "build", "--target", "tests/busy", "--out", str(tmp_path))
    hex_file, eep = tmp_path / "busy.hex", tmp_path / "busy.eep"
    before = datetime.now(UTC).replace(microsecond=0)
    rc, out = verify_json(
        capsys,
        str(hex_file),
        "--eep",
        str(eep),
        "--board",
        str(BUTTON_DIE / "board.toml"),
        "--only",
        "energy",
        "--programmer",
        "avrisp2",
    )
    b = out["burn"]
    assert b["hex_sha256"] == sha(hex_file) and b["eep_sha256"] == sha(eep)
    assert (b["hex"], b["eep"]) == (str(hex_file), str(eep))
    assert b["eeprom_bytes"] == 4 and b["mcu"] == "attiny13a" and b["f_cpu"] == 1200000
    assert b["fairdie"] == __version__
    when = datetime.strptime(b["date"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert before <= when <= datetime.now(UTC) + timedelta(seconds=1)
    # a HEX carries no fuses and is no build of the board's target: the factory values
    assert (b["fuses"]["lfuse"], b["fuses"]["hfuse"]) == ("0x6A", "0xFF")
    assert "factory" in b["fuse_source"]
    assert shlex.split(b["avrdude"]) == [
        "avrdude",
        *("-c", "avrisp2", "-p", "t13"),
        *("-U", f"flash:w:{hex_file}:i", "-U", f"eeprom:w:{eep}:i"),
        *("-U", "lfuse:w:0x6A:m", "-U", "hfuse:w:0xFF:m"),
    ]
    # energy does not apply to a die that lights nothing: skipped with its reason, no failure
    energy = next(c for c in out["checks"] if c["name"] == "energy")
    assert energy["status"] == "skipped"
    assert energy["reason"].startswith("none of the 6 recorded presses lit an LED")
    assert out["energy"] is None and rc == 0


def test_an_elf_is_burnt_from_the_hex_it_makes(tmp_path: Path, capsys) -> None:
    elf = tmp_path / "die.elf"
    elf.write_bytes(build("die_t13a").elf.read_bytes())  # no HEX beside it
    rc, out = verify_json(capsys, str(elf), "--only", "mcu-and-memory")
    assert rc == 0
    b = out["burn"]
    assert b["hex_sha256"] == sha(build("die_t13a").hex)  # the bytes fairdie build writes
    assert b["eep"] is None and b["eep_sha256"] is None  # the die has no EEPROM data
    assert b["fuse_source"] == "declared in the ELF's .fuse section"
    assert _u(b["avrdude"]) == [f"flash:w:{elf}:e", "lfuse:w:0x6A:m", "hfuse:w:0xFD:m"]
    # with a report, the command burns the HEX copied into the report folder
    report = tmp_path / "report"
    rc, out = verify_json(capsys, str(elf), "--only", "mcu-and-memory", "--report", str(report))
    assert out["burn"]["hex"] == str(report / "die.hex")
    assert sha(report / "die.hex") == sha(build("die_t13a").hex)
    assert _u(out["burn"]["avrdude"])[0] == f"flash:w:{report / 'die.hex'}:i"


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "--board", "die-direct", "--report"],
        ["lab", "campaign", "--presses", "5", "--plot"],
    ],
)
def test_plots_without_matplotlib_are_one_line(
    capsys, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: list[str]
) -> None:
    """--report and the lab's --plot say what to install, before any press and
    without importing matplotlib to find out (it is asked whether it is there)."""
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "matplotlib" else find_spec(name, *rest),
    )
    rc, out, err = run(capsys, *argv, str(tmp_path / "plots"))
    assert (rc, out, err.count("\n")) == (2, "", 1)
    assert f"error: {argv[-1]} needs matplotlib: pip install 'fairdie[plot]'" in err
    assert not (tmp_path / "plots").exists()


def _u(line: str) -> list[str]:
    argv = shlex.split(line)
    return [argv[i + 1] for i, a in enumerate(argv) if a == "-U"]


def test_a_bad_programmer_is_one_line(capsys) -> None:
    rc, out, err = run(capsys, "verify", "--board", "die-direct", "--programmer=usb;rm -rf x")
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "not an avrdude programmer id" in err


# ---- evidence ------------------------------------------------------------------------------


def test_a_wrong_face_links_its_vcd_drawing_and_replay(tmp_path: Path, capsys) -> None:
    elf = build("die_t13a", defines={"DIE_MUTANT_LED_MAP": 1}).elf
    report = tmp_path / "report"
    args = (str(elf), "--board", "die-direct", "--only", "faces", "--report", str(report))
    rc, out = verify_json(capsys, *args)
    assert rc == 1
    faces = next(c for c in out["checks"] if c["name"] == "faces")
    files = [e["file"] for e in faces["evidence"] if e["file"]]
    assert {f"face-{n}.vcd" for n in range(1, 7)} | {f"face-{n}.svg" for n in range(1, 7)} == set(
        files
    )
    for name in files:
        assert (report / name).stat().st_size > 0
    # face 4 lights the wrong LEDs: its drawing says so, and rings what it should light
    svg = (report / "face-4.svg").read_text()
    assert "face 4: showed" in svg and "face 1: as expected" in (report / "face-1.svg").read_text()
    vcd = (report / "face-4.vcd").read_text()
    assert "$scope module led $end" in vcd and "$var wire 1 . centre $end" in vcd
    page = (report / "index.html").read_text()
    for name in files:
        assert f"href='{name}'" in page
    assert re.search(r"id='verdict' class='fail' style='background:#cf222e'>FAIL: faces", page)
    # the replay: fairdie press from the same table writes the VCD it names
    commands = [e["command"] for e in faces["evidence"] if e["command"]]
    assert len(commands) == 6
    argv = shlex.split(commands[3])
    assert argv[:2] == ["fairdie", "press"] and "--counts" in argv
    vcd_out = tmp_path / argv[argv.index("--vcd") + 1]
    argv[argv.index("--vcd") + 1] = str(vcd_out)
    rc, _, err = run(capsys, *argv[1:])
    # it shows what verify saw: no face 4 (a replay of a failure fails too)
    assert rc == 1 and "no valid face in 1 rolls (displays: invalid)" in err
    assert vcd_out.stat().st_size > 0


WRONG = """\
[scenario]
name = "l0 alone lights after power-on"

[[step]]
wait = "50ms"
expect = { leds = ["l0"] }
"""


def test_a_failing_scenario_links_its_vcd_and_replay(tmp_path: Path, capsys) -> None:
    lightsout = BUTTON_DIE.parent / "lightsout"
    (tmp_path / "wrong.toml").write_text(WRONG)  # it lights l1 and l3
    text = (lightsout / "board.toml").read_text()
    board = tmp_path / "board.toml"
    board.write_text(text.replace("[board]\n", '[board]\nscenarios = ["wrong.toml"]\n', 1))
    report = tmp_path / "report"
    elf = build(lightsout).elf
    rc, out = verify_json(capsys, str(elf), "--board", str(board), "--report", str(report))
    assert rc == 1
    checks = {c["name"]: c for c in out["checks"]}
    assert checks["scenarios"]["status"] == "fail"
    links = checks["scenarios"]["evidence"]
    assert [e["file"] for e in links if e["file"]] == ["scenario-1.vcd"]
    (replay,) = [e["command"] for e in links if e["command"]]
    assert replay.startswith("fairdie run ") and "--scenario" in replay
    assert "$scope module led $end" in (report / "scenario-1.vcd").read_text()
    # the energy of the recorded run is that scenario's: it links the same VCD
    assert "scenario-1.vcd" in [e["file"] for e in checks["energy"]["evidence"]]
    rc, _, err = run(capsys, *shlex.split(replay)[1:])
    assert rc == 1 and "l0" in err


def test_a_firmware_that_cannot_run_on_the_board_gets_no_burn_sheet(capsys) -> None:
    elf = build(BUTTON_DIE.parent / "m328p").elf
    rc, out = verify_json(capsys, str(elf), "--board", "die-direct")
    assert rc == 1 and out["burn"] is None
    assert "no burn sheet: the firmware cannot run on this board" in out["notes"]
    rc, text, _ = run(capsys, "verify", str(elf), "--board", "die-direct")
    assert "avrdude" not in text and "burn sheet" not in text.replace("no burn sheet", "")
