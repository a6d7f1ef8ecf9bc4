"""``fairdie press --vcd``: the VCD it writes of the last press, read back
with pyvcd's reader, against the chip's own trace of the same press made in
Python (a ten-second hold's read line by line: read_vcd_lines, which reads a
press of every kind of event as pyvcd does)."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from simsupport import Wave, read_vcd, read_vcd_lines, run

from fairdie.sim import Chip, Event, EventKind, Level, PinChange
from fairdie.sim._types import TRACEABLE
from fairdie.subjects.die import Die
from fairdie.toolchain import firmware_dir

VCD_CHAR = {Level.LOW: "0", Level.HIGH: "1", Level.PULLUP: "1", Level.PULLDOWN: "0", Level.Z: "z"}


def at(wave: Wave, t: int) -> Any:
    """The value of a wave at time ``t`` (its last change at or before it)."""
    return [v for s, v in wave if s <= t][-1]


def collapse(wave: Wave) -> Wave:
    """A wave as a VCD has it: the last value of each time, changes only."""
    out: Wave = []
    for t, v in wave:
        if out and out[-1][0] == t:
            out.pop()
        if not out or out[-1][1] != v:
            out.append((t, v))
    return out


def ns(chip: Chip, cycle: int) -> int:
    return round(cycle * 1e9 / chip.frequency)


def pin_wave(chip: Chip, pin: str, changes: list[PinChange] | None = None) -> Wave:
    """A pin's wave from the chip's pin trace (or ``changes``, its port's part
    of it): its level before the first change, then each change of its VCD
    value."""
    port, bit = pin[1], int(pin[2])
    changes = chip.pin_changes(port) if changes is None else changes
    char = functools.cache(lambda state: VCD_CHAR[Level.of(state, bit)])  # few states recur
    wave = [(0, char(changes[0].before))]
    return collapse(wave + [(ns(chip, ch.cycle), char(ch.state)) for ch in changes])


def bit_wave(chip: Chip, changes: dict[EventKind, Callable[[Event], str]]) -> Wave:
    """A 1-bit signal's wave from the chip's events: 0 before the press,
    then what each event of these kinds sets it to."""
    kinds = EventKind(sum(changes))
    return collapse(
        [(0, "0"), *((ns(chip, e.cycle), changes[e.kind](e)) for e in events(chip, kinds))]
    )


def events(chip: Chip, kind: EventKind) -> list[Event]:
    return list(chip.trace.events(kind))


def same_wave(got: Wave, want: Wave, what: str) -> None:
    """``got == want``, failing at once on the first entry that differs (an
    assertion diff of two waves of tens of thousands of entries takes minutes)."""
    if got == want:
        return
    i = next(
        (k for k, (g, w) in enumerate(zip(got, want, strict=False)) if g != w),
        min(len(got), len(want)),
    )
    pytest.fail(
        f"{what}: entry {i} of {len(got)} in the VCD, {len(want)} in the chip's trace:"
        f" {got[i : i + 3]} != {want[i : i + 3]}",
        pytrace=False,
    )


def check_against_chip(chip: Chip, waves: dict[str, Wave]) -> None:
    """Every pin edge, EEPROM write, ADC conversion, sleep and power switch
    of the chip's trace is in the VCD, at its time, with its values."""
    pins = [n for n in waves if n.startswith("P")]
    assert pins
    by_port = {port: chip.pin_changes(port) for port in {pin[1] for pin in pins}}
    for pin in pins:
        same_wave(waves[pin], pin_wave(chip, pin, by_port[pin[1]]), pin)
    same_wave(waves["power"], bit_wave(chip, {EventKind.POWER: lambda e: str(e.a)}), "power")
    sleep = {
        EventKind.SLEEP: lambda e: "1",
        EventKind.WAKE: lambda e: "0",
        EventKind.POWER: lambda e: "0",  # a power-on wakes nothing; a cut ends sleep
    }
    same_wave(waves["sleep"], bit_wave(chip, sleep), "sleep")
    busy = {EventKind.EEPROM_START: lambda e: "1", EventKind.EEPROM_DONE: lambda e: "0"}
    same_wave(waves["eeprom_busy"], bit_wave(chip, busy), "eeprom_busy")
    starts, done = events(chip, EventKind.EEPROM_START), events(chip, EventKind.EEPROM_DONE)
    assert starts and len(done) == len(starts)
    for e in starts:
        t = ns(chip, e.cycle)
        assert (at(waves["eeprom_addr"], t), at(waves["eeprom_data"], t)) == (e.a, e.c & 0xFF)
    for e in done:
        assert at(waves["eeprom_data"], ns(chip, e.cycle)) == e.b  # the byte stored
    assert {e.a: e.b for e in done} == {e.a: chip.eeprom[e.a] for e in done}
    adc = chip.adc_log()
    assert adc
    strobe = [(ns(chip, c.cycle + d), v) for c in adc for d, v in ((0, "1"), (1, "0"))]
    same_wave(waves["adc"], collapse([(0, "0"), *strobe]), "adc")
    for c in adc:
        t = ns(chip, c.cycle)
        assert (at(waves["adc_mv"], t), at(waves["adc_code"], t)) == (c.millivolts, c.code)
    assert events(chip, EventKind.SLEEP) and len(waves["sleep"]) > 1


