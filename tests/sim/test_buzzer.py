"""A plain avr-gcc ELF (no simavr .mmcu section) names its MCU from its
device-info note; its 1 kHz buzzer of uneven duty cycle reads as one tone."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from fairdie.board import load_board
from fairdie.device import Device
from fairdie.errors import FirmwareError
from fairdie.sim import Chip, load_firmware
from fairdie.toolchain import firmware_dir

BOARD = firmware_dir() / "tests" / "buzzer" / "board.toml"


@pytest.fixture(scope="module")
def buzzer(build_test_firmware: Callable[..., Any]) -> Any:
    return build_test_firmware("buzzer")


def test_a_plain_elf_names_its_mcu_from_its_device_note(buzzer: Any) -> None:
    fw = load_firmware(buzzer.elf)
    assert fw.device is not None and fw.device.name == "attiny13a"
    assert (fw.mcu, fw.f_cpu) == ("attiny13a", None)  # the note says no clock
    assert fw.require_f_cpu(9_600_000) == 9_600_000
    with pytest.raises(FirmwareError) as e:
        fw.require_f_cpu()
    assert str(e.value) == (
        "buzzer.elf does not say its clock (no simavr .mmcu section): give --f-cpu,"
        " or a board file whose f_cpu is the chip's clock"
    )
    with pytest.raises(FirmwareError, match="does not name its clock"):
        Chip(fw)
    assert Chip(fw, f_cpu=9_600_000).mcu == "attiny13a"  # no MCU given: the note's
    with pytest.raises(FirmwareError, match=r"built for attiny13a \(its device-info note\)"):
        load_firmware(buzzer.elf, mcu="attiny85")
    # the board gives the clock
    fw = load_firmware(buzzer.elf, mcu="attiny13a", default_f_cpu=load_board(BOARD).f_cpu)
    assert fw.f_cpu == 9_600_000


def test_a_buzzer_of_uneven_duty_cycle_reads_1_khz(buzzer: Any) -> None:
    board = load_board(BOARD)
    fw = load_firmware(buzzer.elf, default_f_cpu=board.f_cpu)
    dev = Device(Chip(fw), board)
    dev.power_on()
    dev.chip.run(seconds=0.05)
    changes = [c.cycle for c in dev.chip.pin_changes("B")]
    halves = [b - a for a, b in itertools.pairwise(changes[2:])]
    assert set(halves) == {5120, 4480}  # 80 and 70 ticks of clk/64: 13 % apart
    (tone,) = dev.tones()
    assert tone.frequency_hz == pytest.approx(1000, rel=0.01)
    assert tone.duration_s == pytest.approx(0.05, abs=0.001)
