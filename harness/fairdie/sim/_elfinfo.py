"""What an ELF says of the chip it was built for: simavr's ``.mmcu`` section
(MCU, clock, supply), avr-libc's ``.note.gnu.avr.deviceinfo`` (the device
and its memories), its AVR architecture and the sizes of its loaded
sections. :mod:`fairdie.sim._firmware` reads the image; this reads these,
and the symbol table (for the firmware's symbols and coverage's code map).

Every problem is a one-line :class:`~fairdie.errors.FirmwareError`.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from fairdie.errors import FirmwareError

__all__ = [
    "DEVICEINFO",
    "EF_AVR_MACH",
    "EM_AVR",
    "MCU_NAME",
    "DeviceInfo",
    "ElfChip",
    "ElfSymbol",
    "elf_arch",
    "elf_chip",
    "elf_symbols",
    "parse_deviceinfo",
    "parse_mmcu",
]

#: e_machine of an AVR ELF
EM_AVR = 83
_MMCU_TAG_NAME = 1
_MMCU_TAG_FREQUENCY = 2
_MMCU_TAG_VCC = 3
_SHF_ALLOC = 0x2
#: e_flags: the architecture; 0x80 is "link-relax prepared"
EF_AVR_MACH = 0x7F
#: the name of avr-libc's device-info note section
DEVICEINFO = ".note.gnu.avr.deviceinfo"
#: what an MCU name looks like (as avr-gcc's -mmcu takes it)
MCU_NAME = re.compile(r"[a-z0-9_]+\Z")
#: symbol types (st_info & 0xF) and bindings (st_info >> 4), and section indices
STT_NOTYPE, STT_OBJECT, STT_FUNC = 0, 1, 2
STB_LOCAL, STB_GLOBAL = 0, 1
SHN_UNDEF, SHN_ABS = 0, 0xFFF1


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """avr-libc's ``.note.gnu.avr.deviceinfo``: the device an ELF was linked for (bytes)."""

    name: str
    flash_start: int
    flash_size: int
    sram_start: int
    sram_size: int
    eeprom_start: int
    eeprom_size: int


@dataclass(frozen=True, slots=True)
class ElfChip:
    """What an ELF names of its chip (None where it says nothing)."""

    mcu: str | None  #: simavr's .mmcu name, else the device-info note's
    f_cpu: int | None  #: Hz, from the .mmcu section only
    vcc_mv: int | None
    arch: int | None  #: e_flags & 0x7F (25 is avr25)
    device: DeviceInfo | None
    sections: dict[str, int]  #: the loaded sections' sizes (bytes)
    mcu_from_note: bool  #: ``mcu`` is the note's (no .mmcu section)


def elf_chip(elf: Any, path: Path) -> ElfChip:
    """What the open ``elf`` (a pyelftools ELFFile of ``path``) names of its chip."""
    from elftools.elf.sections import NoteSection

    device = None
    note = elf.get_section_by_name(DEVICEINFO)
    if isinstance(note, NoteSection):
        for n in note.iter_notes():
            if n["n_name"] == "AVR":
                device = parse_deviceinfo(bytes(n["n_descdata"]), path)
    mcu = f_cpu = vcc = None
    mmcu = elf.get_section_by_name(".mmcu")
    if mmcu is not None:
        mcu, f_cpu, vcc = parse_mmcu(mmcu.data())
    from_note = mcu is None and device is not None
    if from_note and device is not None:  # a plain avr-gcc ELF: no clock known
        mcu = device.name
    sections = {
        sec.name: sec["sh_size"]
        for sec in elf.iter_sections()
        if sec.name and sec["sh_flags"] & _SHF_ALLOC
    }
    arch = (elf["e_flags"] & EF_AVR_MACH) or None
    return ElfChip(mcu, f_cpu, vcc, arch, device, sections, from_note)


