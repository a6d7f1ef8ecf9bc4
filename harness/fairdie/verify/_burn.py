"""The burn sheet: the exact bytes a verify run checked, and how to burn them.

It names the HEX (and the EEP, when there is EEPROM data) by SHA-256, the
MCU, the clock and the fuse bytes (the ELF's ``.fuse`` section, else those of
the build of the board's target the file is, else the MCU's factory values),
the fairdie version and the date (UTC), and an ``avrdude`` command line that
burns exactly those bytes and fuses with a programmer of the user's choice
(``-c``; usbasp by default).

An ELF is turned into its HEX and EEP as ``fairdie build`` makes them
(``avr-objcopy``: ``.text`` and ``.data`` to flash, ``.eeprom`` to the EEP).
The command names a file whose bytes are those: the HEX given, the HEX and
EEP beside the ELF when they are the same bytes (``fairdie build --out``
writes them so), the copies in the report folder, else the ELF itself in
avrdude's ELF format (``:e``), from which avrdude takes the same sections.
"""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie.errors import FairdieError

if TYPE_CHECKING:
    from fairdie.sim import Fuses
    from fairdie.verify._candidate import Candidate

__all__ = ["AVRDUDE_PARTS", "DEFAULT_PROGRAMMER", "BurnSheet", "avrdude_line", "burn_sheet"]

DEFAULT_PROGRAMMER = "usbasp"
#: avrdude's part ids (``-p``) of the MCUs the fuse tables know
AVRDUDE_PARTS = {
    "attiny13": "t13",
    "attiny13a": "t13",
    "attiny25": "t25",
    "attiny45": "t45",
    "attiny85": "t85",
    "attiny84": "t84",
    "attiny84a": "t84",
    "atmega328p": "m328p",
}
_FUSE_MEMORIES = ("lfuse", "hfuse", "efuse")  # avrdude's memory types, low byte first
_EMPTY_HEX = ":00000001FF\n"


@dataclass(frozen=True)
class BurnSheet:
    """What was checked, byte for byte, and the command that burns it."""

    mcu: str
    f_cpu: int
    hex_name: str  #: the HEX the command burns (a file name or path)
    hex_sha256: str
    flash_bytes: int
    eep_name: str | None  #: None: no EEPROM data
    eep_sha256: str | None
    eeprom_bytes: int
    fuses: Fuses | None
    fuse_source: str
    version: str
    date: str  #: ISO 8601, UTC
    programmer: str
    avrdude: str

    def as_json(self) -> dict[str, Any]:
        f = self.fuses
        return {
            "mcu": self.mcu,
            "f_cpu": self.f_cpu,
            "hex": self.hex_name,
            "hex_sha256": self.hex_sha256,
            "flash_bytes": self.flash_bytes,
            "eep": self.eep_name,
            "eep_sha256": self.eep_sha256,
            "eeprom_bytes": self.eeprom_bytes,
            "fuses": None if f is None else f.as_json(),
            "fuse_source": self.fuse_source,
            "fairdie": self.version,
            "date": self.date,
            "programmer": self.programmer,
            "avrdude": self.avrdude,
        }

    def lines(self) -> list[str]:
        """The human form, one fact a line."""
        fuses = self.fuses.burn if self.fuses is not None else "unknown"
        out = [
            f"burn sheet ({self.date}, fairdie {self.version}):",
            f"  mcu    {self.mcu} @ {self.f_cpu} Hz",
            f"  hex    {self.hex_name}: {self.flash_bytes} B, sha256 {self.hex_sha256}",
        ]
        if self.eep_name is not None:
            out.append(f"  eep    {self.eep_name}: {self.eeprom_bytes} B, sha256 {self.eep_sha256}")
        else:
            out.append("  eep    none (no EEPROM data)")
        out += [f"  fuses  {fuses}: {self.fuse_source}", f"  burn   {self.avrdude}"]
        return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _ihex_data(text: bytes) -> int:
    """The data bytes an Intel HEX holds (its records of type 00)."""
    n = 0
    for line in text.decode("ascii", "replace").splitlines():
        line = line.strip()
        if line.startswith(":") and len(line) >= 11 and line[7:9] == "00":
            n += int(line[1:3], 16)
    return n


