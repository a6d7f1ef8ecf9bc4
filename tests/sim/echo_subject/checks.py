"""The echo subject's verify check, for boards whose firmware is its own."""

from __future__ import annotations

from echo_subject.follow import follows
from fairdie.board import Board
from fairdie.device import Device
from fairdie.verify import Check, Checks, Context, Result, fail, ok


def applies(board: Board) -> str | None:
    return None if board.firmware == "echo_fw" else f"board {board.name} is no echo board"


def led_follows(ctx: Context) -> Result:
    seen = follows(Device(ctx.chip(), ctx.c.board, seed=ctx.o.seed))
    if seen != (True, False, True):
        return fail(f"the LED lit before, during, after a press: {seen}")
    return ok("the LED goes out while the button is held, and only then")


CHECKS = Checks(
    subject="echo",
    applies=applies,
    checks=(Check("echo-follows", "the LED follows the button", led_follows),),
)
