"""Run control on engine events, snapshots, live registers, the ADC log, the
EEPROM model under a halted CPU, simavr's log, and stray memory accesses.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

import pytest

from fairdie.errors import FairdieError, SimulationError
from fairdie.sim import EventKind, StopReason, Until
from fairdie.sim._chip import SIMAVR_FIXES

ALL = set(SIMAVR_FIXES)
F = 1_200_000


# ---- open run control ------------------------------------------------------------


def test_run_to_an_absolute_cycle(make_chip):
    chip = make_chip("busy")
    chip.run(to_cycle=12_345)
    assert chip.cycle in range(12_345, 12_345 + 4)
    with pytest.raises(FairdieError, match="in the past"):
        chip.run(to_cycle=100)
    with pytest.raises(FairdieError, match="exactly one"):
        chip.run(10, to_cycle=20_000)


@pytest.mark.parametrize(
    ("firmware", "defines", "until", "kind"),
    [
        ("eeprom", {}, Until.event(EventKind.EEPROM_START), EventKind.EEPROM_START),
        ("eeprom", {}, Until.event(EventKind.EEPROM_DONE), EventKind.EEPROM_DONE),
        ("adc", {}, Until.event(EventKind.ADC), EventKind.ADC),
        ("ctc", {}, Until.event(EventKind.SLEEP), EventKind.SLEEP),
        ("ctc", {}, Until.irq(), EventKind.IRQ),
        ("busy", {}, Until.pin(), EventKind.PIN),
    ],
)
def test_a_run_stops_on_any_engine_event(make_chip, firmware, defines, until, kind):
    chip = make_chip(firmware, **defines)
    r = chip.run(seconds=1, until=until)
    assert StopReason(int(kind)) in r and StopReason.DEADLINE not in r
    e = chip.stop_event
    assert e is not None and e.kind is kind
    assert e.cycle <= chip.cycle <= e.cycle + 8  # the instruction in progress completes
    assert str(e.cycle) in e.describe()


def test_wake_and_irq_vector_filters(make_chip):
    chip = make_chip("ctc", CTC_TOP=99)
    chip.run(seconds=0.01, until=Until.event(EventKind.SLEEP))
    assert chip.run(seconds=0.01, until=Until.event(EventKind.WAKE)) == StopReason.WAKE
    # TIM0_COMPA is vector 6 on the ATtiny13A; no other vector fires
    assert chip.run(seconds=0.01, until=Until.irq(6)) == StopReason.IRQ
    assert chip.stop_event is not None and chip.stop_event.a == 6
    assert chip.run(2000, until=Until.irq(3)) == StopReason.DEADLINE
    # several conditions at once: the first to happen wins
    r = chip.run(seconds=0.01, until=Until.irq(6) | Until.event(EventKind.EEPROM_DONE))
    assert r == StopReason.IRQ


# ---- snapshots ---------------------------------------------------------------------


def test_snapshot_restore_rerun_is_identical(make_chip):
    chip = make_chip("eeprom", power=False)
    chip.write_eeprom(0, bytes([0x11, 0x22, 0x33]))
    chip.power_on()
    chip.run(500)
    assert chip.eeprom_in_flight is not None  # a write in flight, a timer pending
    snap = chip.snapshot()
    first = chip.trace.mark()
    chip.run(seconds=0.02)
    trace_a, eeprom_a, cycle_a = chip.trace.raw()[first * 24 :], chip.eeprom, chip.cycle
    chip.restore(snap)
    assert chip.cycle == snap.cycle and chip.eeprom[:3] == bytes([0x11, 0x22, 0x33])
    assert chip.eeprom_in_flight is not None
    second = chip.trace.mark()
    chip.run(seconds=0.02)
    assert chip.trace.raw()[second * 24 :] == trace_a
    assert (chip.eeprom, chip.cycle) == (eeprom_a, cycle_a)


def test_snapshot_carries_the_pin_model_and_noise_position(make_chip):
    chip = make_chip("adc")
    state = {"n": 0}

    class Counter:
        def __call__(self, channel: int) -> float:
            state["n"] += 1
            return 10.0 * state["n"]

        def snapshot(self) -> int:
            return state["n"]

        def restore(self, n: int) -> None:
            state["n"] = n

    chip.set_adc(0, Counter())
    chip.pull("PB3", "up")
    chip.run(seconds=0.01)
    snap = chip.snapshot()
    m = chip.trace.mark()
    chip.run(seconds=0.01)
    fed = [c.millivolts for c in chip.adc_log(m) if c.channel == 0]
    chip.pull("PB3", None)
    chip.restore(snap)
    assert chip.level("PB3").name == "PULLUP"
    m = chip.trace.mark()
    chip.run(seconds=0.01)
    assert [c.millivolts for c in chip.adc_log(m) if c.channel == 0] == fed


def test_snapshot_belongs_to_its_chip(make_chip):
    a, b = make_chip("busy"), make_chip("busy")
    with pytest.raises(SimulationError, match="another chip"):
        b.restore(a.snapshot())


def test_branching_at_every_cycle_is_linear(make_chip):
    """A campaign branches from one snapshot per cycle: each branch replays
    exactly what the straight run did up to the same cycle."""
    chip = make_chip("eeprom", power=False)
    chip.power_on()
    snaps = []
    for _ in range(300):
        snaps.append(chip.snapshot())
        chip.run(1)
    end = chip.cycle
    straight = chip.eeprom_in_flight
    for snap in snaps[::37]:
        chip.restore(snap)
        chip.run(to_cycle=end)
        assert chip.eeprom_in_flight == straight


# ---- live registers, EEPROM while halted, ADC log -------------------------------------


def test_tcnt0_reads_live(make_chip):
    chip = make_chip("ctc", CTC_TOP=249)
    chip.run(5000)
    a = chip.read_io("TCNT0")
    chip.run(400)  # prescaler 8: 50 counts
    b = chip.read_io("TCNT0")
    assert (b - a) % 250 in (49, 50, 51)
    assert chip.read_data(chip.register("TCNT0"))[0] in (0, b)  # raw memory is stale


def test_sreg_reads_live(make_chip):
    chip = make_chip("ctc")
    chip.run(5000)
    assert chip.read_io("SREG") & 0x80  # sei() ran


def test_eeprom_write_completes_while_halted(make_chip):
    chip = make_chip("eeprom", EE_SLEEP_WRITING=1, power=False)
    chip.power_on()
    chip.run(seconds=0.001)
    assert chip.sleeping and chip.eeprom_in_flight is not None
    r = chip.run(seconds=0.01)
    assert StopReason.HALTED in r
    assert chip.eeprom[3] == 0xA5 and chip.eeprom_in_flight is None
    done = chip.trace.signal(EventKind.EEPROM_DONE)
    assert [(e.a, e.b, e.c) for e in done] == [(3, 0xA5, 0)]


def test_adc_log_two_channels_both_references(make_chip):
    chip = make_chip("adc", chip_args={"vcc_mv": 3000})
    chip.set_adc(0, 1000)
    chip.set_adc(2, 500)
    chip.run(seconds=0.05)
    log = chip.adc_log()
    seen = {(c.channel, c.reference, c.millivolts, c.code, c.vref_mv) for c in log}
    assert (0, "vcc", 1000, 1000 * 1023 // 3000, 3000) in seen
    assert (2, "vcc", 500, 500 * 1023 // 3000, 3000) in seen
    assert (2, "internal", 500, 500 * 1023 // 1100, 1100) in seen
    # the firmware read exactly the logged codes
    assert chip.read_var("result_int") == 500 * 1023 // 1100
    raw = chip.read_symbol("result")
    assert int.from_bytes(raw[4:6], "little") == 500 * 1023 // 3000


@pytest.mark.parametrize(("fixes", "channel"), [(None, 0), (ALL - {"adc"}, 1)])
def test_adc_channel_is_latched_at_conversion_start(make_chip, fixes, channel):
    chip = make_chip("adc", ADC_SWITCH=1, chip_args={"simavr_fixes": fixes, "vcc_mv": 3000})
    chip.set_adc(0, 1000)
    chip.set_adc(1, 2000)
    chip.run(seconds=0.01)
    want = {0: 1000, 1: 2000}[channel] * 1023 // 3000
    assert chip.read_var("switched") == want
    assert [c.channel for c in chip.adc_log()] == [0]


# ---- simavr's log and stray accesses ---------------------------------------------------


def test_simavr_log_goes_to_logging_not_stderr(make_chip, caplog, capfd):
    caplog.set_level(logging.WARNING, logger="fairdie.simavr")
    chip = make_chip("adc", chip_args={"vcc_mv": 3000})
    chip.set_adc(0, 4000)  # above Vref: simavr warns that it clipped
    chip.run(seconds=0.01)
    assert any("clipped" in r.getMessage() for r in caplog.records)
    out, err = capfd.readouterr()
    assert "clipped" not in err and "clipped" not in out


_STRAY = """
import gc, sys
from fairdie.sim import Chip
from fairdie.sim._chip import SIMAVR_FIXES
fixes = set(SIMAVR_FIXES) - set(sys.argv[2:])
chips = []
for _ in range(8):
    chip = Chip(sys.argv[1], mcu="attiny13a", f_cpu=1_200_000, simavr_fixes=fixes)
    chip.power_on()
    chip.run(300_000)
    assert chip.read_var("passes") > 3
    chips.append(chip)
