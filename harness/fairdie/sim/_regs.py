"""I/O register names for any MCU avr-libc describes.

The names and addresses come from avr-libc's own device headers (installed by
``make setup`` with the avr-libc package), so there is no table of ours to
drift: ``register_map("attiny13a")["PORTB"] == 0x38`` (data-space address).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from fairdie.errors import FirmwareError

__all__ = ["bit_location", "register_map"]

_INCLUDE_DIRS = ("/usr/lib/avr/include/avr", "/usr/avr/include/avr")
_DEFINE = re.compile(
    r"^#\s*define\s+(\w+)\s+_SFR_(IO|MEM)(8|16)\s*\(\s*(0[xX][0-9A-Fa-f]+|\d+)\s*\)"
)
_SELECT = re.compile(r"defined\s*\(\s*__AVR_(\w+)__\s*\)")
_INCLUDE = re.compile(r"#\s*include\s*<avr/(\w+\.h)>")
_BIT = re.compile(r"^#\s*define\s+(\w+)\s+([0-7])\s*(?:/[*/].*)?$")


def _include_dir() -> Path:
    env = os.environ.get("FAIRDIE_AVR_INCLUDE")
    for d in ([env] if env else []) + list(_INCLUDE_DIRS):
        if Path(d, "io.h").is_file():
            return Path(d)
    raise FirmwareError("avr-libc headers not found: install avr-libc (or run `make setup`)")


def _header_for(mcu: str, io_h: str) -> str | None:
    """Follow avr/io.h's chain of ``#elif defined (__AVR_X__)`` to the device header."""
    want = mcu.lower()
    pending = False
    for line in io_h.splitlines():
        m = _SELECT.search(line)
        if m and line.lstrip().startswith(("#if", "#elif")):
            pending = m.group(1).lower() == want
            continue
        if pending:
            inc = _INCLUDE.search(line)
            if inc:
                return inc.group(1)
    return None


@lru_cache(maxsize=16)
def _parse(
    mcu: str,
) -> tuple[dict[str, int], dict[str, tuple[int, int]], dict[str, tuple[str, int]]]:
    inc = _include_dir()
    header = _header_for(mcu, (inc / "io.h").read_text(errors="replace"))
    if header is None and mcu.lower().endswith("a"):
        header = _header_for(mcu[:-1], (inc / "io.h").read_text(errors="replace"))
    if header is None:
        raise FirmwareError(f"avr-libc does not describe the MCU {mcu!r}")
    regs: dict[str, int] = {}
    bits: dict[str, tuple[str, int]] = {}
    # common.h first, where the classic (non-XMEGA) definitions come last and
    # win; then the device header, which wins over common.h. A bit's define
    # follows its register's in the device header.
    for name in ("common.h", header):
        path = inc / name
        if not path.is_file():
            continue
        current: str | None = None
        for line in path.read_text(errors="replace").splitlines():
            text = line.strip()
            m = _DEFINE.match(text)
            if m:
                current = m.group(1)
                regs[current] = int(m.group(4), 0) + (0x20 if m.group(2) == "IO" else 0)
                continue
            b = _BIT.match(text)
            if b and current is not None and name == header:
                bits.setdefault(b.group(1), (current, int(b.group(2))))
    return regs, {n: (regs[r], bit) for n, (r, bit) in bits.items() if r in regs}, bits


def register_map(mcu: str) -> dict[str, int]:
    """Register name -> data-space address for ``mcu`` (e.g. ``"attiny13a"``)."""
    return _parse(mcu)[0]


def bit_location(mcu: str, name: str, registers: tuple[str, ...]) -> tuple[int, int] | None:
    """A bit by its datasheet name, as (register address, bit), when the device
    header lists it right after one of ``registers``; else None. (Headers
    mostly list a register's bits after it, but some list every register
    first: the caller names where the bit may live, so a guess is never made.)"""
    found = _parse(mcu)[2].get(name)
    if found is None or found[0] not in registers:
        return None
    return register_map(mcu)[found[0]], found[1]
