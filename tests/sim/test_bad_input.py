"""Bad input on the command line: one line naming the problem, exit 2, nothing changed.

Each case runs the real CLI (``fairdie.cli.main``, in this process: a Python
error would fail the test with its traceback) on real files: our own build
of the die, cut, patched or damaged. The inputs are checked unchanged after
every refusal, and a few cases that could crash the host if a check were
missing run in a subprocess.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from refusals import die, refused
from simsupport import run

from fairdie.toolchain import Build


def hex_record(address: int, data: bytes, kind: int = 0) -> str:
    body = bytes([len(data), address >> 8, address & 0xFF, kind]) + data
    return ":" + (body + bytes([-sum(body) & 0xFF])).hex().upper()


EOF = ":00000001FF"


@pytest.fixture
def files(tmp_path: Path) -> Callable[[str, bytes | str], Path]:
    """``files(name, content)``: a file in tmp_path."""

    def make(name: str, content: bytes | str) -> Path:
        p = tmp_path / name
        if isinstance(content, str):
            p.write_text(content, encoding="ascii")
        else:
            p.write_bytes(content)
        return p

    return make


def _section_size_offset(elf: bytes, name: str) -> int:
    """Where in ``elf`` the sh_size of section ``name`` is stored."""
    from io import BytesIO

    from elftools.elf.elffile import ELFFile

    f = ELFFile(BytesIO(elf))
    for i, sec in enumerate(f.iter_sections()):
        if sec.name == name:
            return int(f["e_shoff"]) + i * int(f["e_shentsize"]) + 20
    raise AssertionError(name)


# ---- firmware files -----------------------------------------------------------------


def _firmware_cases(built: Build) -> dict[str, tuple[bytes | str, str]]:
    elf = built.elf.read_bytes()
    hexl = built.hex.read_text().splitlines()
    bad_sum = hexl[1][:-2] + f"{(int(hexl[1][-2:], 16) + 1) & 0xFF:02X}"
    x86 = bytearray(elf)
    x86[18:20] = struct.pack("<H", 62)
    cases = [
        ("empty.elf", b"", "empty.elf: empty file, not an ELF or Intel HEX"),
        ("empty.hex", "", "empty.hex: empty file"),
        ("head.elf", elf[:4], "malformed ELF"),
        ("cut.elf", elf[:100], "truncated ELF (a segment of"),
        ("half.elf", elf[: len(elf) // 2], "malformed ELF, truncated or damaged"),
        ("x86.elf", bytes(x86), "an ELF for EM_X86_64, not for an AVR"),
        ("junk.bin", b"\x00\x01\x02\xff" * 64, "neither an ELF nor an Intel HEX"),
        ("text.hex", "hello\n", "neither an ELF nor an Intel HEX"),
        ("eof.hex", EOF + "\n", "eof.hex: an Intel HEX with no data: no code to load"),
        ("cut.hex", "\n".join(hexl[:5]) + "\n", "no end-of-file record (truncated?)"),
        (
            "cutline.hex",
            "\n".join([*hexl[:5], hexl[5][:20]]) + "\n",
            "cutline.hex:6: malformed Intel HEX record",
        ),
        ("sum.hex", "\n".join([hexl[0], bad_sum, *hexl[2:]]) + "\n", "sum.hex:2: bad checksum"),
        (
            "type6.hex",
            "\n".join([hexl[0], hex_record(0, b"\0\0", kind=6), *hexl[1:]]) + "\n",
            "type6.hex:2: unknown record type 06",
        ),
        (
            "ela.hex",
            "\n".join([hex_record(0, b"\0", kind=4), *hexl]) + "\n",
            "type 04 record has 2 data bytes, not 1",
        ),
        (
            "overlap.hex",
            "\n".join([hex_record(0, b"\x12\x34"), *hexl]) + "\n",
            "address 0x0 was already given another byte",
        ),
        (
            "far.hex",
            "\n".join([hex_record(0, b"\x01\x00", kind=4), *hexl]) + "\n",
            "is beyond any AVR's flash",  # the die's code moved up by 16 MB
        ),
    ]
    return {name: (content, message) for name, content, message in cases}


FIRMWARE_CASES = [
    *("empty.elf", "empty.hex", "head.elf", "cut.elf", "half.elf", "x86.elf", "junk.bin"),
    *("text.hex", "eof.hex", "cut.hex", "cutline.hex", "sum.hex", "type6.hex", "ela.hex"),
    *("overlap.hex", "far.hex"),
]


def test_every_firmware_case_is_run():
    assert sorted(FIRMWARE_CASES) == sorted(_firmware_cases(die()))


@pytest.mark.parametrize("name", FIRMWARE_CASES)
def test_bad_firmware_file(capsys, files, name):
    content, message = _firmware_cases(die())[name]
    path = files(name, content)
    line = refused(capsys, "press", "--firmware", str(path), inputs=(path,))
    assert line.startswith("fairdie: error: ") and message in line


@pytest.mark.parametrize(
    ("kind", "shown"),
    [("folder", "a directory"), ("fifo", "a FIFO"), ("device", "a character device")],
)
def test_firmware_that_is_not_a_file(capsys, tmp_path, kind, shown):
    """Named as what it is, not as missing; a FIFO is not waited on."""
    path = {"folder": tmp_path, "fifo": tmp_path / "f.hex", "device": Path("/dev/zero")}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    for argv in (["--firmware", str(path)], ["--firmware", str(die().hex), "--eep", str(path)]):
        line = refused(capsys, "press", *argv)
        assert line.endswith(f"{path}: not a regular file ({shown})")


@pytest.mark.parametrize(
    ("section", "size", "message"),
    [
        (".bss", 100, "needs 100 bytes of SRAM (.data+.bss+.noinit); the attiny13a has 64"),
        (".text", 4000, "needs 4000 bytes of flash (.text+.data); the attiny13a has 1024"),
    ],
)
def test_elf_too_large_for_the_mcu(capsys, files, section, size, message):
    elf = bytearray(die().elf.read_bytes())
    struct.pack_into("<I", elf, _section_size_offset(bytes(elf), section), size)
    path = files("big.elf", bytes(elf))
    assert message in refused(capsys, "press", "--firmware", str(path), inputs=(path,))


# ---- EEPROM images --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "t.eep: empty file, not an Intel HEX"),
        (hex_record(0, b"\1\2\3")[:-2] + "00\n" + EOF + "\n", "t.eep:1: bad checksum"),
        (hex_record(0, b"\1\2\3") + "\n", "t.eep: no end-of-file record"),
        (hex_record(0, b"\1", kind=6) + "\n" + EOF + "\n", "t.eep:1: unknown record type 06"),
        (b"\xff" * 64, "t.eep: not an Intel HEX file (--eep takes the .eep"),
        (b"\x00" * 10, "t.eep: not an Intel HEX file"),
        (
            hex_record(0x40, b"\1\2\3") + "\n" + EOF + "\n",
            "t.eep: needs 67 bytes of EEPROM (data up to address 0x42); the attiny13a has 64",
        ),
        (
            "\n".join(hex_record(a, bytes(16)) for a in range(0, 128, 16)) + "\n" + EOF + "\n",
            "t.eep: needs 128 bytes of EEPROM (data up to address 0x7F)",
        ),
        (
            # the .eeprom section at its ELF address, not moved to 0 (--change-section-lma)
            hex_record(0, b"\x00\x81", kind=4) + "\n" + hex_record(0, b"\1") + "\n" + EOF + "\n",
            "t.eep: EEPROM address 0x810000 is beyond any AVR's EEPROM",
        ),
    ],
)
def test_bad_eeprom_image(capsys, files, content, message):
    eep = files("t.eep", content)
    line = refused(
        capsys, "press", "--firmware", str(die().hex), "--eep", str(eep), inputs=(eep, die().hex)
    )
    assert message in line


def test_missing_eeprom_image_and_eeprom_with_an_elf(capsys, tmp_path):
    line = refused(capsys, "press", "--firmware", str(die().hex), "--eep", str(tmp_path / "no.eep"))
    assert "no.eep: no such EEPROM file" in line
    line = refused(capsys, "press", "--firmware", str(die().elf), "--eep", str(die().eep))
    assert "an ELF carries its own EEPROM section; --eep is for HEX files" in line


def test_a_good_eeprom_image_still_loads(capsys):
    """The checks above refuse what is wrong, not the images our build writes."""
    rc, _out, err = run(
        capsys, "press", "--firmware", str(die().hex), "--eep", str(die().eep), "--json"
    )
    assert rc == 0, err


#: Each oversized image tried in one process of its own (were a check missing,
#: simavr could write outside its memory and take the process down rather than
#: exit 2; a crash there fails both cases): ``fairdie press`` with it, its exit
#: status, stdout and stderr, as JSON.
OVERSIZED_SCRIPT = """
import contextlib, io, json, sys
from fairdie.cli import main
seen = {}
for case, *argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["press", *argv, "--json"])
    seen[case] = rc, out.getvalue(), err.getvalue()
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def oversized(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """What ``OVERSIZED_SCRIPT`` did with each image: an ELF whose .bss needs
    2 KB of SRAM, and an EEPROM image of 4 KB."""
    where = tmp_path_factory.mktemp("oversized")
    elf = bytearray(die().elf.read_bytes())
    struct.pack_into("<I", elf, _section_size_offset(bytes(elf), ".bss"), 2048)
    (where / "big.elf").write_bytes(bytes(elf))
    lines = [hex_record(a, bytes(16)) for a in range(0, 4096, 16)]
    (where / "big.eep").write_text("\n".join([*lines, EOF]) + "\n")
    cases = [
        ["bss", "--firmware", str(where / "big.elf")],
        ["eep", "--firmware", str(die().hex), "--eep", str(where / "big.eep")],
    ]
    r = subprocess.run(
        [sys.executable, "-c", OVERSIZED_SCRIPT, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0 and r.stderr == "", (r.returncode, r.stderr)
    seen: dict[str, list[Any]] = json.loads(r.stdout)
    return seen


@pytest.mark.parametrize("case", ["bss", "eep"])
def test_oversized_images_never_reach_simavr(oversized: dict[str, list[Any]], case: str) -> None:
    rc, out, err = oversized[case]
    assert rc == 2 and out == ""
    assert err.startswith("fairdie: error: ") and err.count("\n") == 1, err


# ---- numeric and other option values --------------------------------------------------

HUGE = "9" * 30
#: a scheduler address where no one listens (the discard port of this machine)
NO_ONE = "tcp://127.0.0.1:9"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["press", "--count", "-1"], "argument --count: -1 is out of range"),
        (["press", "--count", HUGE], "argument --count: "),
        (["press", "--count", "1.5"], "argument --count: not a whole number"),
        (["press", "--hold", "0"], "argument --hold: 0 s is out of range"),
        (["press", "--hold", "-0"], "argument --hold: -0 s is out of range"),
        (["press", "--hold", "nan"], "argument --hold: nan s is out of range"),
        (["press", "--hold", "inf"], "argument --hold: inf s is out of range"),
        (["press", "--hold", "1e9"], "argument --hold: 1e9 s is out of range"),
        (["press", "--hold", "x"], "argument --hold: not a number of seconds"),
        (["press", "--seed", "-1"], "argument --seed: -1 is out of range"),
        (["press", "--seed", "x"], "argument --seed: not a whole number"),
        (["press", "--seed", "1.5"], "argument --seed: not a whole number"),
        (["press", "--seed", HUGE], "argument --seed: "),
        (["press", "--f-cpu", "0"], "argument --f-cpu: 0 is out of range"),
        (["press", "--f-cpu", "-5"], "argument --f-cpu: -5 is out of range"),
        (["press", "--f-cpu", HUGE], "argument --f-cpu: "),
        (["press", "--counts", "1,2,3,4,5,x"], "argument --counts: not six numbers"),
        (["press", "--counts=-1,0,0,0,0,0"], "argument --counts: expected six counts"),
        (["press", "--noise", ""], "argument --noise: empty"),
        (["press", "--noise", " "], "argument --noise: empty"),
        (["press", "--button", ""], "argument --button: empty"),
        (["press", "--variant", "bogus"], "argument --variant: invalid choice"),
        (["bench", "--cycles", "0"], "argument --cycles: 0 is out of range"),
        (["bench", "--cycles", "-1"], "argument --cycles: -1 is out of range"),
        (["bench", "--cycles", HUGE], "argument --cycles: "),
        (["bench", "--cycles", "1e9"], "argument --cycles: not a whole number"),
        (["bench", "--rounds", "0"], "argument --rounds: 0 is out of range"),
        (["bench", "--rounds", "1000"], "argument --rounds: 1000 is out of range"),
        (["demo", "--count", "0"], "argument --count: 0 is out of range"),
        (["demo", "--count", "99999"], "argument --count: 99999 is out of range"),
        (["demo", "--seed", "-1"], "argument --seed: -1 is out of range"),
        (["demo", "--seed", "x"], "argument --seed: not a whole number"),
        (["build", "--target", "die_t13a", "--f-cpu", "0"], "argument --f-cpu: 0 is out of range"),
        (
            ["build", "--target", "die_t13a", "--f-cpu", "-1"],
            "argument --f-cpu: -1 is out of range",
        ),
        (["build", "--target", "die_t13a", "--f-cpu", HUGE], "argument --f-cpu: "),
        (["lab", "search", "--values", "1", "--samples", "2", "--entropy", "0.5"], "--values"),
        (
            ["lab", "search", "--values", HUGE, "--samples", "2", "--entropy", "0.5"],
            "is out of range",
        ),
        (["lab", "search", "--values", "6", "--samples", "0", "--entropy", "0.5"], "--samples"),
        (
            ["lab", "search", "--values", "6", "--samples", HUGE, "--entropy", "0.5"],
            "is out of range",
        ),
        (["lab", "search", "--values", "6", "--samples", "2", "--entropy", "nan"], "--entropy"),
        (["lab", "search", "--values", "6", "--samples", "2", "--entropy", "-0.1"], "--entropy"),
        (
            [
                "lab",
                "search",
                "--values",
                "6",
                "--samples",
                "2",
                "--entropy",
                "0.5",
                "--simulate",
                "1",
            ],
            "argument --simulate: 1 is out of range (2..",
        ),
        (
            [
                "lab",
                "search",
                "--values",
                "6",
                "--samples",
                "2",
                "--entropy",
                "0.5",
                "--simulate",
                HUGE,
            ],
            "argument --simulate: ",
        ),
        (
            [
                "lab",
                "search",
                "--values",
                "6",
                "--samples",
                "2",
                "--entropy",
                "0.5",
                "--seed",
                "-1",
            ],
            "argument --seed: -1 is out of range (0..",
        ),
        (
            ["lab", "search", "--values", "6", "--samples", "2", "--entropy", "0.5", "--seed", "x"],
            "argument --seed: ",
        ),
        (["lab", "campaign", "--presses", "0"], "argument --presses: 0 is out of range (1.."),
        (["lab", "campaign", "--presses", HUGE], "argument --presses: "),
        (["lab", "campaign", "--presses", "x"], "argument --presses: not a whole number"),
        (
            ["lab", "campaign", "--presses", "3", "--seed", "-1"],
            "argument --seed: -1 is out of range",
        ),
        (["lab", "campaign", "--presses", "3", "--seed", HUGE], "argument --seed: "),
        (
            ["lab", "campaign", "--presses", "3", "--jobs", "0"],
            "argument --jobs: 0 is out of range (1..",
        ),
        (
            ["lab", "campaign", "--presses", "3", "--jobs", "-2"],
            "argument --jobs: -2 is out of range",
        ),
        (["lab", "campaign", "--presses", "3", "--jobs", "100000"], "argument --jobs: 100000"),
        (
            ["lab", "campaign", "--presses", "3", "--scheduler", "nonsense"],
            "argument --scheduler: 'nonsense' is not a scheduler address",
        ),
        (
            ["lab", "campaign", "--presses", "3", "--scheduler", "tcp://host:0"],
            "argument --scheduler: ",
        ),
        (["lab", "frobnicate"], "expected search, rule or campaign"),
        (  # the campaign is checked before the scheduler is reached
            ["lab", "campaign", "--presses", "3", "--board", "nowhere", "--scheduler", NO_ONE],
            "nowhere: no such board file or shipped board",
        ),
    ],
)
def test_bad_option_value(capsys, argv, message):
    assert message in refused(capsys, *argv)


