"""Fidelity of the engine, pinned with exact expectations on small firmwares.

Each firmware is in fairdie/firmware/tests/<name>/main.c with its expected timing
derived in its banner. Our fixes to simavr 1.6, each shown to matter by a test
that fails without it, are tested in test_engine_fixes.py, test_pins.py,
test_engine_events.py and test_engine_sleep.py (the README's table names each).
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from simsupport import busy_spans

from fairdie.errors import FairdieError, FirmwareError, SimulationError
from fairdie.sim import Chip, EventKind, Level, StopReason, Until, load_firmware

F = 1_200_000


def toggles(chip: Chip, pin_bit: int = 0) -> list[int]:
    """Cycles at which a pin's output level changed (outputs only)."""
    out, last = [], None
    for cycle, _, state, _ in chip.trace.pin_words("B"):  # tuples: a long trace's are many
        if (state >> (8 + pin_bit)) & 1:  # the chip drives it
            lvl = (state >> pin_bit) & 1  # its level, as PinChange.high
            if last is not None and lvl != last:
                out.append(cycle)
            last = lvl
    return out


def periods(cycles: list[int]) -> set[int]:
    return {b - a for a, b in itertools.pairwise(cycles)}


# ---- timing ------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 100, 255])
def test_loop_of_known_cycle_count(make_chip, n):
    chip = make_chip("busy", BUSY_N=n)
    chip.run(20 * (3 * n + 4) + 100)
    assert periods(toggles(chip)[1:]) == {3 * n + 4}


def test_long_trace_is_complete(make_chip):
    """Far more pin changes than the C trace buffer holds: none is lost."""
    chip = make_chip("busy", BUSY_N=1)
    chip.run(1_000_000)
    t = toggles(chip)
    assert len(t) >= 1_000_000 // 7 - 10
    assert periods(t[1:]) == {7}


@pytest.mark.parametrize("mcu", ["attiny13a", "attiny84a"])
def test_same_loop_on_both_mcus(make_chip, mcu):
    chip = make_chip("busy", mcu=mcu, BUSY_N=50)
    assert chip.mcu == mcu
    chip.run(5000)
    assert periods(toggles(chip)[1:]) == {154}


@pytest.mark.parametrize("top", [9, 99, 249])
def test_ctc_timer_period(make_chip, top):
    chip = make_chip("ctc", CTC_TOP=top)
    chip.run(30 * (top + 1) * 8)
    t = toggles(chip)
    assert len(t) >= 20
    assert periods(t[1:]) == {(top + 1) * 8}


def test_run_by_seconds_counts_cycles(make_chip):
    chip = make_chip("ctc", f_cpu=9_600_000)
    start = chip.cycle
    chip.run(seconds=0.001)
    assert chip.cycle - start in range(9600, 9600 + 4)


# ---- ADC ------------------------------------------------------------------------


def adc_results(chip: Chip) -> list[int]:
    raw = chip.read_symbol("result")
    return [int.from_bytes(raw[i : i + 2], "little") for i in range(0, 8, 2)]


