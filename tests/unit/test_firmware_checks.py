"""check_fits and what it reads from an ELF, on crafted ELF and HEX bytes (no toolchain).

avr-libc is replaced by a fake lib folder (FAIRDIE_AVR_LIBC) holding two crt
files, so these tests see the same architectures on every machine.
"""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path

import pytest

from fairdie.errors import FirmwareError
from fairdie.sim import DeviceInfo, Firmware, check_fits, load_firmware
from fairdie.sim._elfinfo import elf_arch, parse_deviceinfo
from fairdie.sim._firmware import _libc_arch

T13A = {"flash_size": 1024, "sram_size": 64, "eeprom_size": 64}
M328P = {"flash_size": 32768, "sram_size": 2048, "eeprom_size": 1024}
RJMP_VECTORS = struct.pack("<10H", *(0xC000 + 9 for _ in range(10)))  # rjmp .+18, ten times
JMP_VECTORS = struct.pack("<8H", *[0x940C, 0x0034] * 4)  # jmp 0x68, four times
# The descriptor of avr-libc 2.0's crtattiny13a.o, byte for byte.
T13A_DESC = bytes.fromhex(
    "00000000 00040000 60000000 40000000 00000000 40000000 08000000 01000000"
    "00617474 696e7931 336100".replace(" ", "")
)


def avr_note(name: str, flash: int, sram_start: int, sram: int, eeprom: int) -> bytes:
    """A .note.gnu.avr.deviceinfo as avr-libc's crt writes it."""
    desc = struct.pack("<8I", 0, flash, sram_start, sram, 0, eeprom, 8, 1)
    desc += b"\0" + name.encode() + b"\0"
    pad = b"\0" * (-len(desc) % 4)
    return struct.pack("<3I", 4, len(desc), 1) + b"AVR\0" + desc + pad


def elf_bytes(
    text: bytes,
    *,
    e_flags: int = 25,
    bss: int = 0,
    eeprom: bytes = b"",
    note: bytes | None = None,
) -> bytes:
    """A minimal linked AVR ELF: .text (and .eeprom) loaded by PT_LOAD segments."""
    # (name, sh_type, sh_flags, address, data, size)
    secs: list[tuple[str, int, int, int, bytes, int]] = [(".text", 1, 6, 0, text, len(text))]
    if bss:
        secs.append((".bss", 8, 3, 0x800060, b"", bss))
    if eeprom:
        secs.append((".eeprom", 1, 3, 0x810000, eeprom, len(eeprom)))
    if note is not None:
        secs.append((".note.gnu.avr.deviceinfo", 7, 0, 0, note, len(note)))
    names = b"\0"
    name_at = []
    for s in [*secs, (".shstrtab",)]:
        name_at.append(len(names))
        names += s[0].encode() + b"\0"
    secs.append((".shstrtab", 3, 0, 0, names, len(names)))
    loads = [s for s in secs if s[1] == 1 and s[2]]
    body = bytearray()
    offsets = []
    start = 52 + 32 * len(loads)
    for s in secs:
        body += b"\0" * (-(start + len(body)) % 4)
        offsets.append(start + len(body))
        body += s[4]
    body += b"\0" * (-(start + len(body)) % 4)
    shoff = start + len(body)
    head = b"\x7fELF\x01\x01\x01" + b"\0" * 9
    head += struct.pack(
        "<HHIIIIIHHHHHH",
        2,
        83,
        1,
        0,
        52,
        shoff,
        e_flags,
        52,
        32,
        len(loads),
        40,
        len(secs) + 1,
        len(secs),
    )
    phdrs = b"".join(
        struct.pack("<8I", 1, offsets[secs.index(s)], s[3], s[3], len(s[4]), len(s[4]), 5, 1)
        for s in loads
    )
    shdrs = b"\0" * 40 + b"".join(
        struct.pack("<10I", name_at[i], s[1], s[2], s[3], offsets[i], s[5], 0, 0, 1, 0)
        for i, s in enumerate(secs)
    )
    return head + phdrs + bytes(body) + shdrs


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def write_hex(path: Path, image: bytes) -> Path:
    lines = []
    for a in range(0, len(image), 16):
        chunk = image[a : a + 16]
        body = bytes([len(chunk), a >> 8, a & 0xFF, 0]) + chunk
        lines.append(":" + (body + bytes([-sum(body) & 0xFF])).hex().upper())
    path.write_text("\n".join([*lines, ":00000001FF"]) + "\n")
    return path