def test_trace_of_a_press_matches_the_chips_own_trace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vcd = tmp_path / "press.vcd"
    args = ("--noise", "uniform", "--seed", "5", "--count", "3", "--hold", "0.3")
    rc, out, err = run(capsys, "press", "--vcd", str(vcd), *args, "--json")
    assert rc == 0 and err == ""
    r = json.loads(out)
    assert r["vcd"] == str(vcd) and r["seed"] == 5 and r["board"] == "die-direct"
    assert len(r["faces"]) == 3  # press's own JSON, plus the file and its events

    # the same press in Python, every kind of event traced
    die = Die(board="die-direct", noise="uniform", seed=5)
    die.chip.trace_kinds = TRACEABLE
    presses = [die.roll(0.3) for _ in range(3)]
    chip = die.chip
    assert r["faces"] == [p.face for p in presses] and r["counts"] == list(die.counts)
    assert r["events"]["pin"] == len(chip.pin_changes()) and r["events"]["power"] == 2
    # the trace's views agree: its events and pin changes (made through their
    # slots) are what their constructors make, and the pin changes' tuples
    fields = list(chip.trace.tuples())
    assert list(chip.trace.events()) == [
        Event(t, EventKind(k), a, b, c) for t, k, a, b, c in fields
    ]
    words = chip.trace.pin_words()
    assert words == [(t, chr(a), b, c) for t, k, a, b, c in fields if k == EventKind.PIN]
    assert chip.pin_changes() == [PinChange(*w) for w in words]
    assert chip.trace.pin_words("b") == [w for w in words if w[1] == "B"]

    timescale, waves = read_vcd(vcd)
    assert timescale == "1 ns"
    assert read_vcd_lines(vcd) == (timescale, waves)  # as pyvcd reads it
    assert [n for n in waves if n.startswith("P")] == ["PB0", "PB1", "PB2", "PB3"]
    assert chip.trace.tuples().__next__()[0] > 0  # press 3: not at time 0
    check_against_chip(chip, waves)
    # the file ends at the press's end: the power cut
    assert waves["power"][-1] == (ns(chip, chip.cycle), "0")


