"""The pure-Python parts of fairdie.sim: HEX, ELF .mmcu, registers, VCD (no simulator)."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

from fairdie.errors import FirmwareError
from fairdie.sim import (
    Event,
    EventKind,
    Level,
    PinChange,
    Until,
    load_firmware,
    mcu_matches,
    parse_pin,
)
from fairdie.sim._elfinfo import parse_mmcu
from fairdie.sim._firmware import read_ihex
from fairdie.sim._vcd import write_vcd


def hex_record(address: int, data: bytes, kind: int = 0) -> str:
    body = bytes([len(data), address >> 8, address & 0xFF, kind]) + data
    return ":" + (body + bytes([-sum(body) & 0xFF])).hex().upper()


def write_hex(path: Path, chunks: dict[int, bytes]) -> Path:
    lines = [hex_record(a, d) for a, d in chunks.items()] + [":00000001FF"]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_hex_round_trip(tmp_path):
    p = write_hex(tmp_path / "a.hex", {0: b"\x01\x02", 4: b"\x05"})
    fw = load_firmware(p, mcu="attiny13a", f_cpu=1_200_000)
    assert fw.flash == b"\x01\x02\xff\xff\x05"
    assert (fw.mcu, fw.f_cpu, fw.eeprom) == ("attiny13a", 1_200_000, None)


def test_hex_with_eep(tmp_path):
    p = write_hex(tmp_path / "a.hex", {0: b"\x00\x00"})
    e = write_hex(tmp_path / "a.eep", {2: b"\x07"})
    assert load_firmware(p, eep=e).eeprom == b"\xff\xff\x07"


def test_extended_linear_address(tmp_path):
    p = tmp_path / "x.hex"
    p.write_text(
        "\n".join([hex_record(0, b"\x00\x01", kind=4), hex_record(0, b"\xaa"), ":00000001FF"])
    )
    assert read_ihex(p) == {0x10000: 0xAA}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (":0400000001020304F1\n:00000001FF\n", "bad checksum"),
        (":02000000AA\n:00000001FF\n", "length does not match"),
        (":zz\n", "malformed"),
        (hex_record(0, b"\x01") + "\n", "no end-of-file"),
        (":00000001FF\n" + hex_record(0, b"\x01") + "\n", "after the end-of-file"),
        (hex_record(0, b"\x01", kind=7) + "\n:00000001FF\n", "unknown record type"),
    ],
)
def test_malformed_hex_is_one_line_error(tmp_path, text, message):
    p = tmp_path / "bad.hex"
    p.write_text(text)
    with pytest.raises(FirmwareError, match=message) as e:
        load_firmware(p)
    assert "\n" not in str(e.value)


def test_not_a_firmware_file(tmp_path):
    p = tmp_path / "x.bin"
    p.write_bytes(b"\x00\x01\x02")
    with pytest.raises(FirmwareError, match="neither an ELF nor an Intel HEX"):
        load_firmware(p)
    with pytest.raises(FirmwareError, match="no such firmware file"):
        load_firmware(tmp_path / "missing.elf")
    with pytest.raises(FirmwareError, match="no such EEPROM file"):
        load_firmware(write_hex(tmp_path / "a.hex", {0: b"\0"}), eep=tmp_path / "none.eep")


def test_truncated_elf_is_one_line_error(tmp_path):
    p = tmp_path / "t.elf"
    p.write_bytes(b"\x7fELF\x01\x01\x01" + b"\0" * 20)
    with pytest.raises(FirmwareError, match="malformed ELF"):
        load_firmware(p)


def test_mmcu_section_tags():
    name = b"attiny13a".ljust(16, b"\0")
    blob = bytes([1, len(name)]) + name + bytes([2, 4]) + (1_200_000).to_bytes(4, "little")
    blob += bytes([3, 4]) + (3300).to_bytes(4, "little")
    assert parse_mmcu(blob) == ("attiny13a", 1_200_000, 3300)


def test_mcu_names():
    assert mcu_matches("attiny13a", "ATtiny13")
    assert mcu_matches("attiny84a", "attiny84a")
    assert not mcu_matches("attiny13a", "attiny85")
    assert parse_pin("pb3") == ("B", 3)
    with pytest.raises(ValueError, match="bad pin name"):
        parse_pin("PB9")


def _word(level: int = 0, chip: int = 0, world: int = 0, pulled: int = 0) -> int:
    return level | chip << 8 | world << 16 | pulled << 24


def test_levels_of_the_state_word():
    # PB0 chip high, PB1 chip low, PB2 pulled up, PB3 floating, PB4 driven from
    # outside high, PB5 pulled down
    w = _word(level=0b01_0101, chip=0b11, world=0b1_0000, pulled=0b10_0100)
    ch = PinChange(0, "B", w, 0)
    assert [ch.level(b) for b in range(6)] == [
        Level.HIGH, Level.LOW, Level.PULLUP, Level.Z, Level.HIGH, Level.PULLDOWN,
    ]  # fmt: skip
    assert [ch.high(b) for b in range(6)] == [True, False, True, False, True, False]
    assert ch.changed_bits() == [0, 1, 2, 4, 5]


def test_until_combines_and_events_describe_themselves():
    u = Until.pin("PB0") | Until.event(EventKind.EEPROM_DONE) | Until.quiet(0.5) | Until.quiet(0.2)
    assert u.kinds == EventKind.PIN | EventKind.EEPROM_DONE
    assert u.pins == ("PB0",) and u.quiet_seconds == 0.2
    with pytest.raises(ValueError, match="one PC"):
        _ = Until.pc_at(2) | Until.pc_at(4)
    pin = Event(5, EventKind.PIN, ord("B"), _word(level=1, chip=1), _word(chip=1))
    assert pin.describe() == "pin PB0=1 at cycle 5"
    adc = Event(7, EventKind.ADC, 2 | 1 << 8, 500, 465 | 1100 << 16)
    assert "channel=2" in adc.describe() and "internal" in adc.describe()


def test_vcd_file(tmp_path):
    pins = [
        Event(10, EventKind.PIN, ord("B"), _word(level=1, chip=1)),
        Event(20, EventKind.PIN, ord("B"), _word(chip=1)),
        Event(30, EventKind.PIN, ord("B"), 0),
        Event(35, EventKind.SLEEP),
    ]
    path = write_vcd(
        tmp_path / "t.vcd",
        frequency=1_000_000,
        pins=["PB0"],
        events=pins,
        signals=["sleep"],
        end=40,
    )
    body = path.read_text().split("$enddefinitions $end")[1]
    assert "#10000\n1!" in body and "#20000\n0!" in body and "#30000\nz!" in body
    assert '#35000\n1"' in body
    with pytest.raises(ValueError, match="unknown VCD signal"):
        write_vcd(
            tmp_path / "u.vcd",
            frequency=1,
            pins=[],
            events=[],
            signals=["volts"],
            end=0,
        )


def test_vcd_pins_change_by_their_own_values_not_the_word_they_reach(tmp_path):
    """A port reaching one state word from two others changes different pins
    each time: PB1 from 01 to 11, PB0 from 10 to 11 (the writer steps the
    pins' values by state word)."""
    w = [_word(level=v, chip=0b11) for v in (0b01, 0b11, 0b10, 0b11)]
    events = [Event(10 * (i + 1), EventKind.PIN, ord("B"), w[i], w[i - 1]) for i in (1, 2, 3)]
    path = write_vcd(
        tmp_path / "t.vcd", frequency=1_000_000, pins=["PB0", "PB1"], events=events,
        signals=[], end=50,
    )  # fmt: skip
    body = path.read_text().split("$dumpvars", 1)[1]
    assert body == '\n1!\n0"\n$end\n#20000\n1"\n#30000\n0!\n#40000\n1!\n#50000\n'


def test_every_file_of_the_c_boundary_ships_and_reruns_setup():
    """An installed wheel builds the extensions from the shipped sources, and
    `make` re-runs setup when any of them changes: both must see every file."""
    root = Path(__file__).resolve().parents[2]
    sim = root / "harness" / "fairdie" / "sim"
    boundary = [*sorted(p.name for p in sim.glob("_shim*.[ch]")), "_api.h"]
    boundary += sorted(p.name for p in sim.glob("_noise*.[ch]"))  # the noise kernels
    assert "_shim.h" in boundary and "_shim_private.h" in boundary
    assert "_noise_api.h" in boundary and "_noise_kernels.c" in boundary
    assert len([n for n in boundary if n.endswith(".c")]) >= 8
    shipped = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["fairdie"]
    make = (root / "Makefile").read_text()
    # the line and every line it continues with a backslash
    setup_inputs = re.search(r"^SETUP_INPUTS :=((?:.*\\\n)*.*)", make, flags=re.M)
    assert setup_inputs is not None
    watched = setup_inputs.group(1).replace("$(SIM)/", "").replace("$(wildcard ", "").split()
    for name in boundary:
        assert any(fnmatch.fnmatch(f"sim/{name}", pattern) for pattern in shipped), name
        assert any(fnmatch.fnmatch(name, w.rstrip(")")) for w in watched), name