@pytest.mark.parametrize("vcc", [1800, 3000, 5000])
def test_adc_matches_formula(make_chip, vcc):
    chip = make_chip("adc", chip_args={"vcc_mv": vcc})
    mvs = [0, vcc // 3, vcc - 1, vcc + 500]
    for ch, mv in enumerate(mvs):
        chip.set_adc(ch, mv)
    chip.run(seconds=0.05)
    # simavr divides by 1023 where the datasheet says 1024: code = mV * 1023 / Vref
    assert adc_results(chip) == [min(1023, mv * 1023 // vcc) for mv in mvs]
    assert chip.read_var("result_int") == min(1023, mvs[2] * 1023 // 1100)


def test_unfed_adc_channel_reads_zero(make_chip):
    chip = make_chip("adc")
    chip.run(seconds=0.02)
    assert adc_results(chip) == [0, 0, 0, 0]


def test_adc_callable_is_called_once_per_conversion(make_chip):
    chip = make_chip("adc")
    calls: list[int] = []

    def source(channel: int) -> float:
        calls.append(channel)
        return 100.0 * len(calls)

    chip.set_adc(1, source)
    chip.run(seconds=0.05)
    rounds = chip.read_var("rounds")
    assert rounds >= 5
    assert set(calls) == {1}
    assert len(calls) in (rounds, rounds + 1)  # the round in progress may have started
    fed = [c.millivolts for c in chip.adc_log() if c.channel == 1]
    assert fed[: len(calls)] == [100 * (i + 1) for i in range(len(calls))]


def test_adc_source_error_surfaces(make_chip):
    chip = make_chip("adc")
    chip.set_adc(0, lambda ch: 1 / 0)
    with pytest.raises(SimulationError, match="ZeroDivisionError"):
        chip.run(seconds=0.01)


# ---- EEPROM ---------------------------------------------------------------------


@pytest.mark.parametrize("f_cpu", [1_200_000, 9_600_000])
def test_eeprom_programming_time_and_modes(make_chip, f_cpu):
    chip = make_chip("eeprom", f_cpu=f_cpu, power=False)
    chip.write_eeprom(0, bytes([0x00, 0x00, 0xF3]))
    chip.power_on()
    chip.run(seconds=0.02)
    assert chip.eeprom[:3] == bytes([0x5A, 0xFF, 0xF3 & 0x0F])
    assert chip.read_var("readback") == 0x5A
    spans = busy_spans(chip)
    want = [round(3.4e-3 * f_cpu), round(1.8e-3 * f_cpu), round(1.8e-3 * f_cpu)]
    # the write completes at the first instruction boundary past its time
    for (start, end), w in zip(spans, want, strict=True):
        assert w <= end - start <= w + 4
    # the firmware sees EEPE clear only when the write is done
    done = toggles(chip)
    assert [d >= e for d, (_, e) in zip(done, spans, strict=True)] == [True] * 3


def test_eeprom_byte_is_pending_until_the_write_completes(make_chip):
    chip = make_chip("eeprom", power=False)
    chip.write_eeprom(0, b"\x11")
    chip.power_on()
    chip.run(200)
    w = chip.eeprom_in_flight
    assert w is not None
    assert (w.address, w.old, w.new, w.mode) == (0, 0x11, 0x5A, "erase+write")
    assert 0 < w.cycles_left <= round(3.4e-3 * F)
    assert chip.eeprom[0] == 0x11
    chip.run(w.cycles_left + 4)
    assert chip.eeprom[0] == 0x5A


@pytest.mark.parametrize("torn", [None, 0x00, 0xA5])
def test_power_cut_during_a_write(make_chip, torn):
    chip = make_chip("eeprom", power=False)
    chip.write_eeprom(0, b"\x11")
    chip.power_on()
    chip.run(1000)
    cut = chip.power_off(torn_value=torn)
    assert cut is not None and cut.address == 0
    assert chip.eeprom[0] == (0x11 if torn is None else torn)
    assert chip.eeprom_in_flight is None


# ---- power model ----------------------------------------------------------------


def test_power_on_resets_io_sets_porf_and_keeps_eeprom(make_chip):
    chip = make_chip("wdt")
    chip.run(seconds=1.5)
    assert chip.read_io("DDRB") == 0b11 and chip.read_io("WDTCR") != 0
    chip.write_eeprom(5, b"\x42")
    chip.power_off()
    assert chip.level("PB0") is Level.Z
    chip.power_on()
    assert chip.read_io("DDRB") == 0 and chip.read_io("WDTCR") == 0
    assert chip.read_io("MCUSR") & 1  # PORF
    assert chip.eeprom[5] == 0x42
    chip.run(seconds=2.5)
    assert chip.read_var("wakeups") == 2  # the watchdog runs again after a power cycle


def test_sram_does_not_survive_a_power_cut_and_is_seeded(make_chip):
    a = make_chip("busy", chip_args={"seed": 7})
    b = make_chip("busy", chip_args={"seed": 7})
    c = make_chip("busy", chip_args={"seed": 8})
    sram = (a.sram_start, a.ramend + 1 - a.sram_start)
    assert a.read_data(*sram) == b.read_data(*sram) != c.read_data(*sram)
    before = a.read_data(*sram)
    a.power_off()
    a.power_on()
    assert a.read_data(*sram) != before


def test_sleep_with_interrupts_off_halts(make_chip):
    chip = make_chip("eeprom")  # ends in cli; sleep
    chip.run(seconds=0.02)
    start = chip.cycle
    assert chip.run(1000) == StopReason.DEADLINE | StopReason.HALTED
    assert chip.cycle == start + 1000 and chip.sleeping


def test_erased_chip_and_elf_eeprom_section(build_test_firmware):
    b = build_test_firmware("busy")
    chip = Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu)
    assert chip.eeprom[:4] == bytes([1, 2, 3, 4])  # loaded once, from .eeprom
    assert chip.eeprom[4:] == b"\xff" * (chip.eeprom_size - 4)
    chip.write_eeprom(0, b"\x09")
    chip.power_on()
    chip.power_off()
    chip.power_on()
    assert chip.eeprom[0] == 0x09  # not reloaded at power-on
    chip.erase_eeprom()
    assert chip.eeprom == b"\xff" * chip.eeprom_size
    assert Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu, eeprom=b"\xff" * 64).eeprom[:4] == b"\xff" * 4


def test_ten_seconds_of_watchdog_sleep_is_cheap(make_chip):
    chip = make_chip("wdt")
    chip.run(seconds=10)
    assert chip.read_var("wakeups") == math.floor(10 / 1.024)
    assert chip.sleep_steps <= 3 * 10  # fast-forward: a few steps per wake-up


# ---- conditions, symbols, pins ---------------------------------------------------


def test_until_pin_stops_at_the_edge(make_chip):
    chip = make_chip("busy", BUSY_N=100)
    chip.run(100)
    r = chip.run(10_000, until=Until.pin("PB0"))
    assert r == StopReason.PIN
    assert chip.stop_event is not None and chip.stop_event.kind is EventKind.PIN
    # stamped at the start of the writing instruction (sbi: 2 cycles)
    assert 0 < chip.cycle - chip.pin_changes()[-1].cycle <= 4


def test_until_pc_and_symbols(make_chip):
    chip = make_chip("busy")
    r = chip.run(10_000, until=Until.pc_at("main"))
    assert r == StopReason.PC and chip.pc == chip.symbol("main").address
    chip.run(1000)
    assert chip.read_var("marker") == 0x5A


def test_until_quiet_sleep(make_chip):
    chip = make_chip("wdt")
    r = chip.run(seconds=5, until=Until.quiet(0.5))
    assert r == StopReason.QUIET
    last = chip.pin_changes()[-1].cycle
    assert chip.cycle - last in range(round(0.5 * F), round(0.5 * F) + 4)


def test_io_by_name_and_driving_inputs(make_chip):
    chip = make_chip("busy")
    chip.run(1000)
    assert chip.read_io("DDRB") == 1
    chip.drive("PB3", True)
    assert chip.port_regs("B")[2] & 0b1000
    chip.drive("PB3", False)
    assert not chip.port_regs("B")[2] & 0b1000
    chip.drive("PB3", True)
    chip.drive("PB3", None)  # released, no pull-up: floats and reads low
    assert not chip.port_regs("B")[2] & 0b1000
    assert chip.level("PB3") is Level.Z
    chip.write_io("DDRB", 0b10)  # through the port's handler: traced like a CPU write
    chip.write_io("PORTB", 0b10)
    assert chip.level("PB1") is Level.HIGH
    assert chip.pin_changes()[-1].state & 0xFFFF == 0b10_0000_0010
    with pytest.raises(FairdieError, match="outside the attiny13a"):
        chip.read_data(0x9F, 2)
    with pytest.raises(FairdieError, match="no register"):
        chip.read_io("PORTZ")
    with pytest.raises(FairdieError, match="no port"):
        chip.level("PD1")


def test_chips_do_not_interfere(make_chip):
    solo = make_chip("ctc", CTC_TOP=49)
    solo.run(20_000)
    a, b = make_chip("ctc", CTC_TOP=49), make_chip("ctc", CTC_TOP=99)
    for _ in range(20):
        a.run(1000)
        b.run(1000)
    assert a.pin_changes() == solo.pin_changes()
    assert periods(toggles(b)[1:]) == {800}


def test_vcd_of_pins_and_signals(make_chip, tmp_path: Path):
    chip = make_chip("eeprom")
    chip.run(seconds=0.02)
    path = chip.write_vcd(tmp_path / "t.vcd", pins=["PB0"], signals=["eeprom_busy"])
    text = path.read_text()
    assert "$var wire 1 ! PB0 $end" in text and "eeprom_busy" in text
    stamps = [int(line[1:]) for line in text.splitlines() if line.startswith("#")]
    assert stamps == sorted(stamps)
    t0 = next(iter(toggles(chip)))
    assert f"#{round(t0 * 1e9 / F)}" in text


# ---- loading and bad input ------------------------------------------------------------


def test_hex_and_eep_run_like_the_elf(build_test_firmware):
    b = build_test_firmware("ctc")
    elf = Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu)
    hx = Chip(load_firmware(b.hex, eep=b.eep, mcu="attiny13a", f_cpu=F))
    for chip in (elf, hx):
        chip.power_on()
        chip.run(20_000)
    assert elf.pin_changes() == hx.pin_changes()


def test_bad_firmware_gives_one_line_errors(build_test_firmware, tmp_path: Path):
    b = build_test_firmware("busy")
    with pytest.raises(FirmwareError, match="no such firmware"):
        load_firmware(tmp_path / "nope.hex")
    bad = tmp_path / "bad.hex"
    bad.write_text(":0400000001020304F1\n:00000001FF\n")
    with pytest.raises(FirmwareError, match="bad checksum"):
        load_firmware(bad)
    with pytest.raises(FirmwareError, match="does not name its MCU"):
        Chip(load_firmware(b.hex))
    big = tmp_path / "big.hex"
    lines = [
        f":10{a:04X}00" + "00" * 16 + f"{(-(16 + (a >> 8) + (a & 0xFF))) & 0xFF:02X}"
        for a in range(0, 2048, 16)
    ]
    big.write_text("\n".join(lines) + "\n:00000001FF\n")
    with pytest.raises(FirmwareError, match="needs 2048 bytes of flash"):
        Chip(load_firmware(big), mcu="attiny13a", f_cpu=F)
    with pytest.raises(FirmwareError, match="no model of the MCU"):
        Chip(load_firmware(b.hex), mcu="attiny9999", f_cpu=F)
    with pytest.raises(FairdieError, match="out of range"):
        Chip(b.elf, mcu="attiny13a", f_cpu=F, vcc_mv=9000)


def test_firmware_for_another_mcu_is_refused(build_test_firmware):
    b = build_test_firmware("busy", mcu="attiny85")
    fw = load_firmware(b.elf)
    if fw.mcu is None:  # the test firmware carries no .mmcu section: say which
        fw = load_firmware(b.elf, mcu="attiny85")
    with pytest.raises(FirmwareError, match="built for attiny85"):
        Chip(fw, mcu="attiny13a", f_cpu=F)