def test_trace_of_a_ten_second_hold_on_the_charlieplexed_die(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vcd = tmp_path / "hold.vcd"
    rc, out, _ = run(
        capsys, "press", "--vcd", str(vcd), "--board", "die-charlieplex", "--hold", "10"
    )
    assert rc == 0
    assert "display at release: " in out and f"wrote {vcd}: " in out
    die = Die(board="die-charlieplex")
    die.chip.trace_kinds = TRACEABLE
    die.roll(10)
    # some 100,000 changes: pyvcd's tokenizer takes a second over them
    _, waves = read_vcd_lines(vcd)
    check_against_chip(die.chip, waves)
    assert len(waves["PB0"]) > 100  # multiplexed LEDs


def test_trace_of_a_button_die(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, build_test_firmware: Callable[..., Any]
) -> None:
    hex_path = build_test_firmware("button_die").hex
    board = firmware_dir() / "tests" / "button_die" / "board.toml"
    vcd = tmp_path / "button.vcd"
    argv = ("--firmware", str(hex_path), "--board", str(board), "--count", "2")
    rc, out, _ = run(capsys, "press", "--vcd", str(vcd), *argv, "--json")
    assert rc == 0, out
    r = json.loads(out)
    assert r["events"]["pin"] > 0 and r["events"]["power"] == 0  # it stays powered
    _, waves = read_vcd(vcd)
    assert "power" in waves and any(len(w) > 1 for n, w in waves.items() if n.startswith("P"))


def test_chip_write_vcd_keeps_its_signature(make_chip: Callable[..., Any], tmp_path: Path) -> None:
    chip = make_chip("eeprom")
    chip.run(seconds=0.02)
    path = chip.write_vcd(
        tmp_path / "t.vcd", pins=["PB0"], signals=["eeprom_busy", "eeprom_addr"], since=0
    )
    _, waves = read_vcd(path)
    assert list(waves) == ["PB0", "eeprom_busy", "eeprom_addr"]
    assert waves["PB0"] == pin_wave(chip, "PB0")
    with pytest.raises(ValueError, match="unknown VCD signal"):
        chip.write_vcd(tmp_path / "u.vcd", signals=["volts"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--vcd", "/nonexistent/dir/t.vcd"], "no such directory"),
        (["--vcd", "{tmp}"], "is a directory"),
        (["--vcd", "{tmp}/t.vcd", "--noise", "wobble"], "unknown noise"),
        (["--vcd", "{tmp}/t.vcd", "--hold", "0"], "out of range"),
        (["--vcd", "{tmp}/t.vcd", "--board", "/nonexistent/b.toml"], "no such board file"),
        (["--vcd", "{tmp}/t.vcd", "--eep", "x.eep"], "--eep goes with --firmware"),
        (["--vcd", "{tmp}/t.vcd", "--count", "0"], "out of range"),
    ],
)
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    rc, out, err = run(capsys, "press", *(a.format(tmp=tmp_path) for a in argv))
    assert rc == 2 and out == "" and "Traceback" not in err
    assert len(err.splitlines()) == 1  # one line, no usage
    assert err.startswith(("fairdie: error: ", "fairdie press: error: "))
    assert message in err
    assert not (tmp_path / "t.vcd").exists()


def test_no_vcd_writer_overwrites_a_file_that_is_not_a_vcd(
    capsys: pytest.CaptureFixture[str], make_chip: Callable[..., Any], tmp_path: Path
) -> None:
    from fairdie._trace import write
    from fairdie.errors import FairdieError
    from fairdie.toolchain import build

    victim = tmp_path / "victim.elf"
    victim.write_bytes(build("die_t13a").elf.read_bytes())
    before = victim.read_bytes()
    rc, out, err = run(capsys, "press", "--vcd", str(victim))  # fairdie press --vcd
    assert rc == 2 and out == "" and victim.read_bytes() == before
    assert err == (
        f"fairdie: error: --vcd {victim}: holds a file fairdie did not write;"
        " not replaced (give --force to replace it)\n"
    )
    chip = make_chip("eeprom")
    chip.run(seconds=0.001)
    with pytest.raises(FairdieError, match="holds a file fairdie did not write"):
        write(chip, victim)  # what fairdie trace and the plugin's evidence call
    assert victim.read_bytes() == before
    theirs = tmp_path / "theirs.vcd"  # a VCD another tool wrote is the user's too
    theirs.write_text("$comment old $end\n$version other 1.0 $end\n")
    with pytest.raises(FairdieError, match="holds a file fairdie did not write"):
        write(chip, theirs)
    assert write(chip, theirs, force=True) == theirs and "fairdie" in theirs.read_text()
    old = tmp_path / "old.vcd"  # an earlier VCD of fairdie's is written over
    write(chip, old, comment="old")
    assert write(chip, old) == old and "old" not in old.read_text()


@pytest.mark.skipif(
    not (shutil.which("vcd2lxt2") and shutil.which("lxt2vcd")),
    reason="needs GTKWave's converters vcd2lxt2 and lxt2vcd (Debian: gtkwave)",
)
def test_gtkwave_reads_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """GTKWave's own VCD loader (in vcd2lxt2) reads the file: converted to
    LXT2 and back, every wave is the same."""
    vcd = tmp_path / "press.vcd"
    assert run(capsys, "press", "--vcd", str(vcd), "--count", "2")[0] == 0
    lxt = tmp_path / "press.lxt"
    subprocess.run(["vcd2lxt2", str(vcd), str(lxt)], check=True, capture_output=True)
    back = tmp_path / "back.vcd"
    with back.open("wb") as f:
        subprocess.run(["lxt2vcd", str(lxt)], check=True, stdout=f, stderr=subprocess.DEVNULL)
    ours, theirs = read_vcd(vcd)[1], read_vcd(back)[1]
    assert set(ours) == set(theirs) and len(ours["PB0"]) > 1
    for name, wave in ours.items():
        assert collapse(theirs[name]) == collapse(wave), name


def test_the_readmes_example_is_what_it_prints(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = readme.split("```\n$ fairdie press --vcd press.vcd")[1].split("\n$ gtkwave")[0]
    argv, *expected = ("--vcd press.vcd" + block).splitlines()
    monkeypatch.chdir(tmp_path)
    rc, out, _ = run(capsys, "press", *argv.split())
    assert rc == 0 and out.splitlines() == expected
    assert (tmp_path / "press.vcd").is_file()
