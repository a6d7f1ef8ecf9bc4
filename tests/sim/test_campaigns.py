"""The power-cut engine (fairdie.campaigns) on a firmware that is no product:
the engine's EEPROM test firmware makes three writes, one per programming
mode (address 0 erase and write 0x5A, 1 erase only, 2 write only 0x0F),
toggling PB0 after each."""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from fairdie.board import load_board
from fairdie.campaigns import (
    EVERY_VALUE,
    MODES,
    Write,
    chip_of,
    cut,
    every_cycle,
    misexecutes,
    physical,
    stop_at_writes,
    wrong_addresses,
)
from fairdie.device import Device
from fairdie.errors import FairdieError
from fairdie.sim import Chip, EventKind, Until

#: the image the chip starts from: no byte already holds what a write stores
BEFORE = bytes([0x33, 0x44, 0xF5]) + bytes(range(0x60, 0x60 + 61))
#: (address, new value, EEPM mode) of the firmware's writes, from BEFORE
WRITES = [(0, 0x5A, 0), (1, 0xFF, 1), (2, 0xF5 & 0x0F, 2)]
RUN_S = 0.01  #: the three writes take 7 ms at the datasheet's times

LED_BOARD = """
[board]
name = "eeprom-led"
mcu = "attiny13a"
f_cpu = 1200000
vcc_mv = 3000

[[led]]
name = "done"
anode = "PB0"
cathode = "GND"
"""


@pytest.fixture
def chip(make_chip: Callable[..., Any]) -> Chip:
    """The EEPROM firmware's chip, powered on from BEFORE."""
    c: Chip = make_chip("eeprom", power=False)
    c.write_eeprom(0, BEFORE)
    c.power_on()
    return c


def _after(*writes: tuple[int, int, int]) -> bytes:
    image = bytearray(BEFORE)
    for address, new, _ in writes:
        image[address] = new
    return bytes(image)


def test_a_run_stops_at_each_write_with_what_it_writes(chip: Chip) -> None:
    start = chip.cycle
    end = start + chip.cycles_for(RUN_S)
    writes = stop_at_writes(chip, to_cycle=end)
    assert [(w.address, w.old, w.new, w.mode) for w in writes] == [
        (a, BEFORE[a], new, mode) for a, new, mode in WRITES
    ]
    assert chip.cycle == end and chip.eeprom == _after(*WRITES)
    # each write runs its programming time (3.4 ms, then 1.8 ms twice) before the next starts
    for w, ms in zip(writes, (3.4, 1.8, 1.8), strict=True):
        assert w.done - w.cycle == pytest.approx(chip.cycles_for(ms / 1000), abs=8)
    assert all(a.done <= b.cycle for a, b in pairwise(writes))
    # each snapshot is the chip as its write has just started: in flight, in its mode
    for w in writes:
        chip.restore(w.snapshot)
        assert chip.cycle == w.cycle
        flight = chip.eeprom_in_flight
        assert flight is not None
        assert (flight.address, flight.old, flight.new) == (w.address, w.old, w.new)
        assert flight.mode == MODES[w.mode]
        # the same write as numbers, for loops that ask at every instruction
        assert chip.eeprom_flight() == (w.address, w.old, w.new, w.mode, w.done)


def test_a_run_to_an_event_stops_there(chip: Chip) -> None:
    end = chip.cycle + chip.cycles_for(RUN_S)
    writes = stop_at_writes(chip, to_cycle=end, until=Until.pin("PB0"))
    assert [w.address for w in writes] == [0]  # PB0 toggles once the first write is done
    assert chip.stop_event is not None and chip.stop_event.kind == EventKind.PIN
    assert writes[0].done <= chip.cycle < end


def test_a_cut_in_each_write_leaves_any_torn_value_there_and_nothing_else(chip: Chip) -> None:
    writes = stop_at_writes(chip, to_cycle=chip.cycle + chip.cycles_for(RUN_S))
    for k, w in enumerate(writes):
        done = _after(*WRITES[:k])  # the writes before this one completed
        for v in EVERY_VALUE:
            image = cut(chip, w, v)
            assert not chip.powered
            assert image[w.address] == v
            assert image[: w.address] + image[w.address + 1 :] == (
                done[: w.address] + done[w.address + 1 :]
            )
        assert cut(chip, w, None) == done  # a write lost: its byte keeps its old value


def test_a_cut_later_in_a_write_and_outside_it(chip: Chip) -> None:
    first, second, _ = stop_at_writes(chip, to_cycle=chip.cycle + chip.cycles_for(RUN_S))
    middle = (first.cycle + first.done) // 2
    assert cut(chip, first, 0xA5, at=middle)[0] == 0xA5
    assert chip.cycle >= middle
    # the write's last cycle: still in flight; the next write's start: done
    assert cut(chip, first, 0x00, at=first.done - 1)[0] == 0x00
    assert cut(chip, second, 0x00)[:2] == bytes([0x5A, 0x00])
    with pytest.raises(FairdieError, match="not within the write"):
        cut(chip, first, 0, at=first.done + 1)


