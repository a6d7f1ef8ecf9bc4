"""Analog inputs on the analog comparator's pins, fed through the board: the
continuity tester's scenario file (tests/scenarios/test_continuity.toml)
fails naming its step when an expectation is wrong, the bandgap and ACME
builds follow their reference, and the ATtiny85 and ATtiny84A tables route
a board's inputs to AIN0 and AIN1."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdie.board import Board, load_board, parse_board
from fairdie.device import Device
from fairdie.errors import FairdieError
from fairdie.scenario import parse_scenario, run_scenario
from fairdie.sim import Chip
from fairdie.toolchain import firmware_dir

pytestmark = pytest.mark.sim

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "test_continuity.toml"
BOARD = firmware_dir() / "tests" / "continuity" / "board.toml"


def _tester(build: Callable[..., Any], board: Board | None = None, **defines: Any) -> Device:
    bd = board or load_board(BOARD)
    b = build("continuity", **defines)
    return Device(Chip(b.elf, mcu=b.mcu, f_cpu=bd.f_cpu), bd)


def _hears(dev: Device, seconds: float = 0.02) -> list[float]:
    mark = dev.chip.trace.mark()
    dev.chip.run(seconds=seconds)
    return [round(t.frequency_hz) for t in dev.tones(mark)]


def _wrong(right: str, wrong: str) -> tuple[int, str]:
    text = SCENARIO.read_text()
    assert text.count(right) == 1
    data = tomllib.loads(text.replace(right, wrong))
    r = run_scenario(parse_scenario(data, source=str(SCENARIO), base=SCENARIO.parent))
    assert not r.passed and r.failed_step is not None
    return r.failed_step.number, r.message()


def test_a_tone_expected_while_the_probes_touch_is_checked() -> None:
    step, message = _wrong("hz = 1000,", "hz = 1200,")
    assert step == 6 and "step 6 (touching: it beeps)" in message
    assert "expect.tone: expected 1200 Hz" in message and "saw 1000.0 Hz" in message


def test_silence_expected_while_the_probes_touch_fails_at_its_step() -> None:
    right = 'expect = { tone = { hz = 1000, tolerance = "1%" }, sleep = "idle" }'
    step, message = _wrong(right, 'expect = { tone = "none" }')
    assert step == 6 and "expect.tone: expected no tone, saw 1000.0 Hz" in message


def test_a_tone_expected_once_the_probes_part_fails_at_its_step() -> None:
    right = 'expect = { tone = "none", quiet = true, pins = { PB3 = "low" } }'
    step, message = _wrong(right, "expect = { tone = 1000 }")
    assert step == 8 and "step 8 (apart again: silent)" in message
    assert "saw no tone" in message


def test_the_probe_just_above_or_below_the_reference(build_test_firmware: Any) -> None:
    dev = _tester(build_test_firmware)
    dev.set_analog("reference", 1000)
    dev.set_analog("probe", 999)
    dev.power_on()
    assert _hears(dev) == []
    dev.set_analog("probe", 1001)
    assert _hears(dev) == [1000]
    dev.set_analog("reference", 1002)  # the reference moves over the probe
    assert _hears(dev) == [] and not dev.chip.high("PB3")


def test_the_bandgap_build_ignores_the_probe(build_test_firmware: Any) -> None:
    dev = _tester(build_test_firmware, CONTINUITY_BANDGAP=1)
    dev.set_analog("probe", 3000)
    dev.set_analog("reference", 1200)  # 1.1 V is below it
    dev.power_on()
    assert _hears(dev) == []
    dev.set_analog("reference", 1000)
    dev.set_analog("probe", 0)
    assert _hears(dev) == [1000]


def test_the_acme_build_compares_against_an_adc_channel(build_test_firmware: Any) -> None:
    bd = parse_board(
        {
            "board": {"name": "acme", "mcu": "attiny13a", "f_cpu": 9_600_000, "vcc_mv": 3000},
            "analog": {"probe": {"pin": "PB0"}, "reference": {"pin": "PB4", "channel": 2}},
            "speaker": {"pin": "PB3"},
        }
    )
    dev = _tester(build_test_firmware, bd, CONTINUITY_REF_ADC=2)
    dev.set_analog("reference", 1000)
    dev.set_analog("probe", 1500)
    dev.power_on()
    assert _hears(dev) == [1000]
    dev.set_analog("reference", 2000)  # reaches the comparator through the ADC mux
    assert _hears(dev) == []


@pytest.mark.parametrize(
    ("mcu", "ain0", "ain1"), [("attiny85", "PB0", "PB1"), ("attiny84a", "PA1", "PA2")]
)
def test_the_board_tables_route_inputs_to_ain0_and_ain1(
    make_chip: Callable[..., Chip], mcu: str, ain0: str, ain1: str
) -> None:
    bd = parse_board(
        {
            "board": {"name": mcu, "mcu": mcu, "f_cpu": 1_200_000, "vcc_mv": 3000},
            "analog": {"probe": {"pin": ain0}, "reference": {"pin": ain1}},
        }
    )
    chip = make_chip("acomp", mcu=mcu, f_cpu=1_200_000, power=False)
    dev = Device(chip, bd)  # the acomp firmware mirrors ACO on PB2
    dev.set_analog("reference", 1000)
    dev.set_analog("probe", 900)
    dev.power_on()
    chip.run(500)
    assert not chip.high("PB2")
    dev.set_analog("probe", 1100)
    chip.run(500)
    assert chip.high("PB2") and chip.read_var("rises") == 1


def test_a_noise_model_on_a_comparator_only_input_is_refused(build_test_firmware: Any) -> None:
    dev = _tester(build_test_firmware)
    with pytest.raises(FairdieError, match=r"comparator's AIN0 only.*not a noise model$"):
        dev.set_analog("probe", lambda channel: 1000.0)
    with pytest.raises(FairdieError, match="out of range"):
        dev.set_analog("probe", 70000)
    with pytest.raises(FairdieError, match=r"no analog input 'knob' \(inputs: probe, reference\)"):
        dev.set_analog("knob", 1000)
