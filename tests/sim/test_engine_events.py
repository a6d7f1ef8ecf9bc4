"""Run control on engine events, snapshots, live registers, the ADC log, the
EEPROM model under a halted CPU, simavr's log, and stray memory accesses.
"""

from __future__ import annotations

import itertools
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
    first = chip.trace.raw()[m * 24 :]
    chip.pull("PB3", None)
    chip.restore(snap)
    assert chip.level("PB3").name == "PULLUP"
    m = chip.trace.mark()
    chip.run(seconds=0.01)
    assert [c.millivolts for c in chip.adc_log(m) if c.channel == 0] == fed
    assert chip.trace.raw()[m * 24 :] == first  # every event at the same cycle


def test_a_restore_puts_back_the_adc_sources_set_after_the_snapshot(make_chip):
    """Sources set after a snapshot (another callable, a constant, another
    channel) are gone after its restore: the chip converts what it did."""
    chip = make_chip("adc")
    chip.set_adc(0, lambda channel: 1000.0)
    chip.run(seconds=0.005)
    snap = chip.snapshot()
    m = chip.trace.mark()
    chip.run(seconds=0.01)
    fed = [(c.channel, c.millivolts) for c in chip.adc_log(m)]
    assert {mv for ch, mv in fed if ch == 0} == {1000}
    chip.restore(snap)
    chip.set_adc(0, lambda channel: 2000.0)
    chip.set_adc(1, 500)
    chip.restore(snap)
    m = chip.trace.mark()
    chip.run(seconds=0.01)
    assert [(c.channel, c.millivolts) for c in chip.adc_log(m)] == fed


@pytest.mark.parametrize("wrapped", [False, True])
def test_snapshot_carries_the_led_history(make_chip, wrapped):
    """The LED history goes into a snapshot oldest entry first and comes back
    to the same ring slots, also when the ring has wrapped (1024 entries)."""
    chip = make_chip("busy", BUSY_N=10)  # PB0 toggles every 34 cycles
    chip.set_leds([("PB0", "GND")])
    chip.run(34 * (1500 if wrapped else 300))
    now = chip.cycle
    longest = 1000 if wrapped else 250
    windows = [(now - 34 * k, now) for k in (1, 7, 100, longest)]
    before = [chip.leds_lit_cycles(a, b) for a, b in windows]
    snap = chip.snapshot()
    chip.run(34 * 1200)  # overwrites the whole ring
    chip.leds_restart()
    chip.restore(snap)
    assert [chip.leds_lit_cycles(a, b) for a, b in windows] == before
    assert before[-1][0] == 34 * longest // 2  # lit half the time
    chip.run(34 * 10)
    assert chip.leds_lit_cycles(now, chip.cycle) == [34 * 5]


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
    marks = []
    for _ in range(300):
        snaps.append(chip.snapshot())
        marks.append(chip.trace.mark())
        chip.run(1)
    chip.run(seconds=0.02)
    end = chip.cycle
    whole = chip.trace.raw()
    straight = (chip.eeprom, chip.read_data(0, chip.ramend + 1))
    for snap, mark in list(zip(snaps, marks, strict=True))[::37]:
        chip.restore(snap)
        m = chip.trace.mark()
        chip.run(to_cycle=end)
        assert chip.trace.raw()[m * 24 :] == whole[mark * 24 :]
        assert (chip.eeprom, chip.read_data(0, chip.ramend + 1)) == straight


# ---- live registers, EEPROM while halted, ADC log -------------------------------------


def test_tcnt0_reads_live(make_chip):
    chip = make_chip("ctc", CTC_TOP=249)
    chip.run(5000)
    a = chip.read_io("TCNT0")
    chip.run(400)  # prescaler 8: 50 counts
    raw = chip.read_data(chip.register("TCNT0"))[0]  # memory as simavr left it
    b = chip.read_io("TCNT0")
    assert (b - a) % 250 in (49, 50, 51)
    assert raw == a  # stale: only a read through the timer's handler counts


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
    else:  # simavr 1.6 alone writes past its data buffer: the heap is corrupted,
        # and the process dies of it (how it shows, a signal or an allocation
        # that fails first, depends on what the heap held)
        assert r.returncode != 0 and "clean" not in r.stdout, (r.returncode, r.stderr[-500:])


# ---- polling loops skipped whole --------------------------------------------------------


def _press_trace(board: str, skip: bool) -> tuple[bytes, int, bytes, int]:
    from fairdie.subjects.die import Die

    die = Die(board=board, seed=3)
    die.chip.skip_polling = skip
    trace = bytearray()
    for hold in (0.004, 0.03, 0.2, 0.2, 0.2):
        die.chip.trace_kinds = EventKind(511)
        die.roll(hold=hold)
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


# ---- review: ADC latch, sleep timing, wake order, LED windows ------------------------------


def test_adc_free_running_reads_each_conversion_as_logged(make_chip):
    chip = make_chip("adc", ADC_FREE=1, chip_args={"vcc_mv": 3000})
    state = {"n": 0}

    def ramp(channel: int) -> float:
        state["n"] += 1
        return 100.0 * state["n"]

    chip.set_adc(0, ramp)
    chip.run(seconds=0.05)
    got = list(chip.read_symbol("free_codes"))
    codes = [int.from_bytes(bytes(got[i : i + 2]), "little") for i in range(0, 16, 2)]
    assert codes == [c.code for c in chip.adc_log()][:8]
    assert chip.adc_codes() == tuple(c.code for c in chip.adc_log())
    m = chip.trace.mark() - 5
    assert chip.adc_codes(m) == tuple(c.code for c in chip.adc_log(m))
    assert codes[0] == 100 * 1023 // 3000


