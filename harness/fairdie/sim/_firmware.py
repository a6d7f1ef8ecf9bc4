"""Reading firmware images: ELF (with symbols and simavr's .mmcu section) and Intel HEX.

An ELF names its MCU in simavr's ``.mmcu`` section (with its clock and
supply) when its source says ``AVR_MCU(...)``; a plain avr-gcc ELF names it
only in avr-libc's ``.note.gnu.avr.deviceinfo``, and says nothing of its
clock: :attr:`Firmware.f_cpu` is then None and the board or ``--f-cpu`` must
give it (:meth:`Firmware.require_f_cpu` says so in one line). Those sections
and notes are read in :mod:`fairdie.sim._elfinfo`.

Pure Python (pyelftools), so the CLI can reject a bad file before any
simulator exists. Every problem is a one-line :class:`FirmwareError`.
:func:`check_fits` refuses an image built for another MCU before it runs: a
program for a larger chip makes simavr write outside its memory.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from fairdie._files import check_input
from fairdie.errors import FirmwareError
from fairdie.sim._elfinfo import (
    EM_AVR,
    MCU_NAME,
    STB_GLOBAL,
    STT_FUNC,
    STT_NOTYPE,
    STT_OBJECT,
    DeviceInfo,
    elf_arch,
    elf_chip,
    elf_symbols,
)
from fairdie.sim._fuses import Fuses, fuses

__all__ = [
    "DeviceInfo",
    "Firmware",
    "Symbol",
    "check_fits",
    "load_firmware",
    "mcu_matches",
    "read_ihex",
]

_DATA_BASE = 0x800000  # avr-gcc puts data space here in the ELF
_EEPROM_BASE = 0x810000
_EEPROM_END = 0x820000  # fuses, lock bits, signature and simavr's .mmcu lie above
# avr-libc's lib folder: <arch>[/<multilib>]/crt<mcu>.o (FAIRDIE_AVR_LIBC overrides)
_AVR_LIBC_DIRS = ("/usr/lib/avr/lib", "/usr/avr/lib", "/usr/local/avr/lib")
_SMALL_FLASH = 8192  # up to 8 KB, RJMP reaches all of flash: one word per vector
_JMP_CALL_MASK, _JMP, _CALL = 0xFE0E, 0x940C, 0x940E
_MAX_FLASH_ADDRESS = 0x400000  # 4 MB: beyond any AVR's flash
_MAX_EEPROM_ADDRESS = 0x10000  # 64 KB: beyond any AVR's EEPROM
_MAX_HEX_BYTES = 64 << 20  # a HEX of a 4 MB image is about 11 MB of text
_MAX_FILE_BYTES = _MAX_HEX_BYTES  # an ELF of a 4 MB image, with its debug information
# Intel HEX record types: data, end of file, extended segment address, start
# segment address, extended linear address, start linear address; and the
# data length each but the data record must have
_HEX_LENGTHS = {1: 0, 2: 2, 3: 4, 4: 2, 5: 4}


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
    #: from simavr's .mmcu section, else the device-info note (None: a HEX, or neither)
    mcu: str | None = None
    f_cpu: int | None = None  #: Hz, from simavr's .mmcu section (None: the file does not say)
    vcc_mv: int | None = None
    symbols: Mapping[str, Symbol] = field(default_factory=dict)
    arch: int | None = None  #: the ELF's AVR architecture (e_flags & 0x7F: 25 is avr25)
    device: DeviceInfo | None = None  #: the ELF's avr-libc device-info note
    sections: Mapping[str, int] = field(default_factory=dict)  #: ELF section sizes (bytes)
    #: the file the EEPROM image came from when it is not ``path`` (a HEX's .eep)
    eeprom_path: Path | None = None
    #: ``mcu`` is the device-info note's (the ELF has no simavr .mmcu section)
    mcu_from_note: bool = False
    #: the ELF's ``.fuse`` section (avr-libc's ``FUSES``; None: it declares none)
    fuse_bytes: bytes | None = None

    @property
    def digest(self) -> str:
        """Content hash of what the chip will run (flash and initial EEPROM)."""
        h = hashlib.sha256(self.flash)
        h.update(b"\0eeprom\0" + (self.eeprom or b""))
        return h.hexdigest()[:16]

    def require_f_cpu(self, f_cpu: int | None = None) -> int:
        """The clock to run at: ``f_cpu`` if given, else the file's own; a
        one-line FirmwareError naming what to give when neither says."""
        f = f_cpu or self.f_cpu
        if f:
            return f
        where = self.path.name if self.path else "the firmware"
        kind = "no simavr .mmcu section" if self.sections else "a HEX file"  # an ELF has sections
        raise FirmwareError(
            f"{where} does not say its clock ({kind}): give --f-cpu, or a board file"
            " whose f_cpu is the chip's clock"
        )

    def fuses(self, mcu: str | None = None) -> Fuses | None:
        """The fuses it declares, else the factory values of ``mcu`` (default:
        its own); None when the MCU is unknown or not in the fuse tables."""
        chip = mcu or self.mcu
        if chip is None:
            return None
        try:
            return fuses(chip, self.fuse_bytes)
        except FirmwareError as e:
            where = self.path.name if self.path else "the firmware"
            raise FirmwareError(f"{where}: {e}") from None

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
    default_f_cpu: int | None = None,
) -> Firmware:
    """Load an ELF, or an Intel HEX with an optional .eep beside it.

    ``mcu`` and ``f_cpu`` fill in what the file does not say; when an ELF names
    another MCU or clock, that is an error (a build for another chip or fuses).
    ``default_f_cpu`` is the clock when neither ``f_cpu`` nor the file gives one
    (a HEX on a board: the board's clock).
    """
    p = Path(path)
    head = _head(p, "firmware", "an ELF or Intel HEX")
    if head == b"\x7fELF":
        if eep is not None:
            raise FirmwareError(
                f"{p}: an ELF carries its own EEPROM section; --eep is for HEX files"
            )
        fw = _load_elf(p.resolve(), p.stat().st_mtime_ns)
    elif head[:1] == b":":
        flash = _to_image(read_ihex(p), p, "flash", _MAX_FLASH_ADDRESS)
        if not flash:
            raise FirmwareError(f"{p}: an Intel HEX with no data: no code to load")
        eeprom = ep = None
        if eep is not None:
            ep = Path(eep)
            if _head(ep, "EEPROM", "an Intel HEX")[:1] != b":":
                raise FirmwareError(
                    f"{ep}: not an Intel HEX file (--eep takes the .eep that avr-objcopy writes)"
                )
            eeprom = _to_image(read_ihex(ep), ep, "EEPROM", _MAX_EEPROM_ADDRESS) or None
        fw = Firmware(path=p, flash=flash, eeprom=eeprom, eeprom_path=ep)
    else:
        raise FirmwareError(f"{p}: neither an ELF nor an Intel HEX file")
    # simavr's .mmcu name first; a name from the device-info note is checked next
    if mcu is not None and fw.mcu and not fw.mcu_from_note and not mcu_matches(mcu, fw.mcu):
        raise FirmwareError(f"{p}: built for {fw.mcu}, not {mcu}")
    if mcu is not None:
        _check_built_for(fw, mcu, str(p))
    if f_cpu is not None and fw.f_cpu is not None and f_cpu != fw.f_cpu:
        raise FirmwareError(f"{p}: built for {fw.f_cpu} Hz, not {f_cpu} Hz")
    return dataclasses.replace(
        fw,
        mcu=fw.mcu or (mcu.lower() if mcu else None),
        f_cpu=f_cpu if f_cpu is not None else (fw.f_cpu or default_f_cpu),
    )


def _head(p: Path, what: str, kinds: str) -> bytes:
    """The first bytes of a firmware or EEPROM file; a one-line error when it
    is missing, not a file, unreadable or empty."""
    check_input(p, f"{what} file", FirmwareError, limit=_MAX_FILE_BYTES)
    try:
        with p.open("rb") as f:
            head = f.read(4)
    except OSError as e:
        raise FirmwareError(f"{p}: cannot read: {e.strerror or e}") from None
    if not head:
        raise FirmwareError(f"{p}: empty file, not {kinds}")
    return head


def check_fits(
    fw: Firmware, mcu: str, *, flash_size: int, sram_size: int, eeprom_size: int
) -> None:
    """Refuse ``fw`` unless it was built for ``mcu`` and fits its memories (bytes).

    In order: the MCU named by the ELF's device-info note (avr-libc's), its
    architecture against the one avr-libc builds ``mcu`` for (skipped when
    avr-libc does not know ``mcu``), a 4-byte vector table on a device of at
    most 8 KB (how a HEX built for a larger chip shows), then the ELF's section
    sizes and the image's extent. Raises a one-line FirmwareError. (``fw.mcu``
    is not looked at: for a HEX it is what the caller asked, not what the file
    says; simavr's .mmcu name is checked by load_firmware and Chip.)
    """
    where = fw.path.name if fw.path else "the firmware"
    mcu = mcu.lower()
    _check_built_for(fw, mcu, where)
    if flash_size <= _SMALL_FLASH:
        _check_vectors(fw.flash, mcu, flash_size, where)
    get = fw.sections.get
    for what, used, size in (
        ("flash (.text+.data)", get(".text", 0) + get(".data", 0), flash_size),
        (
            "SRAM (.data+.bss+.noinit)",
            get(".data", 0) + get(".bss", 0) + get(".noinit", 0),
            sram_size,
        ),
        ("EEPROM (.eeprom)", get(".eeprom", 0), eeprom_size),
        ("flash", len(fw.flash), flash_size),
    ):
        if used > size:
            raise FirmwareError(f"{where}: needs {used} bytes of {what}; the {mcu} has {size}")
    used = len(fw.eeprom or b"")
    if used > eeprom_size:
        if fw.eeprom_path is None:
            raise FirmwareError(
                f"{where}: needs {used} bytes of EEPROM; the {mcu} has {eeprom_size}"
            )
        raise FirmwareError(
            f"{fw.eeprom_path.name}: needs {used} bytes of EEPROM (data up to address"
            f" 0x{used - 1:X}); the {mcu} has {eeprom_size} (0x0..0x{eeprom_size - 1:X})"
        )


def _check_built_for(fw: Firmware, mcu: str, where: str) -> None:
    """The MCU an ELF's device-info note names and its architecture, against ``mcu``."""
    if fw.device is not None and not mcu_matches(mcu, fw.device.name):
        raise FirmwareError(
            f"{where}: built for {fw.device.name} (its device-info note), not {mcu}"
        )
    if fw.arch is not None:
        want = _libc_arch(mcu)
        if want is not None and want != fw.arch:
            raise FirmwareError(
                f"{where}: built for the {_arch_name(fw.arch)} architecture (ELF flags); "
                f"{mcu} is {_arch_name(want)}"
            )


