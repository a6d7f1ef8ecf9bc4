"""I/O register names come from avr-libc's headers (needs the avr-libc package)."""

from __future__ import annotations

import shutil

import pytest

from fairdie.errors import FirmwareError
from fairdie.sim._regs import register_map

pytestmark = pytest.mark.skipif(
    shutil.which("avr-gcc") is None, reason="avr-libc is installed with gcc-avr by `make setup`"
)


def test_attiny13a_registers():
    regs = register_map("attiny13a")
    assert regs["PORTB"] == 0x38 and regs["DDRB"] == 0x37 and regs["PINB"] == 0x36
    assert regs["EECR"] == 0x3C and regs["MCUSR"] == 0x54 and regs["SREG"] == 0x5F


def test_attiny84a_registers():
    regs = register_map("attiny84a")
    assert regs["PORTA"] == 0x3B and regs["PORTB"] == 0x38


def test_unknown_mcu():
    with pytest.raises(FirmwareError, match="does not describe"):
        register_map("attiny9999")
