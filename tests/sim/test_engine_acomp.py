"""The analog comparator (simavr 1.6's, fed by `Chip.set_comparator`), on the
`acomp` test firmware: ACO mirrored on PB2, an interrupt on each rise."""

from __future__ import annotations

import pytest

from fairdie.errors import FairdieError

pytestmark = pytest.mark.sim


def test_aco_follows_ain0_against_ain1_and_rises_interrupt(make_chip):
    chip = make_chip("acomp")
    chip.set_comparator("AIN1", 1000)
    chip.run(500)
    assert not chip.high("PB2") and chip.read_var("rises") == 0
    chip.set_comparator("AIN0", 1500)
    chip.run(500)
    assert chip.high("PB2") and chip.read_var("rises") == 1
    chip.set_comparator("AIN0", 500)
    chip.run(500)
    assert not chip.high("PB2") and chip.read_var("rises") == 1  # a fall: no interrupt
    chip.set_comparator("AIN1", 100)
    chip.run(500)
    assert chip.high("PB2") and chip.read_var("rises") == 2


def test_bandgap_replaces_ain0(make_chip):
    chip = make_chip("acomp", ACOMP_BANDGAP=1)
    chip.set_comparator("AIN0", 3000)
    chip.set_comparator("AIN1", 1200)
    chip.run(500)
    assert not chip.high("PB2")  # 1.1 V < 1.2 V, whatever AIN0 says
    chip.set_comparator("AIN1", 1000)
    chip.run(500)
    assert chip.high("PB2") and chip.read_var("rises") == 1


def test_bad_comparator_input_is_one_line(make_chip):
    chip = make_chip("acomp")
    with pytest.raises(FairdieError, match="choose AIN0"):
        chip.set_comparator("AIN2", 10)
    with pytest.raises(FairdieError, match="out of range"):
        chip.set_comparator("AIN0", -1)
