"""ADC channels fed a block at a time (``next_values``): the same conversions
as one call per conversion, exact across snapshots and seeks, errors
reported as a callback's, and each noise kind's press reading the codes of
the pure Python reference (tests/noise_reference.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fairdie.errors import SimulationError
from fairdie.noise import Floating, code_for_mv
from fairdie.sim import Chip
from fairdie.sim._simavr import ffi, lib
from noise_reference import MODELS, WEIGHTS, ref_hum

pytestmark = pytest.mark.sim


class PerCall:
    """A model's values one call at a time: it hides the model's blocks."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def __call__(self, channel: int) -> float:
        return float(self.model(channel))

    def seek(self, press: int) -> None:
        self.model.seek(press)

    def snapshot(self) -> Any:
        return self.model.snapshot()

    def restore(self, state: Any) -> None:
        self.model.restore(state)


def _log(chip: Chip) -> list[tuple[int, int, int, int]]:
    return [(c.cycle, c.channel, c.millivolts, c.code) for c in chip.adc_log()]


def _free_running(make_chip: Any, source: Any) -> Chip:
    chip = make_chip("adc", ADC_FREE=1, chip_args={"vcc_mv": 3000})
    chip.set_adc(0, source)
    return chip


def test_blocks_and_calls_give_the_same_conversions(make_chip: Any) -> None:
    blocks = _free_running(make_chip, Floating(4, 3000))
    calls = _free_running(make_chip, PerCall(Floating(4, 3000)))
    for chip in (blocks, calls):
        chip.run(seconds=1.0)  # over a thousand conversions: blocks of every size
    assert len(blocks.adc_log()) > 1000
    assert _log(blocks) == _log(calls)


def test_a_restored_run_repeats_mid_block(make_chip: Any) -> None:
    model = Floating(7, 3000)
    chip = _free_running(make_chip, model)
    chip.run(seconds=0.013)
    assert lib.fd_adc_buffered(chip._c, 0) > 0  # the snapshot falls inside a block
    snap = chip.snapshot()
    mark = chip.trace.mark()
    chip.run(seconds=0.05)
    first = chip.adc_log(mark)
    model.seek(3)  # moves the model (and drops the block) after the snapshot
    chip.run(seconds=0.01)
    chip.restore(snap)
    chip.clear_trace()
    chip.run(seconds=0.05)
    assert chip.adc_log() == first


def test_a_seek_drops_the_values_held_ahead(make_chip: Any) -> None:
    model = Floating(2, 3000)
    chip = _free_running(make_chip, model)
    chip.run(seconds=0.01)
    model.seek(5)
    mark = chip.trace.mark()
    chip.run(seconds=0.01)
    got = [c.millivolts for c in chip.adc_log(mark)]
    expected = Floating(2, 3000).press_values(5, len(got))
    assert got == [round(v) for v in expected]


class Raises:
    def __call__(self, channel: int) -> float:
        return 1 / 0

    def next_values(self, channel: int, n: int) -> Any:
        return 1 / 0


@pytest.mark.parametrize("source", [Raises(), Raises().__call__], ids=["blocks", "calls"])
def test_a_source_error_is_reported_from_run(make_chip: Any, source: Any) -> None:
    chip = _free_running(make_chip, source)
    with pytest.raises(SimulationError, match=r"the ADC source raised ZeroDivisionError"):
        chip.run(seconds=0.01)


class Gives:
    def __init__(self, values: Any) -> None:
        self.values = values

    def __call__(self, channel: int) -> float:
        raise AssertionError("asked per conversion")

    def next_values(self, channel: int, n: int) -> Any:
        return self.values


def test_a_source_that_gives_nothing_stops_the_run(make_chip: Any) -> None:
    chip = _free_running(make_chip, Gives([]))
    with pytest.raises(SimulationError, match="gave no more values"):
        chip.run(seconds=0.01)


def test_a_block_value_out_of_range_is_refused_as_a_calls(make_chip: Any) -> None:
    for source in (Gives([5.0, 70000.0]), lambda ch: 70000.0):
        chip = _free_running(make_chip, source)
        with pytest.raises(SimulationError, match=r"ADC millivolts 70000\.0 is out of range"):
            chip.run(seconds=0.01)


def test_a_buffer_of_c_alone_wraps_or_stops_when_it_runs_out(make_chip: Any) -> None:
    """The C API a loop with no Python uses: its own buffer, no refill."""
    values = np.array([300.6, 600.4, 900.5, 1201.5])
    buf = ffi.from_buffer("double[]", values)
    chip = make_chip("adc", ADC_FREE=1, chip_args={"vcc_mv": 3000})
    assert lib.fd_adc_buffer(chip._c, 0, buf, 4, lib.FD_ADC_WRAP) == 0
    chip.run(seconds=0.01)
    fed = [c.millivolts for c in chip.adc_log()]
    assert len(fed) > 8
    assert fed == [[301, 600, 900, 1202][i % 4] for i in range(len(fed))]  # half to even
    assert lib.fd_adc_buffer(chip._c, 0, buf, 4, 0) == 0
    with pytest.raises(SimulationError, match="ran out of values"):
        chip.run(seconds=0.01)
    bad = ffi.from_buffer("double[]", np.array([1.0, float("nan")]))
    assert lib.fd_adc_buffer(chip._c, 0, bad, 2, 0) == -2


# ---- a die's presses read the reference's codes -------------------------------------

SPECS = {
    "floating": "floating",
    "uniform": "uniform",
    "biased": "biased:" + ",".join(f"{w:g}" for w in WEIGHTS),
    "weak": "weak:3",
    "hum": "hum:50",
    "dead": "dead",
}


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_a_press_reads_the_codes_of_the_python_reference(kind: str) -> None:
    from fairdie.subjects.die import Die

    die = Die(board="die-direct", noise=SPECS[kind], seed=3)
    chip = die.chip
    channel, vcc = die._analog.channel, float(chip.vcc_mv)  # type: ignore[union-attr]
    ref = MODELS[kind][1]
    for press in range(6):
        die.roll()
        log = chip.adc_log()
        assert {c.channel for c in log} == {channel}
        if kind == "hum":  # at each conversion's time since power-on
            since = [(c.cycle - chip.power_on_cycle) / chip.frequency for c in log]
            values = ref_hum(3, vcc, press, channel, len(log), since)
        else:
            values = ref(3, vcc, press, channel, len(log))
        assert [c.millivolts for c in log] == [round(v) for v in values]
        assert [c.code for c in log] == [
            code_for_mv(round(v), c.vref_mv) for v, c in zip(values, log, strict=True)
        ]


def test_a_die_asks_its_noise_for_about_one_block_a_press() -> None:
    from fairdie.subjects.die import Die

    class Counted(Floating):
        blocks = 0

        def next_values(self, channel: int, n: int) -> Any:
            Counted.blocks += 1
            return super().next_values(channel, n)

    die = Die(board="die-direct", noise=Counted(1, 3000), seed=1)
    conversions = sum(len(die.roll().adc_codes) for _ in range(40))
    assert conversions >= 40 * 64
    assert Counted.blocks <= 40 * 1.25
