"""The CLI contract that scripts depend on, and its handling of bad input."""

from __future__ import annotations

import json
import logging
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from simsupport import run

from fairdie.cli import main
from fairdie.noise import code_for_mv
from fairdie.subjects.die import _fair
from fairdie.subjects.die._models import FairModel, SeedModel


@pytest.mark.parametrize("variant", ["direct", "charlieplex"])
def test_build_json(capsys, variant):
    rc, out, _ = run(capsys, "build", "--target", "die_t13a", "--variant", variant, "--json")
    assert rc == 0
    b = json.loads(out)
    assert {"elf", "hex", "eep", "flash_bytes", "sram_bytes"} <= b.keys()
    assert all(Path(b[k]).is_file() for k in ("elf", "hex", "eep"))
    assert 0 < b["flash_bytes"] <= 1024 and 0 <= b["sram_bytes"] <= 64 - 24


def test_build_other_clock(capsys):
    rc, out, _ = run(capsys, "build", "--target", "die_t13a", "--f-cpu", "9600000", "--json")
    assert rc == 0 and json.loads(out)["f_cpu"] == 9_600_000


def test_press_json_contract(capsys):
    rc, out, _ = run(capsys, "press", "--count", "12", "--noise", "floating", "--json")
    assert rc == 0
    r = json.loads(out)
    assert len(r["faces"]) == 12 and all(f in range(1, 7) for f in r["faces"])
    assert r["displays"] == [str(f) for f in r["faces"]]
    assert r["display"] == str(r["faces"][-1])
    table = 0
    for face in r["faces"]:
        table = _fair.advance(table, face)
    assert r["counts"] == list(_fair.offsets(table))


def test_a_press_whose_noise_fails_the_health_tests_is_a_fault(capsys):
    rc, out, _ = run(capsys, "press", "--count", "3", "--noise", "stuck:1000", "--json")
    r = json.loads(out)
    assert rc == 0, "the fault pattern is the die doing its job"
    assert r["faces"] == [None] * 3 and r["displays"] == ["fault"] * 3
    assert r["display"] == "fault" and r["counts"] == [0] * 6
    rc, out, err = run(capsys, "press", "--noise", "rail-high")
    assert rc == 0 and "health tests" in err and "● ● ●" in out


def test_press_is_reproducible_from_its_seed(capsys):
    args = ("press", "--count", "20", "--noise", "floating", "--json")
    a = json.loads(run(capsys, *args, "--seed", "5")[1])
    b = json.loads(run(capsys, *args, "--seed", "5")[1])
    c = json.loads(run(capsys, *args, "--seed", "6")[1])
    assert a == b and a["faces"] != c["faces"]


def test_press_from_a_given_table(capsys):
    r = json.loads(
        run(capsys, "press", "--counts", "3,3,3,0,3,3", "--noise", "floating", "--json")[1]
    )
    # only face 4 is below the others' offset 3: the fair rule must pick it
    assert r["faces"] == [4] and r["counts"] == [2, 2, 2, 0, 2, 2]


def test_hex_with_its_eep_starts_from_that_table(capsys, tmp_path):
    b = json.loads(run(capsys, "build", "--target", "die_t13a", "--json")[1])
    record = FairModel().with_table([3, 3, 0, 3, 3, 3])[:6]  # slot 0: face 3 is forced
    body = bytes([len(record), 0, 0, 0]) + record
    eep = tmp_path / "t.eep"
    eep.write_text(":" + (body + bytes([-sum(body) & 0xFF])).hex().upper() + "\n:00000001FF\n")
    rc, out, _ = run(
        capsys, "press", "--firmware", b["hex"], "--eep", str(eep), "--noise", "floating", "--json"
    )
    assert rc == 0 and json.loads(out)["faces"] == [3]


def test_press_held_ten_seconds(capsys):
    r = json.loads(run(capsys, "press", "--hold", "10", "--json")[1])
    assert r["display"] == "all" and r["counts"] == [0] * 6


def test_press_charlieplex_and_hex_firmware(capsys):
    b = json.loads(
        run(capsys, "build", "--target", "die_t13a", "--variant", "charlieplex", "--json")[1]
    )
    rc, out, _ = run(
        capsys,
        "press",
        "--variant",
        "charlieplex",
        "--firmware",
        b["hex"],
        "--count",
        "3",
        "--json",
    )
    assert rc == 0 and len(json.loads(out)["faces"]) == 3