class ElfSymbol(NamedTuple):
    """One entry of ``.symtab`` (type, binding and section index as numbers)."""

    name: str
    value: int
    size: int
    type: int  #: STT_*
    bind: int  #: STB_*
    shndx: int  #: the section it is defined in, or SHN_UNDEF, SHN_ABS...


def elf_symbols(elf: Any) -> list[ElfSymbol]:
    """Every entry of the open ``elf``'s ``.symtab``, in order (none without
    one): read in bulk, as pyelftools reads them one at a time (its checks of
    the table, its names decoded alike)."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.sections import SymbolTableSection

    symtab = elf.get_section_by_name(".symtab")
    if not isinstance(symtab, SymbolTableSection):
        return []
    data, strings = symtab.data(), symtab.stringtable.data()
    step, n = symtab["sh_entsize"], symtab.num_symbols()
    order = "<" if elf.little_endian else ">"
    layout = "IBBHQQ" if elf.elfclass == 64 else "IIIBBH"
    entry = struct.Struct(order + layout)
    if n and len(data) < (n - 1) * step + entry.size:
        raise ELFError(f"the symbol table is truncated ({len(data)} of {n * step} bytes)")
    out = []
    for i in range(n):
        if elf.elfclass == 64:
            at, info, _, shndx, value, size = entry.unpack_from(data, i * step)
        else:
            at, value, size, info, _, shndx = entry.unpack_from(data, i * step)
        end = strings.find(b"\0", at)
        raw = strings[at : end if end >= 0 else len(strings)]
        name = raw.decode("utf-8", errors="replace")
        out.append(ElfSymbol(name, value, size, info & 0xF, info >> 4, shndx))
    return out


def elf_arch(header: bytes) -> int | None:
    """EF_AVR_MACH of a 32-bit little-endian AVR ELF header, None if it is none."""
    if len(header) < 40 or header[:6] != b"\x7fELF\x01\x01":
        return None
    if struct.unpack_from("<H", header, 18)[0] != EM_AVR:
        return None
    return (struct.unpack_from("<I", header, 36)[0] & EF_AVR_MACH) or None


def parse_deviceinfo(desc: bytes, path: Path) -> DeviceInfo:
    """The note's descriptor: six u32 (flash, SRAM, EEPROM start and size), then strings.

    After the six comes the length of an offset table, the offsets, and a
    string table (an empty string, then the device name). avr-libc 2.0 writes
    one offset (the name's) but gives the table's length as 8, so the string
    table starts right after that one offset, at byte 32.
    """
    if len(desc) < 33:
        raise FirmwareError(f"{path}: malformed {DEVICEINFO} ({len(desc)} bytes)")
    fs, fz, ss, sz, es, ez, _table_len, name_at = struct.unpack_from("<8I", desc)
    strings = desc[32:]
    raw = strings[name_at:].split(b"\0", 1)[0] if name_at < len(strings) else b""
    name = raw.decode("ascii", "replace").lower()
    if not MCU_NAME.match(name):
        raise FirmwareError(f"{path}: malformed {DEVICEINFO} (device name {raw!r})")
    return DeviceInfo(name, fs, fz, ss, sz, es, ez)


def parse_mmcu(blob: bytes) -> tuple[str | None, int | None, int | None]:
    """simavr's .mmcu section: records of (tag u8, length u8, payload)."""
    mcu = f_cpu = vcc = None
    i = 0
    while i + 2 <= len(blob):
        tag, n = blob[i], blob[i + 1]
        payload = blob[i + 2 : i + 2 + n]
        i += 2 + n
        if tag == _MMCU_TAG_NAME:
            mcu = payload.split(b"\0", 1)[0].decode("ascii", "replace").lower() or None
        elif tag == _MMCU_TAG_FREQUENCY and n >= 4:
            f_cpu = int.from_bytes(payload[:4], "little") or None
        elif tag == _MMCU_TAG_VCC and n >= 4:
            vcc = int.from_bytes(payload[:4], "little") or None
    return mcu, f_cpu, vcc
