"""A roll checked against the die's model, and a face forced through it: what
test_fair_die.py and test_fair_die_properties.py share.

Nothing here imports the compiled binding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairdie.noise import Codes
from fairdie.subjects.die.suite._support import Pressing, checked_press, model_of, pressing

if TYPE_CHECKING:
    from fairdie.subjects.die import Die, Press

__all__ = ["forced", "modelled_roll"]


def modelled_roll(
    die: Die, hold: float = 0.1, model: Pressing | None = None
) -> tuple[Press, int | None, bytes, bytes]:
    """Roll; ``(press, face, before, after)``: the face and image after that
    the model (the die's, in C where it has a port, unless given) gives for
    the image before and the codes the chip converted."""
    model = model or pressing(model_of(die))
    before = die.chip.eeprom
    p = die.roll(hold)
    codes = p.adc_codes
    wanted, face, after = checked_press(model, before, codes)
    assert len(codes) == wanted, (
        f"the press converted {len(codes)} codes; the {model.name} rule converts {wanted} of them"
    )
    return p, face, before, after


def forced(die: Die, face: int) -> tuple[bytes, tuple[int, ...]]:
    """Load the model's image and noise that make the next press show ``face``."""
    image, codes = model_of(die).forcing(face)
    die.chip.write_eeprom(0, image)
    die.set_noise(Codes(codes))
    return image, codes
