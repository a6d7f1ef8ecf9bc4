"""Coverage recorded by the engine: counts per flash word and branch outcomes,
on every path that runs instructions, across snapshots, and free when off."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fairdie.errors import FairdieError
from fairdie.sim import Chip, Until, record_chips

CYCLES = 20_000


def _at(chip: Chip, name: str) -> int:
    return chip.firmware.symbols[name].address


def _return_address(chip: Chip) -> int:
    """The byte address an interrupt pushed (ATtiny13A: SPL only)."""
    sp = chip.read_data(0x5D)[0]
    hi, lo = chip.read_data(sp + 1, 2)
    return ((hi << 8) | lo) * 2


def test_branches_skips_and_interrupts_between_instructions(make_chip: Callable[..., Chip]) -> None:
    chip = make_chip("cov_engine", chip_args={"coverage": True})
    # INT0 is entered right behind the falling-through cpse and the untaken breq
    entered = set()
    for _ in range(4):
        chip.run(CYCLES, until=Until.pc_at("__vector_1"))
        entered.add(_return_address(chip))
    assert entered == {_at(chip, "irq_skip") + 2, _at(chip, "irq_branch") + 2}
    chip.run(CYCLES)
    cov = chip.coverage()
    passes = cov.hits[_at(chip, "k0_taken")]
    assert passes > 100
    assert cov.branches[_at(chip, "k0_taken")] == (passes, 0)  # breq .+0, Z set
    assert cov.branches[_at(chip, "k0_fell")] == (0, passes)  # breq .+0, Z clear
    assert cov.branches[_at(chip, "skip2")] == (passes, 0)  # over a two-word lds
    assert _at(chip, "skipped") not in cov.hits
    assert _at(chip, "skipped") + 2 not in cov.hits  # the lds's second word is no instruction
    for name in ("irq_skip", "irq_branch"):  # fell through, then the interrupt
        assert cov.branches[_at(chip, name)] == (0, passes)
    assert cov.hits[_at(chip, "__vector_1")] in (2 * passes, 2 * passes - 1)
    assert set(cov.branches) == {
        _at(chip, n) for n in ("k0_taken", "k0_fell", "skip2", "irq_skip", "irq_branch")
    }
    assert cov.mcu == "attiny13a" and cov.elf and cov.elf.endswith("cov_engine.elf")


def test_a_handler_is_covered_only_when_its_interrupt_fires(
    make_chip: Callable[..., Chip],
) -> None:
    fired = make_chip("cov_engine", chip_args={"coverage": True})
    quiet = make_chip("cov_engine", COV_IRQ=0, chip_args={"coverage": True})
    for chip in (fired, quiet):
        chip.run(CYCLES)
    assert fired.coverage().hits[_at(fired, "__vector_1")] > 0
    assert _at(quiet, "__vector_1") not in quiet.coverage().hits
    assert quiet.coverage().hits[_at(quiet, "k0_taken")] > 0


def _run_every_way(make_chip: Callable[..., Chip], name: str, cycles: int) -> list[Any]:
    """The same cycles through each path that executes instructions."""
    out = []
    ways: list[Callable[[Chip], object]] = [
        lambda c: c.run(cycles),
        lambda c: c.run_raw(cycles, batch=True),
        lambda c: c.run_raw(cycles, batch=False),
        lambda c: c.step_from_python(cycles),
        lambda c: c.run(cycles, until=Until.pc_at(0x3FE)),  # a PC watched: per instruction
    ]
    for way in ways:
        chip = make_chip(name, chip_args={"coverage": True})
        way(chip)
        out.append((chip.cycle, chip.coverage()))
    debugged = make_chip(name, chip_args={"coverage": True})
    debugged.set_breakpoints([0x3FE])  # never reached: the debugger's loop all along
    debugged.run(cycles, until=Until.pc_at(0x3FE))
    out.append((debugged.cycle, debugged.coverage()))
    unbatched = make_chip(name, chip_args={"coverage": True, "batch_instructions": False})
    unbatched.run(cycles)
    out.append((unbatched.cycle, unbatched.coverage()))
    return out


def test_every_path_that_runs_instructions_records(make_chip: Callable[..., Chip]) -> None:
    runs = _run_every_way(make_chip, "cov_engine", CYCLES)
    cycles = {c for c, _ in runs}
    assert len(cycles) == 1, cycles
    first = runs[0][1]
    assert first.hits and first.branches
    for _, cov in runs[1:]:
        assert cov == first


@pytest.mark.usefixtures("unrecorded")
def test_a_run_is_the_same_with_coverage_on(make_chip: Callable[..., Chip]) -> None:
    """Recording changes nothing the firmware sees: cycle, pins, trace, memory."""
    seen = []
    for on in (False, True):
        chip = make_chip("cov_engine", chip_args={"coverage": on})
        chip.run(CYCLES)
        seen.append((chip.cycle, chip.pc, chip.read_data(0, 0x60), list(chip.trace.tuples())))
    assert seen[0] == seen[1]


@pytest.mark.usefixtures("unrecorded")
def test_coverage_is_free_and_refused_when_off(make_chip: Callable[..., Chip]) -> None:
    chip = make_chip("cov_engine")
    assert not chip.coverage_recording
    with pytest.raises(FairdieError, match="coverage is off"):
        chip.coverage()
    chip.run(1000)
    chip.coverage_on()
    chip.coverage_on()  # twice is once
    assert chip.coverage_recording and not chip.coverage().hits
    chip.run(1000)
    assert chip.coverage().hits


def test_counts_survive_restore_and_count_each_instruction_run_once(
    make_chip: Callable[..., Chip],
) -> None:
    """A restore neither rolls counts back nor adds the snapshot's past: each
    instruction the CPU executed counts once, also when it ran after a restore."""
    chip = make_chip("cov_engine", chip_args={"coverage": True})
    chip.run(CYCLES)
    before = chip.coverage()
    snap = chip.snapshot()
    chip.run(CYCLES)
    after_run = chip.coverage()
    chip.restore(snap)
    assert chip.coverage() == after_run  # not rolled back
    chip.run(CYCLES)
    again = chip.coverage()
    k0 = _at(chip, "k0_taken")
    # the same stretch ran twice after the snapshot: its passes count twice
    assert again.hits[k0] - before.hits[k0] == 2 * (after_run.hits[k0] - before.hits[k0])
    # a reference chip that ran the stretch once after the same start
    ref = make_chip("cov_engine", chip_args={"coverage": True})
    ref.run(2 * CYCLES)
    assert again.hits[k0] == ref.coverage().hits[k0] + (after_run.hits[k0] - before.hits[k0])


@pytest.mark.usefixtures("unrecorded")
def test_coverage_is_the_chips_setting_not_the_snapshots(make_chip: Callable[..., Chip]) -> None:
    """A snapshot taken with coverage off, restored once it is on, goes on
    recording; snapshots are the same bytes whether coverage is on or not."""
    chip = make_chip("cov_engine")
    chip.run(CYCLES)
    off = chip.snapshot()
    chip.coverage_on()
    ring = 1024 * 16  # the LED history's slots end a snapshot, written only where live
    assert bytes(chip.snapshot().data)[:-ring] == bytes(off.data)[:-ring]
    chip.restore(off)
    chip.run(CYCLES)
    assert chip.coverage().hits[_at(chip, "k0_taken")] > 100


def test_skipped_polling_passes_count_as_run(build_test_firmware: Callable[..., Any]) -> None:
    """The engine skips whole passes of an EEPE polling loop: they count as
    if run, so the counts are those of a run that polls pass by pass."""
    fw = build_test_firmware("eeprom")
    covs = []
    for skip in (True, False):
        chip = Chip(fw.elf, mcu=fw.mcu, f_cpu=fw.f_cpu, coverage=True, skip_polling=skip)
        chip.power_on()
        chip.run(seconds=0.05)
        covs.append((chip.poll_skipped_cycles, chip.cycle, chip.coverage()))
    assert covs[0][0] > 0 and covs[1][0] == 0
    assert covs[0][1:] == covs[1][1:]


@pytest.mark.usefixtures("unrecorded")
def test_record_chips_sees_every_chip_made_inside(make_chip: Callable[..., Chip]) -> None:
    outside = make_chip("cov_engine")
    with record_chips() as rec:
        a = make_chip("cov_engine")
        b = make_chip("cov_engine", COV_IRQ=0)
        for chip in (a, b):
            chip.run(CYCLES)
        a_cov = a.coverage()
        del a  # freed inside: its counts are kept
        live = rec.coverage_set()
    assert not outside.coverage_recording
    assert len(live) == 2
    got = {c.flash_sha256: c for c in live}
    assert got[a_cov.flash_sha256] == a_cov
    assert got[b.coverage().flash_sha256] == b.coverage()


# ---- the known answers of cov_c (C): what ran, by function -------------------------


def _hits_in(chip: Chip, cov: Any, name: str) -> dict[int, int]:
    s = chip.firmware.symbols[name]
    return {a: n for a, n in cov.hits.items() if s.address <= a < s.address + s.size}


def test_cov_c_known_answers(make_chip: Callable[..., Chip]) -> None:
    """A function never called has no hit; the loop's exit branch goes both
    ways, LOOPS - 1 passes back for one exit; the handler runs only once its
    interrupt fires; code run only after a restore counts once."""
    chip = make_chip("cov_c", LOOPS=5, chip_args={"coverage": True})
    chip.run(CYCLES)
    cov = chip.coverage()
    assert not _hits_in(chip, cov, "never_called")
    assert not _hits_in(chip, cov, "__vector_1")
    assert not _hits_in(chip, cov, "after_restore")
    (exit_branch,) = [a for a in cov.branches if a in _hits_in(chip, cov, "count_to")]
    taken, fell = cov.branches[exit_branch]
    body = _hits_in(chip, cov, "count_to")
    returns = body[max(body)]  # its ret: calls ended
    assert returns > 10 and fell in (returns, returns + 1)
    assert taken in range(4 * fell, 4 * fell + 5)  # four passes back a call
    snap = chip.snapshot()
    chip.run(CYCLES)
    chip.restore(snap)  # the stretch since the snapshot still counts
    chip.drive("PB3", 0)  # after_restore runs, once
    chip.drive("PB1", 0)  # INT0 (falling edge) fires, once
    chip.run(CYCLES)
    cov = chip.coverage()
    once = _hits_in(chip, cov, "after_restore")
    assert once and set(once.values()) == {1}
    assert _hits_in(chip, cov, "__vector_1")
    assert set(_hits_in(chip, cov, "__vector_1").values()) == {1}
    assert not _hits_in(chip, cov, "never_called")


@pytest.mark.usefixtures("unrecorded")
@pytest.mark.parametrize("board", ["die-direct", "die-charlieplex"])
def test_a_die_presses_alike_with_coverage_on(board: str) -> None:
    """Power-on, ADC, EEPROM writes, sleep, and the charlieplexed build's
    timer interrupts: the same presses, to the cycle, recorded or not."""
    from fairdie.subjects.die import Die

    seen = []
    for on in (False, True):
        die = Die(board=board, seed=5)
        if on:
            die.chip.coverage_on()
        presses = [die.roll() for _ in range(4)]
        shown = [(p.face, p.display, p.adc_codes) for p in presses]
        seen.append((shown, die.chip.eeprom, die.chip.cycle, die.chip.poll_skipped_cycles))
    assert seen[0] == seen[1]
    assert die.chip.coverage().hits[0] == 4  # the reset vector: once a press (a power-on)


def test_a_hex_and_its_elf_are_one_firmware(build_test_firmware: Callable[..., Any]) -> None:
    """Keyed by the flash image: a HEX run merges with its ELF's runs (no ELF path of its own)."""
    fw = build_test_firmware("cov_engine")
    covs = []
    for path in (fw.hex, fw.elf):
        chip = Chip(path, mcu=fw.mcu, f_cpu=fw.f_cpu, coverage=True)
        chip.power_on()
        chip.run(CYCLES)
        covs.append(chip.coverage())
    from_hex, from_elf = covs
    assert from_hex.elf is None and from_elf.elf == str(fw.elf.resolve())
    assert from_hex.flash_sha256 == from_elf.flash_sha256 and from_hex.hits == from_elf.hits
    assert from_hex.merged(from_elf).elf == from_elf.elf