@pytest.mark.parametrize(("fixes", "vref"), [(None, 3000), (ALL - {"adc"}, 1100)])
def test_adc_reference_is_latched_at_conversion_start(make_chip, fixes, vref):
    chip = make_chip(
        "adc", ADC_SWITCH=1, ADC_SWITCH_TO=0x40, chip_args={"simavr_fixes": fixes, "vcc_mv": 3000}
    )  # REFS0: the internal 1.1 V, selected while ADC0 converts against Vcc
    chip.set_adc(0, 1000)
    chip.run(seconds=0.01)
    assert chip.read_var("switched") == 1000 * 1023 // vref


def test_a_sleeping_chip_lands_on_its_deadline(make_chip):
    chip = make_chip("wdt")
    for target in (130_001, 253_459, 1_000_003):
        chip.run(to_cycle=target)
        assert chip.cycle == target and chip.sleeping


def test_wake_comes_before_the_interrupt_it_serves(make_chip):
    chip = make_chip("ctc", CTC_TOP=99)
    chip.run(seconds=0.01)
    m = chip.trace.mark()
    chip.run(seconds=0.002)
    kinds = [e.kind for e in chip.trace.events(EventKind.WAKE | EventKind.IRQ, since=m)]
    assert kinds[:4] == [EventKind.WAKE, EventKind.IRQ] * 2
    sleeps = chip.trace.signal(EventKind.SLEEP, since=m)
    irqs = chip.trace.signal(EventKind.IRQ, since=m)
    wakes = chip.trace.signal(EventKind.WAKE, since=m)
    assert {i.cycle - w.cycle for w, i in zip(wakes, irqs, strict=False)} == {8}
    assert all(s.cycle < w.cycle for s, w in zip(sleeps, wakes[1:], strict=False))


def test_sleep_events_without_the_sleep_fix(make_chip):
    chip = make_chip("ctc", CTC_TOP=9, chip_args={"simavr_fixes": ALL - {"sleep"}})
    assert chip.run(seconds=0.01, until=Until.event(EventKind.SLEEP)) == StopReason.SLEEP
    assert chip.run(seconds=0.01, until=Until.event(EventKind.WAKE)) == StopReason.WAKE


def test_a_sleep_stop_stops_right_after_the_sleep(make_chip):
    chip = make_chip("ctc")
    chip.run(seconds=0.01, until=Until.event(EventKind.SLEEP))
    assert chip.stop_event is not None and chip.cycle == chip.stop_event.cycle + 1


def test_led_windows_in_the_future_or_past_the_history_are_errors(make_chip):
    chip = make_chip("busy", BUSY_N=1)
    chip.set_leds([("PB0", "GND")])
    chip.leds_restart()
    start = chip.cycle
    chip.run(200)
    assert chip.leds_lit_cycles(start, chip.cycle)[0] > 0
    with pytest.raises(SimulationError, match="after now"):
        chip.leds_lit_cycles(start, chip.cycle + 10)
    chip.run(7 * 1100)  # a toggle every 7 cycles: more than 1024 changes
    chip.leds_lit_cycles(chip.cycle - 700, chip.cycle)  # recent: still known
    with pytest.raises(SimulationError, match="no longer reaches"):
        chip.leds_lit_cycles(start, chip.cycle)


def test_bad_leds_leave_the_old_set(make_chip):
    chip = make_chip("busy")
    chip.set_leds([("PB0", "GND")])
    with pytest.raises(FairdieError):
        chip.set_leds([("PB1", "GND"), ("PD9", "GND")])
    chip.run(500)
    assert chip.leds_lit_cycles(chip.cycle - 400, chip.cycle)[0] > 0


@pytest.mark.parametrize(("mcu", "restored"), [("atmega328p", True), ("attiny13a", False)])
def test_snapshots_copy_flash_where_the_core_writes_it(build_test_firmware, mcu, restored):
    """The ATmega328P can write its flash (SPM): a snapshot keeps it. The
    ATtiny13A cannot: its flash is program memory, not state."""
    from fairdie.sim import Chip
    from fairdie.sim._simavr import lib

    a = build_test_firmware("busy", mcu=mcu, BUSY_N=10)
    b = build_test_firmware("busy", mcu=mcu, BUSY_N=20)
    chip = Chip(a.elf, mcu=mcu, f_cpu=a.f_cpu)
    snap = chip.snapshot()
    from fairdie.sim import load_firmware

    fb = load_firmware(b.elf, mcu=mcu).flash
    assert lib.fd_load_flash(chip._c, fb, len(fb), 0) == 0
    chip.restore(snap)
    chip.power_on()
    chip.run(2000)
    t = [c.cycle for c in chip.pin_changes("B") if 0 in c.changed_bits()]
    period = {q - p for p, q in itertools.pairwise(t[2:])}
    assert period == ({3 * 10 + 4} if restored else {3 * 20 + 4})


def test_a_run_stops_on_a_watchdog_reset(make_chip):
    chip = make_chip("busy")
    chip.run(1000)
    chip.write_io("WDTCR", 1 << 3)  # WDE, 16 ms: the watchdog resets the chip
    assert chip.run(seconds=0.1, until=Until.event(EventKind.RESET)) == StopReason.RESET
    assert chip.read_io("MCUSR") & 1 << 3  # WDRF
    assert chip.stop_event is not None and chip.stop_event.cycle > 1000 + 0.015 * F