def avrdude_line(
    mcu: str, programmer: str, hex_file: str, eep_file: str | None, fuses: Fuses | None
) -> str:
    """``avrdude -c PROGRAMMER -p PART -U flash:w:...`` for these files and fuses.

    A file ending in ``.elf`` is read in avrdude's ELF format (``:e``), else as
    Intel HEX (``:i``); fuses are written as immediate values (``:m``)."""
    part = AVRDUDE_PARTS.get(mcu.lower())
    if part is None:
        raise FairdieError(f"no avrdude part id known for the {mcu}")

    def fmt(name: str) -> str:
        return "e" if name.lower().endswith(".elf") else "i"

    argv = ["avrdude", "-c", programmer, "-p", part, "-U", f"flash:w:{hex_file}:{fmt(hex_file)}"]
    if eep_file is not None:
        argv += ["-U", f"eeprom:w:{eep_file}:{fmt(eep_file)}"]
    if fuses is not None:
        for name, value in zip(_FUSE_MEMORIES, fuses.values, strict=False):
            argv += ["-U", f"{name}:w:0x{value:02X}:m"]
    return shlex.join(argv)


def _objcopy(elf: Path, folder: Path) -> tuple[bytes, bytes]:
    """The HEX and EEP of ``elf``, as ``fairdie build`` makes them."""
    from fairdie.toolchain import hex_images

    hex_path, eep_path = folder / f"{elf.stem}.hex", folder / f"{elf.stem}.eep"
    hex_images(elf, hex_path, eep_path)
    return hex_path.read_bytes(), eep_path.read_bytes()


def _same(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.read_bytes() == data
    except OSError:
        return False


def burn_sheet(
    c: Candidate,
    *,
    programmer: str = DEFAULT_PROGRAMMER,
    work: Path,
    report: Path | None = None,
) -> BurnSheet:
    """The burn sheet of ``c``; ``work`` is a scratch folder; with ``report``
    the HEX and EEP of an ELF are copied there (those the command names)."""
    c.identify()  # a HEX that is a build of the board's target: that build's fuses
    fuses, source = c.setup.fuses()
    path = c.path
    try:
        head = path.read_bytes()[:4]
    except OSError as e:
        raise FairdieError(f"{path}: {e.strerror or e}") from None
    if head != b"\x7fELF":
        hex_data = path.read_bytes()
        eep_path = c.file.eeprom_path
        eep_data = eep_path.read_bytes() if eep_path is not None else None
        hex_name, eep_name = str(path), str(eep_path) if eep_path is not None else None
    else:
        hex_data, eep_raw = _objcopy(path, work)
        eep_data = eep_raw if _ihex_data(eep_raw) else None
        hex_name, eep_name = str(path), str(path) if eep_data is not None else None
        beside = path.with_suffix(".hex"), path.with_suffix(".eep")
        if (
            not c.built
            and _same(beside[0], hex_data)
            and (eep_data is None or _same(beside[1], eep_data))
        ):
            hex_name = str(beside[0])
            eep_name = str(beside[1]) if eep_data is not None else None
        elif report is not None:
            hex_name = _copy(report / beside[0].name, hex_data)
            eep_name = None if eep_data is None else _copy(report / beside[1].name, eep_data)
    if eep_data is not None and not _ihex_data(eep_data):
        eep_data = eep_name = None
    _check_same(c, hex_data, work)
    from fairdie import __version__

    return BurnSheet(
        mcu=c.board.mcu,
        f_cpu=c.f_cpu,
        hex_name=hex_name,
        hex_sha256=_sha(hex_data),
        flash_bytes=_ihex_data(hex_data),
        eep_name=eep_name,
        eep_sha256=None if eep_data is None else _sha(eep_data),
        eeprom_bytes=0 if eep_data is None else _ihex_data(eep_data),
        fuses=fuses,
        fuse_source=source,
        version=__version__,
        date=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        programmer=programmer,
        avrdude=avrdude_line(c.board.mcu, programmer, hex_name, eep_name, fuses),
    )


def _check_same(c: Candidate, hex_data: bytes, work: Path) -> None:
    """The HEX holds the flash verify checked (the file did not change meanwhile)."""
    from fairdie.sim import load_firmware

    probe = work / "burn-check.hex"
    probe.write_bytes(hex_data)
    if load_firmware(probe).flash != c.file.flash:
        raise FairdieError(f"{c.path}: changed while verify ran: verify it again")


def _copy(dst: Path, data: bytes) -> str:
    try:
        if dst.is_symlink():
            dst.unlink()
        dst.write_bytes(data)
    except OSError as e:
        raise FairdieError(f"--report {dst.parent}: {e.strerror or e}") from None
    return str(dst)
