"""What the die's checks link to in verify's report besides the VCDs of
their presses: for each face, a drawing of the LEDs its display expects
against those lit; and the ``fairdie press`` that presses the die from the
same table (``faces``, ``clear-10s``) or an erased chip (``fresh-chip``)."""

from __future__ import annotations

import shlex

from fairdie.subjects.die.checks._options import die_options
from fairdie.subjects.die.checks._state import DieState
from fairdie.verify import Context, Timeline
from fairdie.verify._evidence import led_svg

__all__ = ["link_face", "link_replay", "press_replay"]


def press_replay(ctx: Context, image: bytes | None, hold: float, vcd: str) -> str | None:
    """The ``fairdie press`` that presses this firmware on this board from
    ``image``'s table (None: an erased chip) for ``hold`` s and writes
    ``vcd``; None when the image is no table the command can start from."""
    argv = ["fairdie", "press", "--board", ctx.c.board_arg, "--firmware", str(ctx.c.path)]
    if ctx.c.setup.eep is not None:
        argv += ["--eep", str(ctx.c.setup.eep)]
    argv += ["--seed", str(ctx.o.seed)]
    if image is not None:
        model = DieState.of(ctx).model
        table = model.table(image) if model is not None else None
        if model is None or table is None or model.with_table(table) != image:
            return None
        argv += ["--counts", ",".join(map(str, table))]
    argv += ["--hold", repr(hold), "--vcd", vcd]
    return shlex.join(argv)


def link_replay(ctx: Context, title: str, image: bytes | None, hold: float, vcd: str) -> None:
    """Link the running check to :func:`press_replay`'s command, if there is one."""
    command = press_replay(ctx, image, hold, vcd)
    if command is not None:
        ctx.link(ctx.current, title, command=command)


def link_face(ctx: Context, face: int, tl: Timeline) -> None:
    """Link ``faces`` to face ``face``'s drawing and replay (its VCD is linked already)."""
    st = DieState.of(ctx)
    display = st.die().faces
    want = display.lit_for(str(face))
    verdict = "as expected" if tl.shown == str(face) else f"showed {tl.shown}"
    name = ctx.add_file(
        f"face-{face}.svg",
        led_svg(ctx.c.board, want, tl.lit, f"face {face}: {verdict}").encode("utf-8"),
    )
    ctx.link(ctx.current, f"face {face}: expected against lit ({name})", file=name)
    hold = die_options(ctx).hold
    title = f"face {face}: a press from the same table"
    link_replay(ctx, title, st.images[face][0], hold, f"face-{face}-replay.vcd")