@pytest.fixture(autouse=True)
def fake_avr_libc(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    root = tmp_path_factory.mktemp("avr-libc")
    head = elf_bytes(b"\0\0", e_flags=0x99)[:52]
    (root / "avr25" / "tiny-stack").mkdir(parents=True)
    (root / "avr5").mkdir()
    write(root / "avr25" / "tiny-stack" / "crtattiny13a.o", head)
    write(root / "avr25" / "tiny-stack" / "crtattiny13.o", head)
    write(root / "avr5" / "crtatmega328p.o", elf_bytes(b"\0\0", e_flags=0x85)[:52])
    monkeypatch.setenv("FAIRDIE_AVR_LIBC", str(root))
    return root


@pytest.fixture
def m328p_elf(tmp_path: Path) -> Path:
    """What avr-gcc -mmcu=atmega328p makes of a small program: 140 B of .bss, JMP vectors."""
    note = avr_note("atmega328p", 32768, 0x100, 2048, 1024)
    return write(tmp_path / "m328p.elf", elf_bytes(JMP_VECTORS * 4, e_flags=5, bss=140, note=note))


def one_line_error(fw: Firmware, mcu: str = "attiny13a", **sizes: int) -> str:
    with pytest.raises(FirmwareError) as e:
        check_fits(fw, mcu, **(sizes or T13A))
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_crafted_elf_parses_like_a_real_one(m328p_elf: Path) -> None:
    fw = load_firmware(m328p_elf)
    assert fw.arch == 5
    assert fw.device == DeviceInfo("atmega328p", 0, 32768, 0x100, 2048, 0, 1024)
    assert fw.sections[".text"] == len(JMP_VECTORS) * 4
    assert fw.sections[".bss"] == 140
    assert fw.flash == JMP_VECTORS * 4


def test_device_info_layout_of_avr_libc() -> None:
    assert parse_deviceinfo(T13A_DESC, Path("x.elf")) == DeviceInfo(
        "attiny13a", 0, 1024, 0x60, 64, 0, 64
    )


@pytest.mark.parametrize(
    "desc",
    [T13A_DESC[:20], T13A_DESC[:28] + struct.pack("<I", 99) + T13A_DESC[32:], T13A_DESC[:33]],
)
def test_malformed_device_info_is_one_line_error(tmp_path: Path, desc: bytes) -> None:
    note = struct.pack("<3I", 4, len(desc), 1) + b"AVR\0" + desc + b"\0" * (-len(desc) % 4)
    p = write(tmp_path / "bad.elf", elf_bytes(RJMP_VECTORS, note=note))
    with pytest.raises(FirmwareError, match=r"malformed \.note\.gnu\.avr\.deviceinfo") as e:
        load_firmware(p)
    assert "\n" not in str(e.value)


def test_device_note_names_another_mcu(m328p_elf: Path) -> None:
    msg = one_line_error(load_firmware(m328p_elf))
    assert msg == "m328p.elf: built for atmega328p (its device-info note), not attiny13a"


def test_device_note_attiny13_is_attiny13a(tmp_path: Path) -> None:
    note = avr_note("attiny13", 1024, 0x60, 64, 64)
    fw = load_firmware(write(tmp_path / "t13.elf", elf_bytes(RJMP_VECTORS, note=note)))
    check_fits(fw, "attiny13a", **T13A)
    check_fits(fw, "ATtiny13", **T13A)


def test_arch_from_elf_flags_against_avr_libc(m328p_elf: Path) -> None:
    fw = dataclasses.replace(load_firmware(m328p_elf), device=None)
    msg = one_line_error(fw)
    assert msg == "m328p.elf: built for the avr5 architecture (ELF flags); attiny13a is avr25"


def test_arch_check_skipped_when_avr_libc_does_not_know_the_mcu(tmp_path: Path) -> None:
    fw = load_firmware(write(tmp_path / "a.elf", elf_bytes(RJMP_VECTORS, e_flags=2)))
    assert _libc_arch("attiny9999") is None
    check_fits(fw, "attiny9999", **T13A)  # nothing to compare with: no refusal
    assert "avr2 architecture" in one_line_error(fw)


def test_libc_arch_reads_the_crt_files_flags(fake_avr_libc: Path) -> None:
    assert _libc_arch("attiny13a") == 25
    assert _libc_arch("ATmega328P") == 5
    assert _libc_arch("../avr5/crtatmega328p") is None
    assert elf_arch(b"\x7fELF" + b"\0" * 60) is None
    assert elf_arch(b"not an elf") is None


def test_section_sizes(m328p_elf: Path, tmp_path: Path) -> None:
    fw = dataclasses.replace(load_firmware(m328p_elf), device=None, arch=None)
    small = dataclasses.replace(fw, flash=RJMP_VECTORS)  # only the sizes can tell now
    assert one_line_error(small) == (
        "m328p.elf: needs 140 bytes of SRAM (.data+.bss+.noinit); the attiny13a has 64"
    )
    big = dataclasses.replace(small, sections={".text": 1000, ".data": 30})
    assert "needs 1030 bytes of flash (.text+.data); the attiny13a has 1024" in one_line_error(big)
    ee = load_firmware(write(tmp_path / "ee.elf", elf_bytes(RJMP_VECTORS, eeprom=bytes(65))))
    assert "needs 65 bytes of EEPROM (.eeprom); the attiny13a has 64" in one_line_error(ee)


def test_images_beyond_the_memories(tmp_path: Path) -> None:
    fw = load_firmware(write_hex(tmp_path / "big.hex", RJMP_VECTORS + bytes(1100)))
    assert one_line_error(fw) == "big.hex: needs 1120 bytes of flash; the attiny13a has 1024"
    ee = Firmware(path=None, flash=RJMP_VECTORS, eeprom=bytes(100))
    assert one_line_error(ee) == "the firmware: needs 100 bytes of EEPROM; the attiny13a has 64"


def test_hex_with_a_jmp_vector_table_is_for_a_larger_device(tmp_path: Path) -> None:
    fw = load_firmware(write_hex(tmp_path / "m328p.hex", JMP_VECTORS * 4), mcu="attiny13a")
    assert len(fw.flash) < 1024  # small enough for the tiny13: only the vectors tell
    assert one_line_error(fw) == (
        "m328p.hex: a JMP at 0x0000 in its vector table (4 bytes per vector):"
        " built for an AVR with more than 8 KB of flash, not attiny13a (1024 B)"
    )
    big = load_firmware(tmp_path / "m328p.hex")
    check_fits(big, "atmega328p", **M328P)  # a 32 KB device has 4-byte vectors


def test_vector_check_looks_at_reset_and_first_interrupt_only(tmp_path: Path) -> None:
    rjmp = struct.pack("<H", 0xC000 + 9)
    call = struct.pack("<2H", 0x940E, 0x0034)
    # a hand-written 328P program starting with rjmp: the first interrupt vector's CALL
    fw = Firmware(path=Path("hand.hex"), flash=rjmp + b"\0\0" + call + bytes(20))
    assert "a CALL at 0x0004" in one_line_error(fw)
    # JMP-like words anywhere else are code or data of a tiny program, not vectors
    for at in (2, 6, 8, 40):
        flash = bytearray(RJMP_VECTORS + bytes(40))
        flash[at : at + 2] = struct.pack("<H", 0x940D)
        check_fits(Firmware(path=None, flash=bytes(flash)), "attiny13a", **T13A)
    check_fits(Firmware(path=None, flash=b"\x0c"), "attiny13a", **T13A)  # too short to tell
    check_fits(Firmware(path=None, flash=b""), "attiny13a", **T13A)


def test_own_mcu_passes(tmp_path: Path) -> None:
    note = avr_note("attiny13a", 1024, 0x60, 64, 64)
    data = elf_bytes(RJMP_VECTORS, bss=60, eeprom=bytes(64), note=note)
    fw = load_firmware(write(tmp_path / "die.elf", data), mcu="attiny13a")
    check_fits(fw, "attiny13a", **T13A)


def test_load_firmware_refuses_what_the_elf_names(m328p_elf: Path) -> None:
    with pytest.raises(FirmwareError, match=r"built for atmega328p \(its device-info note\)"):
        load_firmware(m328p_elf, mcu="attiny13a")
    no_note = m328p_elf.with_name("bare.elf")
    write(no_note, elf_bytes(JMP_VECTORS, e_flags=5))
    with pytest.raises(FirmwareError, match="avr5 architecture"):
        load_firmware(no_note, mcu="attiny13a")
    assert load_firmware(no_note, mcu="atmega328p").mcu == "atmega328p"


def test_default_clock_fills_in_only_what_the_file_does_not_say(
    tmp_path: Path, m328p_elf: Path
) -> None:
    hex_path = write_hex(tmp_path / "a.hex", RJMP_VECTORS + bytes(20))
    assert load_firmware(hex_path, default_f_cpu=1_200_000).f_cpu == 1_200_000
    assert load_firmware(hex_path, f_cpu=9_600_000, default_f_cpu=1_200_000).f_cpu == 9_600_000
    assert load_firmware(m328p_elf).f_cpu is None  # this ELF names no clock either
    assert load_firmware(m328p_elf, default_f_cpu=8_000_000).f_cpu == 8_000_000