@pytest.mark.usefixtures("unrecorded")
@pytest.mark.parametrize("name", ["adc", "ctc", "eeprom", "sleep", "tone", "wdt", "irq", "m328p"])
def test_test_firmwares_run_alike_with_coverage_on(
    make_chip: Callable[..., Chip], name: str
) -> None:
    """Timers, the ADC, EEPROM, sleep modes, the watchdog, interrupts: batched
    with coverage as without, to the cycle."""
    seen = []
    for on in (False, True):
        chip = make_chip(name, chip_args={"coverage": on})
        chip.run(seconds=0.3)
        seen.append((chip.cycle, chip.pc, chip.read_data(0, 0x60), list(chip.trace.tuples())))
    assert seen[0] == seen[1]
    assert len(seen[0][3]) > 2 and chip.coverage().hits


@pytest.mark.usefixtures("unrecorded")
@pytest.mark.parametrize("board", ["die-direct", "die-charlieplex"])
def test_a_die_counts_alike_batched_or_not(board: str) -> None:
    """Batched, every instruction still counts once: also the one right after
    an instruction that sets a cycle timer (the watchdog's and the EEPROM's
    timed sequences), the last of the batch, the first after an interrupt."""
    from fairdie.subjects.die import Die

    covs = []
    for batch in (True, False):
        die = Die(board=board, seed=5)
        die.chip.batch_instructions = batch
        die.chip.coverage_on()
        for _ in range(6):
            die.roll()
        covs.append(die.chip.coverage())
    assert covs[0] == covs[1]
