"""The die's part of a failing test's evidence: how the plugin's factory made
each die, and the ``fairdie press`` that ends with its last press.

A die's ``fairdie press`` equivalent is given only when it was checked:
the command's die is made and pressed as the CLI would, and its trace and
EEPROM must be the failing die's, event for event. A die rolled with
varying holds or bounces, fed a noise model object, or changed by the test
behind the factory's back has none (the pytest command still replays it).
The core (:mod:`fairdie._evidence`) writes the VCDs.
"""

from __future__ import annotations

import contextlib
import functools
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairdie._evidence import Subject

if TYPE_CHECKING:
    from fairdie.subjects.die import Die

__all__ = ["DieRecipe", "die_subject", "press_command", "recording_die"]

#: a ``fairdie press`` equivalent is checked by replaying at most this many presses
MAX_REPLAY = 1000


@dataclass(frozen=True, slots=True)
class DieRecipe:
    """How the plugin's factory made a die, as ``fairdie press`` options."""

    board: str  #: a shipped board's name or a board file's absolute path
    firmware: str | None  #: the firmware given to pytest (None: built from the board)
    f_cpu: int | None
    seed: int
    noise: object  #: a noise name (str), None for the default, or a model object
    roll: str | None
    eeprom: bytes | None


@functools.cache
def _recording_die() -> type[Die]:
    from fairdie.subjects.die import Die, Press

    class RecordingDie(Die):
        """A die that remembers how each roll was made (for its replay)."""

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            #: (hold, bounce) of each roll, in order
            self.rolls: list[tuple[float | None, object]] = []

        def roll(self, hold: float | None = None, *, bounce: Any = None) -> Press:
            self.rolls.append((hold, bounce))
            return super().roll(hold, bounce=bounce)

    return RecordingDie


def recording_die(**kwargs: Any) -> Die:
    """``Die(**kwargs)`` that remembers each roll's hold and bounce, so a
    failing test can say which ``fairdie press`` ends with its last press."""
    return _recording_die()(**kwargs)


def press_command(die: Die, recipe: DieRecipe) -> tuple[list[str] | None, str]:
    """``(argv, "")`` of the ``fairdie press`` that ends with the die's last
    press, checked by replaying it; else ``(None, why not)``."""
    rolls: list[tuple[float | None, object]] = getattr(die, "rolls", [])
    if not rolls:
        return None, "the die was never rolled"
    if len(rolls) != die.presses:
        return None, f"it counts {die.presses} presses but was rolled {len(rolls)} times"
    if len(rolls) > MAX_REPLAY:
        return None, f"{len(rolls)} presses: more than {MAX_REPLAY} to check"
    if len({hold for hold, _ in rolls}) > 1 or any(b is not None for _, b in rolls):
        return None, "its rolls differ in hold or bounce"
    if recipe.noise is not None and not isinstance(recipe.noise, str):
        return None, "its noise is a model object, not a name"
    argv = ["fairdie", "press", "--board", recipe.board]
    if recipe.firmware is not None:
        argv += ["--firmware", recipe.firmware]
    if recipe.f_cpu is not None:
        argv += ["--f-cpu", str(recipe.f_cpu)]
    argv += ["--seed", str(recipe.seed)]
    if isinstance(recipe.noise, str):
        argv += ["--noise", recipe.noise]
    if recipe.roll is not None:
        argv += ["--button", recipe.roll]
    if recipe.eeprom is not None:
        model = die.model
        table = model.table(recipe.eeprom) if model is not None else None
        if table is None or model is None or model.with_table(table) != recipe.eeprom:
            return None, "it started from an EEPROM image that is no table"
        argv += ["--counts", ",".join(map(str, table))]
    argv += ["--count", str(len(rolls))]
    if rolls[0][0] is not None:
        argv += ["--hold", repr(rolls[0][0])]
    if not _replays(argv, die):
        return None, "the test changed the die beyond what the press options say"
    return argv, ""


def _replays(argv: list[str], die: Die) -> bool:
    """Whether ``argv`` (a ``fairdie press``) ends with the die's last press."""
    from fairdie.subjects.die._cli import _press_parser, make_die

    try:
        with contextlib.redirect_stderr(io.StringIO()):  # argparse's complaints
            a = _press_parser().parse_args(argv[2:])
        replica: Die = make_die(a)
        replica.chip.trace_kinds = die.chip.trace_kinds
        for _ in range(a.count):
            replica.roll(a.hold)
    except (Exception, SystemExit):
        return False
    same_trace = replica.chip.trace.raw() == die.chip.trace.raw()
    return same_trace and replica.chip.eeprom == die.chip.eeprom


def die_subject(die: Die, recipe: DieRecipe) -> Subject:
    """The evidence subject of a die the plugin's factory made."""
    return Subject(
        die.chip,
        what="die",
        replay=lambda: press_command(die, recipe),
        trace=lambda: f"its last press (press {die.presses})",
        command="fairdie press",
        board=die.board,
    )