def test_press_draws_dice(capsys):
    rc, out, _ = run(capsys, "press", "--count", "2", "--noise", "floating")
    assert rc == 0 and "●" in out and "count" in out and "replay:" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["press", "--count", "0"], "out of range"),
        (["press", "--hold", "-1"], "out of range"),
        (["press", "--noise", "stuck:99999"], "outside"),
        (["press", "--noise", "wobble"], "unknown noise"),
        (["press", "--firmware", "/nonexistent/die.hex"], "no such firmware file"),
        (["press", "--board", "/nonexistent/board.toml"], "no such board file"),
        (["build", "--target", "die_t13a", "--f-cpu", "99"], "out of range"),
        (["press", "--eep", "x.eep"], "--eep goes with --firmware"),
        (["press", "--counts", "1,2,3"], "expected six counts"),
        (["press", "--counts", "1,2,3,4,5,256"], "expected six counts"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(capsys, argv, message):
    rc, _out, err = run(capsys, *argv)
    assert rc == 2
    assert message in err
    assert err.strip().count("\n") <= 5 and "Traceback" not in err  # argparse adds its usage


def test_firmware_for_another_mcu(capsys, tmp_path):
    b = json.loads(run(capsys, "build", "--target", "die_t13a", "--json")[1])
    elf = Path(b["elf"]).read_bytes()
    assert b"attiny13a" in elf  # the ELF names its chip in simavr's .mmcu section
    other = tmp_path / "other.elf"
    other.write_bytes(elf.replace(b"attiny13a", b"attiny85\0"))
    rc, _, err = run(capsys, "press", "--firmware", str(other))
    assert rc == 2 and "built for attiny85, not attiny13a" in err


def test_firmware_for_another_clock(capsys):
    elf = json.loads(run(capsys, "build", "--target", "die_t13a", "--json")[1])["elf"]  # 1.2 MHz
    rc, _, err = run(capsys, "press", "--firmware", elf, "--f-cpu", "9600000")
    assert rc == 2 and "built for 1200000 Hz, not 9600000 Hz" in err
    fast = json.loads(
        run(capsys, "build", "--target", "die_t13a", "--f-cpu", "9600000", "--json")[1]
    )["elf"]
    # the board's fuses set the clock: the 9.6 MHz build runs at its 1.2 MHz, and
    # the run says so
    rc, _, err = run(capsys, "press", "--firmware", fast, "--json")
    assert "names 9600000 Hz but runs at 1200000 Hz" in err
    rc, out, _ = run(capsys, "press", "--firmware", fast, "--f-cpu", "9600000", "--json")
    assert rc == 0 and json.loads(out)["faces"]


def test_firmware_too_large(capsys, tmp_path):
    lines = []
    for a in range(0, 2048, 16):
        body = bytes([16, a >> 8, a & 0xFF, 0]) + b"\0" * 16
        lines.append(":" + (body + bytes([-sum(body) & 0xFF])).hex().upper())
    big = tmp_path / "big.hex"
    big.write_text("\n".join(lines) + "\n:00000001FF\n")
    rc, _, err = run(capsys, "press", "--firmware", str(big))
    assert rc == 2 and "needs 2048 bytes of flash; the attiny13a has 1024" in err


def test_conflicting_board_file(capsys, tmp_path):
    board = tmp_path / "bad.toml"
    board.write_text(
        '[board]\nname = "bad"\nmcu = "attiny13a"\nf_cpu = 1200000\nvcc_mv = 3000\n'
        '[[led]]\nname = "centre"\nanode = "PB0"\ncathode = "GND"\n'
        '[analog.noise]\npin = "PB0"\nchannel = 0\n'
    )
    rc, _, err = run(capsys, "press", "--board", str(board))
    assert rc == 2 and "bad.toml" in err and err.count("\n") == 1


def test_entry_point_exit_code(capsys, monkeypatch):
    """``python -m fairdie.cli`` exits with main's status: its file run as
    ``__main__``, in this process (the console script's exit codes are checked
    in processes of their own: test_press_replay.py, test_signals.py)."""
    import fairdie.cli

    monkeypatch.setattr(sys, "argv", ["fairdie", "press", "--noise", "nope"])
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(fairdie.cli.__file__, run_name="__main__")
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("fairdie: error: unknown noise") and err.count("\n") == 1


def test_simavr_log_is_quiet_unless_verbose(capsys):
    """simavr's own lines reach stderr only with -v/-vv. Quiet in a fresh
    process: there no handler of the test session takes the records Python's
    last-resort handler would print. Loud in this one: -vv adds its own handler."""
    args = ["press", "--count", "1", "--json"]
    quiet = subprocess.run(
        [sys.executable, "-m", "fairdie.cli", *args], capture_output=True, text=True, timeout=60
    )
    assert quiet.returncode == 0 and quiet.stderr == ""
    log = logging.getLogger("fairdie.simavr")
    level, handlers = log.level, list(log.handlers)
    try:
        rc, out, err = run(capsys, "-vv", *args)
    finally:  # -vv's handler and level go with this test
        log.handlers[:] = handlers
        log.setLevel(level)
    assert rc == 0 and "simavr: attiny13a: WATCHDOG" in err
    assert json.loads(out)["faces"]


def test_press_the_seed_variant(capsys):
    rc, out, _ = run(
        capsys, "press", "--variant", "seed", "--count", "8", "--noise", "stuck:1000", "--json"
    )
    assert rc == 0
    r = json.loads(out)
    model, image = SeedModel(), b"\xff" * 64
    for face in r["faces"]:
        f, image = model.press(image, (code_for_mv(1000, 3000),))
        assert f == face
    assert r["counts"] == list(model.table(image))


def _table_rows(out: str) -> dict[str, list[int]]:
    """The rows of a drawn table under its ``face`` row: label -> six numbers."""
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("face "))
    rows = {}
    for line in lines[at + 1 : at + 3]:
        label, *numbers = line.split()
        if numbers[:6] and all(n.isdigit() for n in numbers[:6]):
            rows[label] = [int(n) for n in numbers[:6]]
    return rows


