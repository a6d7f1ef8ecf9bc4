"""The die's section of a board file, ``[die]``: how the board rolls and reads
as a die. The core's board loader calls :func:`parse_die_section` through the
registry (``SUBJECT.board_sections``); :func:`die_spec` reads it back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fairdie.board import MCU_EEPROM, Board, Ctx, check_keys, get_int, get_str, positive

__all__ = ["DieSpec", "die_spec", "parse_die_section", "same_die"]

_KEYS = frozenset({"roll", "display", "counters", "settle_ms"})
_SETTLE_MS = 50.0


@dataclass(frozen=True, slots=True)
class DieSpec:
    """How the board is rolled and read as a die (the board file's ``[die]``).

    ``roll``: the button that rolls it (a power button: each roll is a power
    cycle). ``display``: the display whose symbols are the faces (``None``:
    the standard die's faces on LEDs named by die position). ``counters``:
    the EEPROM address of six per-face counters, if the firmware keeps them.
    ``settle_ms``: how long after a roll the face must be steady.
    """

    roll: str | None = None
    display: str | None = None
    counters: int | None = None
    settle_ms: float = 50.0


def parse_die_section(ctx: Ctx, t: Mapping[str, Any], board: Board) -> DieSpec:
    """``[die]``, checked against the board's buttons, displays and EEPROM."""
    w = "[die]"
    check_keys(ctx, w, t, _KEYS)
    roll = get_str(ctx, w, t, "roll", required=False)
    if roll is not None and roll not in {b.name for b in board.buttons}:
        raise ctx.fail(w, f"roll {roll!r} is not a button of this board")
    display = get_str(ctx, w, t, "display", required=False)
    if display is not None and display not in {d.name for d in board.displays}:
        raise ctx.fail(w, f"display {display!r} is not a display of this board")
    counters = get_int(ctx, w, t, "counters", required=False)
    if counters is not None and not 0 <= counters <= 0xFFFF - 5:
        raise ctx.fail(w, f"counters {counters} is not an EEPROM address")
    size = MCU_EEPROM.get(board.mcu)
    if counters is not None and size is not None and counters + 6 > size:
        raise ctx.fail(
            w,
            f"counters at {counters}: six counters from there overrun the {board.mcu}'s {size}"
            " bytes of EEPROM",
        )
    settle = positive(ctx, w, t, "settle_ms", _SETTLE_MS, 60_000)
    return DieSpec(roll, display, counters, settle)


def die_spec(board: Board) -> DieSpec | None:
    """The board's ``[die]``, or None when the board is no die."""
    spec = board.section("die")
    return spec if isinstance(spec, DieSpec) else None


def same_die(a: Board, b: Board) -> bool:
    """Whether two boards are the same die under two names: the same wiring
    (MCU, clock, supply, LEDs, inputs, buttons, displays, ``[die]``) and the
    same build named (firmware target and variant). A firmware given for one
    runs on the other, and a test of one applies to the other: a copy of a
    shipped board file under another name is such a board."""
    return replace(a, name=b.name, source=b.source, scenarios=b.scenarios) == b
