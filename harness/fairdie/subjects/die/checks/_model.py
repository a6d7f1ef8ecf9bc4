"""The ``model`` check: which reference model the firmware's presses follow.

Each variant of the board's firmware target names the reference model of its
presses (target.toml). A file verify identified as one of those builds
follows that build's model. A file that matches no build (a modified build, a
maker's own) is judged by behaviour: the model is the one whose presses it
reproduces from that model's own images, if any.
"""

from __future__ import annotations

import re
from pathlib import Path

from fairdie.board import Board, load_board
from fairdie.errors import FairdieError
from fairdie.subjects.die._models import conversion_mismatch
from fairdie.subjects.die.checks._state import DieState
from fairdie.verify import Context, Result, fail, ok, skip

__all__ = ["QUICK_HOLD_S", "board_copy", "model_check", "models_of", "variant_for"]

QUICK_HOLD_S = 0.1  # a press long enough to show its face, as the lab's campaigns press


def model_check(ctx: Context) -> Result:
    from fairdie.subjects.die._models import model_named
    from fairdie.toolchain import load_target

    c, st = ctx.c, DieState.of(ctx)
    bd = c.board
    ctx.facts["model"] = None
    if bd.firmware is None:
        return skip(f"board {bd.name} names no firmware target, so no reference model")
    c.identify()
    names = models_of(bd)
    found: str | None = None
    if c.identified is not None:
        found = load_target(bd.firmware).model_for(c.identified)
        how = f"build {c.identified} names model {found!r} (target.toml)"
    else:
        found = next((n for n in names if _reproduces(st, n)), None)
        how = (
            f"not a known build; its presses from the {found!r} model's images store"
            f" what that model stores"
        )
    if found is None:
        return fail(
            f"its presses follow none of {bd.firmware}'s models ({', '.join(names)}):"
            " the checks that need a model cannot judge it"
        )
    st.model = model_named(found)
    ctx.facts["model"] = found
    if c.identified is not None and c.file_f_cpu in (None, c.f_cpu):
        # byte for byte that build: the campaigns press it by name (their replay ids work)
        st.campaign = (c.board_arg, c.identified, None)
    elif names and found != names[0]:  # the file, on a board naming a build of its model
        variant = c.identified or variant_for(bd, found)
        if variant is None:
            return fail(f"{how}, but no build of {bd.firmware} with it fits board {bd.name}")
        st.campaign = (board_copy(bd, variant, ctx.folder), None, str(c.path))
    return ok(how, model=found)


def _reproduces(st: DieState, name: str) -> bool:
    """Does the firmware store what model ``name`` stores, from that model's images?"""
    from fairdie.subjects.die._models import model_named

    model = model_named(name)
    for face in (1, 6):
        image, codes = model.forcing(face)
        try:
            die = st.die(eeprom=image, codes=codes)
            press = die.roll(QUICK_HOLD_S)
        except FairdieError:
            return False
        after = model.press(image, codes)[1]
        if conversion_mismatch(model, press.adc_codes) or die.chip.eeprom[: len(after)] != after:
            return False
    return True


def board_copy(board: Board, variant: str, folder: Path) -> str:
    """A copy of ``board``'s file naming build ``variant``: what campaigns load
    to judge the file by that build's model."""
    from fairdie.board import shipped_board_file

    if board.source.endswith(" (shipped)"):
        name = board.source.removesuffix(" (shipped)")
        text = shipped_board_file(name).read_text(encoding="utf-8")
    else:
        text = Path(board.source).read_text(encoding="utf-8")
    head = re.search(r"(?ms)^\[board\][^\[]*", text)
    if head is None:
        raise FairdieError(f"{board.source}: no [board] table to copy")
    body = head.group(0)
    line = f'variant = "{variant}"\n'
    if re.search(r"(?m)^variant\s*=.*$", body):
        body = re.sub(r"(?m)^variant\s*=.*\n?", line, body, count=1)
    else:
        body = body.replace("[board]\n", "[board]\n" + line, 1)
    out = folder / f"{board.name}-{variant}.toml"
    out.write_text(text[: head.start()] + body + text[head.end() :], encoding="utf-8")
    load_board(out)  # the copy must load as the original does
    return str(out)


def models_of(board: Board) -> list[str]:
    """The models the board's target names, the board's own variant's first."""
    if board.firmware is None:
        return []
    from fairdie.toolchain import load_target

    tgt = load_target(board.firmware)
    names = [tgt.model_for(board.variant)] + [tgt.model_for(v) for v in tgt.variants]
    return list(dict.fromkeys(n for n in names if n))


def variant_for(board: Board, model: str) -> str | None:
    """A variant of the board's target with ``model`` that drives LEDs as the
    board is wired (the board's own first)."""
    if board.firmware is None:
        return None
    from fairdie.toolchain import load_target

    tgt = load_target(board.firmware)
    for v in dict.fromkeys([board.variant or tgt.default_variant, *tgt.variants]):
        if v is None:
            continue
        drive = tgt.leds_for(v)
        if tgt.model_for(v) == model and (drive is None or drive == board.led_drive):
            return v
    return None