@pytest.mark.parametrize(
    ("variant", "label"), [("direct", "offset"), ("seed", "count")], ids=["fair", "seed"]
)
def test_demo_labels_offsets_as_offsets_and_counts_the_faces_shown(capsys, variant, label):
    """After 36 presses the faces shown add up to 36; the fair rule's table is
    labelled offsets (they add up to far less), the seed's counters counts."""
    rc, out, _ = run(capsys, "demo", "--variant", variant, "--count", "36")
    assert rc == 0
    rows = _table_rows(out)
    assert set(rows) == {label, "shown"}
    assert sum(rows["shown"]) == 36
    if label == "count":
        assert rows["count"] == rows["shown"]  # an erased chip: its counters are the tally
    else:
        assert sum(rows["offset"]) < 36 and "counts above the least-shown face's" in out
    assert f"the {label}s are now [0, 0, 0, 0, 0, 0]" in out


def test_press_says_what_its_table_holds(capsys):
    rc, out, _ = run(capsys, "press", "--count", "20", "--json")
    r = json.loads(out)
    assert rc == 0 and r["table_kind"] == "offsets"
    assert r["shown"] == [r["faces"].count(f) for f in range(1, 7)] and sum(r["shown"]) == 20
    rc, out, _ = run(capsys, "press", "--count", "20", "--variant", "seed", "--json")
    r = json.loads(out)
    assert rc == 0 and r["table_kind"] == "counts" and r["counts"] == r["shown"]


def test_help_and_the_unknown_command_error_list_the_registry(capsys):
    """``fairdie --help`` lists every command of the one registry, one line
    each, in order, its help in one column; the unknown-command error names
    them all; each answers ``--help`` with a usage line of its own."""

    def status(*argv: str) -> int | str | None:
        try:
            return main(list(argv))
        except SystemExit as e:  # argparse's --help exits
            return e.code

    from fairdie.cli import registry

    every = registry()
    assert {"build", "verify", "debug", "press", "roll", "demo", "lab", "faults", "bench"} <= set(
        every
    )
    assert status("--help") == 0
    out = capsys.readouterr().out
    listed = out.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split()[0] for line in listed] == list(every)
    column = {len(line) - len(line[2:].split(" ", 1)[1].lstrip()) for line in listed}
    assert len(column) == 1, listed  # every help text starts in the same column
    for line, entry in zip(listed, every.values(), strict=True):
        tag = f" [{entry.subject}]" if entry.subject else ""
        assert line.rstrip().endswith(entry.help + tag), line
    assert status("no-such-command") == 2
    err = capsys.readouterr().err
    assert err == (f"fairdie: error: no command 'no-such-command' (commands: {', '.join(every)})\n")
    for command in every:  # every command answers --help
        assert status(command, "--help") == 0, command
        assert capsys.readouterr().out.startswith(f"usage: fairdie {command}"), command
    assert status("lab", "search", "--help") == 0
    from fairdie.subjects import subjects

    for subject in subjects():  # each subject says what it is
        assert f"\n  {subject.name} " in out and subject.summary in out
