"""A terminal in raw key mode for the subjects' interactive commands (the die's
``roll``, the game's ``play``): no echo, keys one at a time, Ctrl-C and Ctrl-Z
as keys, the cursor hidden; SIGTERM and SIGHUP unwind through the restore, and
what is still typed on the way out is dropped, not left for the shell."""

from __future__ import annotations

import signal
import termios
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

from fairdie._cmdline import Terminated

__all__ = ["raw_keys"]


def _raise_exit(signum: int, _frame: FrameType | None) -> None:
    if signum == signal.SIGTERM:  # as any command ends on SIGTERM: one line, 143
        raise Terminated(signum)
    raise SystemExit(128 + signum)  # unwinds through the terminal's restore


@contextmanager
def raw_keys(fd: int, out: TextIO) -> Iterator[None]:
    """The terminal on ``fd`` in raw key mode (``out`` its screen) while inside."""
    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    mode[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN)
    mode[6][termios.VMIN] = 1
    mode[6][termios.VTIME] = 0
    handlers = {s: signal.signal(s, _raise_exit) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        termios.tcsetattr(fd, termios.TCSADRAIN, mode)
        out.write("\x1b[?25l")  # hide the cursor
        yield
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
        try:
            out.write("\x1b[?25h")
            out.flush()
            termios.tcsetattr(fd, termios.TCSAFLUSH, saved)
        except OSError:  # the terminal is gone
            pass
