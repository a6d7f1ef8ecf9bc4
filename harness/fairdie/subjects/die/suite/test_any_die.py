"""What any die must do, whatever its firmware, wiring and face table."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from fairdie.subjects.die import Die

pytestmark = pytest.mark.sim

ROLLS = 60
#: Rolls within which a fair six-sided die shows every face but with a
#: chance below 1e-40.
MAX_ROLLS = 600


def faces_of(die: Die) -> set[int]:
    faces = {int(s) for s in die.faces.symbol_names if s.isdigit()}
    assert len(faces) >= 2, f"face table {die.faces.name!r} has fewer than two numbered faces"
    return faces


def test_every_roll_shows_a_valid_face(die: Die) -> None:
    faces = faces_of(die)
    for n in range(ROLLS):
        p = die.roll(0.2)
        assert p.face in faces, f"roll {n}: the display showed {p.display!r}, not a face"


def test_every_face_is_reachable(die: Die) -> None:
    want, seen = faces_of(die), set[int]()
    for _ in range(MAX_ROLLS):
        face = die.roll(0.1).face
        if face is not None:
            seen.add(face)
        if seen == want:
            return
    pytest.fail(f"faces never shown in {MAX_ROLLS} rolls: {sorted(want - seen)}")


def test_one_steady_face_per_roll(die: Die) -> None:
    """Once shown, a roll's face stays, unchanged, for a third of a second:
    sampled every persistence window while the power is held (a power-switch
    die) or after the button is let go (a button die)."""
    for n in range(10):
        if die.rolls_by_power:
            die.power_on()
            die.chip.run(seconds=die.settle_s)
        else:
            die.roll(0.1)
        seen = [die.display()]
        for _ in range(16):
            die.chip.run(cycles=die.window)
            seen.append(die.display())
        if die.rolls_by_power:
            die.power_off()
        assert seen[0].isdigit(), f"roll {n}: no face after {die.settle_s} s: {seen[0]!r}"
        assert set(seen) == {seen[0]}, f"roll {n}: the display went {seen}"
