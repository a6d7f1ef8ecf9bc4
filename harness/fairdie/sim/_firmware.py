"""Reading firmware images: ELF (with symbols and simavr's .mmcu section) and Intel HEX.

Pure Python (pyelftools), so the CLI can reject a bad file before any
simulator exists. Every problem is a one-line :class:`FirmwareError`.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from fairdie.errors import FirmwareError

__all__ = ["Firmware", "Symbol", "load_firmware", "mcu_matches", "read_ihex"]

_EM_AVR = 83
_DATA_BASE = 0x800000  # avr-gcc puts data space here in the ELF
_EEPROM_BASE = 0x810000
_EEPROM_END = 0x820000  # fuses, lock bits, signature and simavr's .mmcu lie above
_MMCU_TAG_NAME = 1
_MMCU_TAG_FREQUENCY = 2
_MMCU_TAG_VCC = 3


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    address: int  #: data-space address for variables, byte address for code
    size: int
    kind: str  #: "data", "code" or "eeprom"


@dataclass(frozen=True)
class Firmware:
    """A firmware image ready to load: flash bytes from address 0, optional EEPROM."""

    path: Path | None
    flash: bytes
    eeprom: bytes | None = None
    mcu: str | None = None
    f_cpu: int | None = None
    vcc_mv: int | None = None
    symbols: Mapping[str, Symbol] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        """Content hash of what the chip will run (flash and initial EEPROM)."""
        h = hashlib.sha256(self.flash)
        h.update(b"\0eeprom\0" + (self.eeprom or b""))
        return h.hexdigest()[:16]

    def symbol(self, name: str) -> Symbol:
        try:
            return self.symbols[name]
        except KeyError:
            where = self.path.name if self.path else "the firmware"
            if not self.symbols:
                raise FirmwareError(
                    f"{where} has no symbols (a HEX file?): cannot find {name!r}"
                ) from None
            raise FirmwareError(f"{where} has no symbol {name!r}") from None


def mcu_matches(a: str, b: str) -> bool:
    """True when two MCU names denote the same simavr core (attiny13 ~ attiny13a)."""
    a, b = a.lower(), b.lower()
    return a == b or a.rstrip("a") == b.rstrip("a")


def load_firmware(
    path: str | Path,
    *,
    eep: str | Path | None = None,
    mcu: str | None = None,
    f_cpu: int | None = None,
) -> Firmware:
    """Load an ELF, or an Intel HEX with an optional .eep beside it.

    ``mcu`` and ``f_cpu`` fill in what the file does not say; when an ELF names
    another MCU or clock, that is an error (a build for another chip or fuses).
    """
    p = Path(path)
    if not p.is_file():
        raise FirmwareError(f"{p}: no such firmware file")
    head = p.read_bytes()[:4]
    if head == b"\x7fELF":
        if eep is not None:
            raise FirmwareError(
                f"{p}: an ELF carries its own EEPROM section; --eep is for HEX files"
            )
        fw = _load_elf(p.resolve(), p.stat().st_mtime_ns)
    elif head[:1] == b":":
        flash = _to_image(read_ihex(p), p, "flash")
        eeprom = None
        if eep is not None:
            ep = Path(eep)
            if not ep.is_file():
                raise FirmwareError(f"{ep}: no such EEPROM file")
            eeprom = _to_image(read_ihex(ep), ep, "EEPROM") or None
        fw = Firmware(path=p, flash=flash, eeprom=eeprom)
    else:
        raise FirmwareError(f"{p}: neither an ELF nor an Intel HEX file")
    if mcu is not None and fw.mcu is not None and not mcu_matches(mcu, fw.mcu):
        raise FirmwareError(f"{p}: built for {fw.mcu}, not {mcu}")
    if f_cpu is not None and fw.f_cpu is not None and f_cpu != fw.f_cpu:
        raise FirmwareError(f"{p}: built for {fw.f_cpu} Hz, not {f_cpu} Hz")
    return Firmware(
        path=fw.path,
        flash=fw.flash,
        eeprom=fw.eeprom,
        mcu=fw.mcu or (mcu.lower() if mcu else None),
        f_cpu=f_cpu if f_cpu is not None else fw.f_cpu,
        vcc_mv=fw.vcc_mv,
        symbols=fw.symbols,
    )


def read_ihex(path: Path) -> dict[int, int]:
    """Parse an Intel HEX file into {address: byte}; checks every checksum."""
    mem: dict[int, int] = {}
    base = 0
    ended = False
    try:
        lines = path.read_text(encoding="ascii").splitlines()
    except UnicodeDecodeError:
        raise FirmwareError(f"{path}: not an Intel HEX file (binary content)") from None
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if ended:
            raise FirmwareError(f"{path}:{n}: data after the end-of-file record")
        if not line.startswith(":") or len(line) < 11 or len(line) % 2 == 0:
            raise FirmwareError(f"{path}:{n}: malformed Intel HEX record")
        try:
            rec = bytes.fromhex(line[1:])
        except ValueError:
            raise FirmwareError(f"{path}:{n}: malformed Intel HEX record (not hex)") from None
        count, addr, kind = rec[0], (rec[1] << 8) | rec[2], rec[3]
        if len(rec) != count + 5:
            raise FirmwareError(f"{path}:{n}: record length does not match its byte count")
        if sum(rec) & 0xFF:
            raise FirmwareError(f"{path}:{n}: bad checksum")
        data = rec[4:-1]
        if kind == 0:
            for i, b in enumerate(data):
                mem[base + addr + i] = b
        elif kind == 1:
            ended = True
        elif kind == 2:
            base = int.from_bytes(data, "big") << 4
        elif kind == 4:
            base = int.from_bytes(data, "big") << 16
        elif kind in (3, 5):
            pass  # start address: meaningless for an AVR image
        else:
            raise FirmwareError(f"{path}:{n}: unknown record type {kind:02X}")
    if not ended:
        raise FirmwareError(f"{path}: no end-of-file record (truncated?)")
    return mem


def _to_image(mem: Mapping[int, int], path: Path, what: str) -> bytes:
    if not mem:
        return b""
    top = max(mem) + 1
    if top > 0x400000:
        raise FirmwareError(f"{path}: {what} address 0x{top - 1:X} is beyond any AVR")
    img = bytearray(b"\xff" * top)
    for a, b in mem.items():
        img[a] = b
    return bytes(img)


@lru_cache(maxsize=64)
def _load_elf(path: Path, mtime_ns: int) -> Firmware:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    try:
        with path.open("rb") as f:
            elf = ELFFile(f)
            if elf["e_machine"] not in ("EM_AVR", _EM_AVR):
                raise FirmwareError(f"{path}: an ELF for {elf['e_machine']}, not for an AVR")
            flash: dict[int, bytes] = {}
            eeprom: dict[int, bytes] = {}
            for seg in elf.iter_segments():
                if seg["p_type"] != "PT_LOAD" or seg["p_filesz"] == 0:
                    continue
                lma, data = seg["p_paddr"], seg.data()
                if _EEPROM_BASE <= lma < _EEPROM_END:
                    eeprom[lma - _EEPROM_BASE] = data
                elif lma < _DATA_BASE:
                    flash[lma] = data
            mcu = f_cpu = vcc = None
            mmcu = elf.get_section_by_name(".mmcu")
            if mmcu is not None:
                mcu, f_cpu, vcc = _parse_mmcu(mmcu.data())
            symbols: dict[str, Symbol] = {}
            symtab = elf.get_section_by_name(".symtab")
            if isinstance(symtab, SymbolTableSection):
                for s in symtab.iter_symbols():
                    t = s["st_info"]["type"]
                    if not s.name or t not in ("STT_OBJECT", "STT_FUNC", "STT_NOTYPE"):
                        continue
                    if t == "STT_NOTYPE" and s["st_info"]["bind"] != "STB_GLOBAL":
                        continue
                    v = s["st_value"]
                    if v >= _EEPROM_END:
                        continue
                    if v >= _EEPROM_BASE:
                        sym = Symbol(s.name, v - _EEPROM_BASE, s["st_size"], "eeprom")
                    elif v >= _DATA_BASE:
                        sym = Symbol(s.name, v - _DATA_BASE, s["st_size"], "data")
                    else:
                        sym = Symbol(s.name, v, s["st_size"], "code")
                    symbols.setdefault(s.name, sym)
    except (ELFError, struct.error, ValueError) as e:
        raise FirmwareError(f"{path}: malformed ELF ({e})") from None
    if not flash:
        raise FirmwareError(f"{path}: the ELF has no code to load")
    return Firmware(
        path=path,
        flash=_join(flash),
        eeprom=_join(eeprom) or None,
        mcu=mcu,
        f_cpu=f_cpu,
        vcc_mv=vcc,
        symbols=symbols,
    )


def _join(chunks: Mapping[int, bytes]) -> bytes:
    if not chunks:
        return b""
    img = bytearray(b"\xff" * max(a + len(d) for a, d in chunks.items()))
    for a, d in chunks.items():
        img[a : a + len(d)] = d
    return bytes(img)


def _parse_mmcu(blob: bytes) -> tuple[str | None, int | None, int | None]:
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