def test_a_cut_that_misexecutes_lands_the_write_at_a_wrong_address(chip: Chip) -> None:
    writes = stop_at_writes(chip, to_cycle=chip.cycle + chip.cycles_for(RUN_S))
    footprint = range(8)
    for k, w in enumerate(writes):
        done = _after(*WRITES[:k])
        lands = wrong_addresses(w.address, footprint)
        assert w.address not in lands and len(lands) == 7
        for land in lands:
            for torn, value in ((None, w.new), (0x3C, 0x3C)):
                image = cut(chip, w, torn, land=land)
                want = bytearray(done)  # its own byte keeps its old value
                want[land] = value  # the wrong one takes the value
                assert image == bytes(want), (w.address, land, torn)
    # a seeded draw: reproducible, from the footprint, never the write's own address
    a = wrong_addresses(3, footprint, rng=random.Random(1), count=2)
    assert a == wrong_addresses(3, footprint, rng=random.Random(1), count=2)
    assert len(a) == 2 and 3 not in a and set(a) <= set(footprint)
    # no write in flight: land changes nothing
    chip.restore(writes[-1].snapshot)
    chip.run(to_cycle=writes[-1].done + 10)
    assert cut(chip, land=5) == _after(*WRITES)


def test_the_fuses_say_whether_a_cut_misexecutes(build_test_firmware) -> None:
    on = build_test_firmware("eeprom").fuses
    off = build_test_firmware("eeprom", EE_BOD_OFF=1).fuses
    assert not misexecutes(on) and misexecutes(off)
    assert misexecutes(None)  # no fuses known: the factory values leave the detector off


def test_a_cut_anywhere_from_where_the_chip_is(chip: Chip) -> None:
    first = stop_at_writes(chip, to_cycle=chip.cycle + chip.cycles_for(RUN_S))[0]
    chip.restore(first.snapshot)
    assert cut(chip, torn=0x11, at=first.cycle + 100)[:3] == bytes([0x11, 0x44, 0xF5])
    chip.power_on()  # from what the cut left: the firmware writes it all again
    chip.run(seconds=RUN_S)
    assert chip.eeprom == _after(*WRITES)


def test_a_cut_at_every_cycle_of_a_run(chip: Chip) -> None:
    start = chip.cycle
    end = start + chip.cycles_for(RUN_S)
    cuts = list(every_cycle(chip, to_cycle=end))
    # every cycle is covered once: the cuts follow each other, spans and all
    assert cuts[0].cycle == start and cuts[-1].cycle < end <= chip.cycle
    assert all(a.cycle + a.span == b.cycle for a, b in pairwise(cuts))
    assert chip.eeprom == _after(*WRITES)  # the run itself went on uncut
    # one byte in flight, torn along the physics from its old value to its new,
    # the writes before it done, those after it not started
    torn: dict[int, list[int]] = {}
    for c in cuts:
        if c.address is None:
            assert c.torn is None and c.image in {_after(*WRITES[:k]) for k in range(4)}
            continue
        assert c.torn is not None and c.image[c.address] == c.torn
        done = _after(*WRITES[: c.address])
        assert c.image[: c.address] + c.image[c.address + 1 :] == (
            done[: c.address] + done[c.address + 1 :]
        )
        torn.setdefault(c.address, []).append(c.torn)
    for address, new, mode in WRITES:
        old = BEFORE[address]
        assert torn[address][0] == old
        assert set(torn[address]) <= {physical(old, new, p / 256, mode=mode) for p in range(257)}
    assert 0xFF in torn[0]  # an erase and write passes through erased
    # the images it reaches are images a cut in a write reaches
    chip.power_off()
    chip.write_eeprom(0, BEFORE)
    chip.power_on()
    writes = stop_at_writes(chip, to_cycle=chip.cycle + chip.cycles_for(RUN_S))
    reach = {cut(chip, w, v) for w in writes for v in EVERY_VALUE}
    reach |= {_after(*WRITES[:k]) for k in range(4)}
    assert {c.image for c in cuts} <= reach


def test_a_cut_at_every_cycle_with_a_torn_model_of_ones_own(chip: Chip) -> None:
    def stuck(old: int, new: int, progress: float, *, mode: int = 0) -> int:
        return 0xAB

    cuts = list(every_cycle(chip, to_cycle=chip.cycle + chip.cycles_for(0.004), tear=stuck))
    torn = [c for c in cuts if c.torn is not None]
    assert {c.address for c in torn} == {0, 1}
    assert all(c.address is not None and c.image[c.address] == 0xAB for c in torn)


def test_the_engine_runs_a_device_and_its_caller_reads_each_step(
    tmp_path: Path, build_test_firmware: Callable[..., Any]
) -> None:
    (tmp_path / "led.toml").write_text(LED_BOARD, encoding="utf-8")
    b = build_test_firmware("eeprom")
    dev = Device(Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu), load_board(tmp_path / "led.toml"))
    assert chip_of(dev) is dev.chip and chip_of(dev.chip) is dev.chip
    dev.chip.write_eeprom(0, BEFORE)
    dev.power_on()
    end = dev.chip.cycle + dev.chip.cycles_for(RUN_S)
    lit = [dev.first_lit() is not None for _ in every_cycle(dev, to_cycle=end)]
    # the LED lights once the first write is done: every cut after it saw it lit
    assert not lit[0] and lit[-1] and lit == sorted(lit)
    dev.power_off()
    dev.chip.write_eeprom(0, BEFORE)
    dev.power_on()
    end = dev.chip.cycle + dev.chip.cycles_for(RUN_S)
    (first,) = stop_at_writes(dev, to_cycle=end, until=Until.event(EventKind.EEPROM_DONE))
    assert isinstance(first, Write) and first.address == 0
    assert first.done <= dev.chip.cycle <= first.done + 4  # the instruction it ends in
    assert dev.chip.stop_event is not None and dev.chip.stop_event.kind == EventKind.EEPROM_DONE