def _check_vectors(flash: bytes, mcu: str, flash_size: int, where: str) -> None:
    """A device of at most 8 KB has one-word vectors (RJMP); a JMP/CALL there means two.

    Only words 0 and 2 are looked at, never the rest of the image (its data
    could look like a JMP): in a two-word table they are the reset vector's and
    the first interrupt vector's JMP (word 0 may be an RJMP in hand-written
    code, word 2 then tells); in a one-word table both are vector slots (the
    smallest table has four), and most of these small cores have no JMP/CALL.
    """
    for word in (0, 2):
        if len(flash) < 2 * word + 2:
            break
        op = flash[2 * word] | flash[2 * word + 1] << 8
        if (op & _JMP_CALL_MASK) in (_JMP, _CALL):
            kind = "JMP" if (op & _JMP_CALL_MASK) == _JMP else "CALL"
            raise FirmwareError(
                f"{where}: a {kind} at 0x{2 * word:04X} in its vector table (4 bytes per vector):"
                f" built for an AVR with more than 8 KB of flash, not {mcu} ({flash_size} B)"
            )


def _arch_name(arch: int) -> str:
    if arch == 100:
        return "avrtiny"
    return f"avrxmega{arch - 100}" if arch > 100 else f"avr{arch}"


def _libc_arch(mcu: str) -> int | None:
    """The architecture avr-libc builds ``mcu`` for (from its crt<mcu>.o), or None."""
    return _crt_arch(mcu.lower(), os.environ.get("FAIRDIE_AVR_LIBC"), shutil.which("avr-gcc"))


