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

__all__ = ["register_map"]

_INCLUDE_DIRS = ("/usr/lib/avr/include/avr", "/usr/avr/include/avr")
_DEFINE = re.compile(r"^#\s*define\s+(\w+)\s+_SFR_(IO|MEM)(8|16)\s*\(\s*(0x[0-9A-Fa-f]+|\d+)\s*\)")
_SELECT = re.compile(r"defined\s*\(\s*__AVR_(\w+)__\s*\)")
_INCLUDE = re.compile(r"#\s*include\s*<avr/(\w+\.h)>")


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
def register_map(mcu: str) -> dict[str, int]:
    """Register name -> data-space address for ``mcu`` (e.g. ``"attiny13a"``)."""
    inc = _include_dir()
    header = _header_for(mcu, (inc / "io.h").read_text(errors="replace"))
    if header is None and mcu.lower().endswith("a"):
        header = _header_for(mcu[:-1], (inc / "io.h").read_text(errors="replace"))
    if header is None:
        raise FirmwareError(f"avr-libc does not describe the MCU {mcu!r}")
    regs: dict[str, int] = {}
    # common.h first, where the classic (non-XMEGA) definitions come last and
    # win; then the device header, which wins over common.h
    for name in ("common.h", header):
        path = inc / name
        if not path.is_file():
            continue
        for line in path.read_text(errors="replace").splitlines():
            m = _DEFINE.match(line.strip())
            if m:
                regs[m.group(1)] = int(m.group(4), 0) + (0x20 if m.group(2) == "IO" else 0)
    return regs