del chips
gc.collect()
print("clean")
"""


@pytest.mark.parametrize("fixed", [True, False])
def test_stray_accesses_stay_inside_our_buffers(build_test_firmware, fixed):
    elf = str(build_test_firmware("stray").elf)
    args = [sys.executable, "-c", textwrap.dedent(_STRAY), elf] + ([] if fixed else ["memory"])
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if fixed:
        assert r.returncode == 0 and r.stdout.strip() == "clean", r.stderr[-500:]
    else:  # simavr 1.6 alone writes past its data buffer: the heap is corrupted
        assert r.returncode != 0


# ---- polling loops skipped whole --------------------------------------------------------


def _press_trace(board: str, skip: bool) -> tuple[bytes, int, bytes, int]:
    from fairdie.die import Die

    die = Die(board=board, seed=3)
    die.chip.skip_polling = skip
    trace = bytearray()
    for hold in (0.004, 0.03, 0.2, 0.2, 0.2):
        die.chip.trace_kinds = EventKind(511)
        die.press(hold=hold)
        trace += die.chip.trace.raw()
    return bytes(trace), die.chip.cycle, die.chip.eeprom, die.chip.poll_skipped_cycles


@pytest.mark.parametrize("board", ["die-direct", "die-charlieplex"])
def test_skipping_polling_loops_changes_nothing(board):
    fast = _press_trace(board, True)
    slow = _press_trace(board, False)
    assert fast[:3] == slow[:3]  # every event at the same cycle, the same EEPROM
    assert slow[3] == 0 and fast[3] > 10_000  # and most EEPROM waiting was skipped


@pytest.mark.parametrize(("firmware", "defines"), [("eeprom", {}), ("adc", {})])
def test_skipping_polling_loops_on_the_engine_firmwares(build_test_firmware, firmware, defines):
    from fairdie.sim import Chip

    b = build_test_firmware(firmware, **defines)
    runs = []
    for skip in (True, False):
        chip = Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu, skip_polling=skip)
        chip.set_adc(1, 1234)
        chip.power_on()
        chip.run(seconds=0.03)
        runs.append((chip.trace.raw(), chip.cycle, chip.eeprom, chip.read_data(0x60, 64)))
    assert runs[0] == runs[1]