@lru_cache(maxsize=64)
def _crt_arch(mcu: str, override: str | None, gcc: str | None) -> int | None:
    if not MCU_NAME.match(mcu):
        return None
    if override:
        roots = [Path(override)]
    else:
        roots = [Path(d) for d in _AVR_LIBC_DIRS]
        if gcc:  # a toolchain unpacked anywhere: <prefix>/bin/avr-gcc, <prefix>/avr/lib
            roots.append(Path(gcc).resolve().parent.parent / "avr" / "lib")
    name = f"crt{mcu}.o"
    for root in dict.fromkeys(roots):
        for pattern in (name, f"*/{name}", f"*/*/{name}"):
            for crt in sorted(root.glob(pattern)):
                try:
                    with crt.open("rb") as f:
                        arch = elf_arch(f.read(52))
                except OSError:
                    continue
                if arch is not None:
                    return arch
    return None


def read_ihex(path: Path) -> dict[int, int]:
    """Parse an Intel HEX file into {address: byte}.

    Checks every checksum, each record's length, the data length of each
    record type but data, and that no two records give one address
    different bytes.
    """
    mem: dict[int, int] = {}
    base = 0
    ended = False
    try:
        if path.stat().st_size > _MAX_HEX_BYTES:
            raise FirmwareError(f"{path}: {path.stat().st_size} bytes is too large for an AVR HEX")
        lines = path.read_text(encoding="ascii").splitlines()
    except UnicodeDecodeError:
        raise FirmwareError(f"{path}: not an Intel HEX file (binary content)") from None
    except OSError as e:
        raise FirmwareError(f"{path}: cannot read: {e.strerror or e}") from None
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
        if kind in _HEX_LENGTHS and count != _HEX_LENGTHS[kind]:
            raise FirmwareError(
                f"{path}:{n}: a type {kind:02X} record has {_HEX_LENGTHS[kind]} data bytes,"
                f" not {count}"
            )
        if kind == 0:
            for i, b in enumerate(data):
                if mem.setdefault(base + addr + i, b) != b:
                    raise FirmwareError(
                        f"{path}:{n}: address 0x{base + addr + i:X} was already given"
                        f" another byte (overlapping records)"
                    )
        elif kind == 1:
            ended = True
        elif kind == 2:
            base = int.from_bytes(data, "big") << 4
        elif kind == 4:
            base = int.from_bytes(data, "big") << 16
        elif kind in (3, 5):
            pass  # start address: meaningless for an AVR image
        else:
            raise FirmwareError(
                f"{path}:{n}: unknown record type {kind:02X} (an AVR image has 00..05)"
            )
    if not ended:
        raise FirmwareError(f"{path}: no end-of-file record (truncated?)")
    return mem