@pytest.mark.parametrize(
    "noise",
    [
        "wobble",
        "stuck:",
        "stuck:x",
        "stuck:-1",
        "stuck:nan",
        "hum:0",
        "hum:1e99",
        "biased:0,0",
        "biased:-1,2",
        "trace:/nonexistent/trace.csv",
    ],
)
def test_bad_noise_spec(capsys, noise):
    line = refused(capsys, "press", "--noise", noise)
    assert noise.split(":")[0] in line and "noise" in line


def test_bad_noise_spec_in_a_campaign(capsys):
    line = refused(capsys, "lab", "campaign", "--presses", "3", "--noise", "stuck:x")
    assert "bad noise 'stuck:x'" in line


# ---- the toolchain ------------------------------------------------------------------------


def _target(tmp_path: Path, toml: bytes | str) -> Path:
    folder = tmp_path / "fw"
    folder.mkdir()
    (folder / "main.c").write_text("int main(void) { for (;;) {} }\n")
    t = folder / "target.toml"
    t.write_bytes(toml if isinstance(toml, bytes) else toml.encode())
    return folder


MINIMAL = 'mcu = "attiny13a"\nf_cpu = 1200000\n'


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (b"\xff\xfe", "target.toml: not a target file (not UTF-8 text)"),
        ("mcu = [\n", "target.toml: "),
        (MINIMAL + "f_cpuu = 1\n", "unknown key f_cpuu"),
        (MINIMAL + "[budget]\nflash = 1024\nsram = 64\nsrm = 1\n", "unknown key budget.srm"),
        (MINIMAL + '[variants.a]\ndefines = {}\nled = "direct"\n', "unknown key variants.a.led"),
        (MINIMAL + '[variants.a]\nleds = "sideways"\n', "leds must be one of direct"),
        ('mcu = "attiny13a"\nf_cpu = 99999999999\n', "f_cpu 99999999999 is out of range"),
        ('mcu = "attiny13a"\nf_cpu = 0\n', "f_cpu 0 is out of range"),
        ('mcu = "attiny13a"\n', "target.toml: no f_cpu"),
    ],
)
def test_bad_target(capsys, tmp_path, toml, message):
    folder = _target(tmp_path, toml)
    line = refused(
        capsys,
        "build",
        "--target",
        str(folder),
        "--cache-dir",
        str(tmp_path / "c"),
        inputs=(folder / "target.toml", folder / "main.c"),
    )
    assert message in line


def test_build_for_an_unknown_mcu(capsys, tmp_path):
    line = refused(
        capsys, "build", "--target", "die_t13a", "--mcu", "nope", "--cache-dir", str(tmp_path)
    )
    assert line == "fairdie: error: die_t13a: avr-gcc knows no MCU 'nope'"


@pytest.mark.parametrize("where", ["file", "below a file"])
def test_cache_folder_that_cannot_be_one(capsys, tmp_path, where):
    blocker = tmp_path / "blocker"
    blocker.write_text("keep me\n")
    cache = blocker if where == "file" else blocker / "cache"
    line = refused(
        capsys, "build", "--target", "die_t13a", "--cache-dir", str(cache), inputs=(blocker,)
    )
    assert f"cache folder {cache}: " in line
    assert blocker.read_text() == "keep me\n"