def _to_image(mem: Mapping[int, int], path: Path, what: str, limit: int) -> bytes:
    if not mem:
        return b""
    top = max(mem) + 1
    if top > limit:
        raise FirmwareError(f"{path}: {what} address 0x{top - 1:X} is beyond any AVR's {what}")
    img = bytearray(b"\xff" * top)
    for a, b in mem.items():
        img[a] = b
    return bytes(img)


@lru_cache(maxsize=64)
def _load_elf(path: Path, mtime_ns: int) -> Firmware:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        with path.open("rb") as f:
            elf = ELFFile(f)
            if elf["e_machine"] not in ("EM_AVR", EM_AVR):
                raise FirmwareError(f"{path}: an ELF for {elf['e_machine']}, not for an AVR")
            flash: dict[int, bytes] = {}
            eeprom: dict[int, bytes] = {}
            for seg in elf.iter_segments():
                if seg["p_type"] != "PT_LOAD" or seg["p_filesz"] == 0:
                    continue
                lma, data = seg["p_paddr"], seg.data()
                if len(data) != seg["p_filesz"]:
                    raise FirmwareError(
                        f"{path}: truncated ELF (a segment of {seg['p_filesz']} bytes"
                        f" has {len(data)} in the file)"
                    )
                if _EEPROM_BASE <= lma < _EEPROM_END:
                    eeprom[lma - _EEPROM_BASE] = data
                elif lma < _DATA_BASE:
                    flash[lma] = data
            chip = elf_chip(elf, path)
            fuse = elf.get_section_by_name(".fuse")
            fuse_bytes = bytes(fuse.data()) if fuse is not None and fuse["sh_size"] else None
            symbols: dict[str, Symbol] = {}
            for s in elf_symbols(elf):
                if not s.name or s.type not in (STT_OBJECT, STT_FUNC, STT_NOTYPE):
                    continue
                if s.type == STT_NOTYPE and s.bind != STB_GLOBAL:
                    continue
                v = s.value
                if v >= _EEPROM_END:
                    continue
                if v >= _EEPROM_BASE:
                    sym = Symbol(s.name, v - _EEPROM_BASE, s.size, "eeprom")
                elif v >= _DATA_BASE:
                    sym = Symbol(s.name, v - _DATA_BASE, s.size, "data")
                else:
                    sym = Symbol(s.name, v, s.size, "code")
                symbols.setdefault(s.name, sym)
    except (ELFError, struct.error, ValueError) as e:
        raise FirmwareError(f"{path}: malformed ELF, truncated or damaged ({e})") from None
    except OSError as e:
        raise FirmwareError(f"{path}: cannot read: {e.strerror or e}") from None
    if not flash:
        raise FirmwareError(f"{path}: the ELF has no code to load")
    return Firmware(
        path=path,
        flash=_join(flash),
        eeprom=_join(eeprom) or None,
        mcu=chip.mcu,
        f_cpu=chip.f_cpu,
        vcc_mv=chip.vcc_mv,
        symbols=symbols,
        arch=chip.arch,
        device=chip.device,
        sections=chip.sections,
        mcu_from_note=chip.mcu_from_note,
        fuse_bytes=fuse_bytes,
    )


def _join(chunks: Mapping[int, bytes]) -> bytes:
    if not chunks:
        return b""
    img = bytearray(b"\xff" * max(a + len(d) for a, d in chunks.items()))
    for a, d in chunks.items():
        img[a : a + len(d)] = d
    return bytes(img)
