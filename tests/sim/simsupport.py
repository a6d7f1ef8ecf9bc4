"""Helpers the simulator tests share: the CLI in-process (its stderr on a
pseudo-terminal or not), a command on a pseudo-terminal, a VCD read back
with pyvcd's tokenizer (or, for a long one, line by line, as pyvcd reads it),
and the EEPROM's busy spans in a chip's trace."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from vcd.reader import TokenKind, tokenize

from fairdie.cli import main

if TYPE_CHECKING:
    from fairdie.sim import Chip

Wave = list[tuple[int, Any]]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        rc = main(list(argv))
    except SystemExit as e:  # argparse's own errors
        rc = int(e.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def run_on_a_terminal(*argv: str) -> tuple[int, bytes]:
    """``fairdie ARGV`` in this process with its stderr on a pseudo-terminal:
    its exit status and what it drew there (read as it runs: the terminal
    holds a few KB)."""
    main_fd, sub = os.openpty()
    seen: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # EIO: the command's end of the terminal is closed
                return
            if not chunk:
                return
            seen.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        with open(sub, "w", encoding="utf-8") as tty, pytest.MonkeyPatch.context() as m:
            m.setattr(sys, "stderr", tty)
            try:
                rc = main(list(argv))
            except SystemExit as e:
                rc = int(e.code or 0)
        reader.join(timeout=10)
    finally:
        os.close(main_fd)
    return rc, b"".join(seen)


class Terminal:
    """``fairdie ARGS...`` on a pseudo-terminal of 80 x 24."""

    def __init__(self, *args: str) -> None:
        self.main, self.sub = os.openpty()
        fcntl.ioctl(self.sub, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.mode = termios.tcgetattr(self.sub)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fairdie.cli", *args],
            stdin=self.sub,
            stdout=self.sub,
            stderr=self.sub,
            start_new_session=True,
        )
        self.seen = b""

    def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.main], [], [], left)
            if ready:
                self.seen += os.read(self.main, 65536)

    def wait_for(self, found: Callable[[str], bool], timeout: float = 120) -> str:
        end = time.monotonic() + timeout
        while not found(self.screen()):
            assert time.monotonic() < end, self.seen.decode(errors="replace")[-3000:]
            self.read(0.05)
        return self.screen()

    def screen(self) -> str:
        """The last frame drawn."""
        text = self.seen.decode(errors="replace").replace("\r\n", "\n")
        return text.rsplit("\x1b[J", 1)[-1]

    def send(self, keys: bytes) -> None:
        os.write(self.main, keys)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.main)
        os.close(self.sub)


@contextmanager
def terminals(*command: str) -> Iterator[Callable[..., Terminal]]:
    """``make(*args)``: ``fairdie COMMAND... ARGS...`` on a fresh pseudo-terminal;
    each is killed and closed on the way out."""
    made: list[Terminal] = []

    def make(*args: str) -> Terminal:
        made.append(Terminal(*command, *args))
        return made[-1]

    try:
        yield make
    finally:
        for t in made:
            t.close()


def read_vcd(path: Path) -> tuple[str, dict[str, Wave]]:
    """(timescale, each variable's wave by name), with pyvcd's tokenizer."""
    names: dict[str, str] = {}
    waves: dict[str, Wave] = {}
    timescale = ""
    t = 0
    with path.open("rb") as f:
        for tok in tokenize(f):
            if tok.kind is TokenKind.TIMESCALE:
                timescale = str(tok.timescale)
            elif tok.kind is TokenKind.VAR:
                names[tok.var.id_code] = tok.var.reference
                waves[tok.var.reference] = []
            elif tok.kind is TokenKind.CHANGE_TIME:
                t = tok.time_change
            elif tok.kind is TokenKind.CHANGE_SCALAR:
                waves[names[tok.scalar_change.id_code]].append((t, tok.scalar_change.value))
            elif tok.kind is TokenKind.CHANGE_VECTOR:
                waves[names[tok.vector_change.id_code]].append((t, tok.vector_change.value))
    return timescale, waves


_VAR = re.compile(r"^\$var \S+ \d+ (\S+) (\S+) \$end$", re.M)
_TIMESCALE = re.compile(r"^\$timescale\s+(.*?)\s*\$end$", re.M)


def read_vcd_lines(path: Path) -> tuple[str, dict[str, Wave]]:
    """:func:`read_vcd`'s result for a VCD as fairdie writes it (a change a
    line), read line by line: some ten times faster on a long trace. Strict:
    a line that is no time, scalar, vector or string change (those
    :func:`read_vcd` leaves out) fails; test_trace checks it against
    :func:`read_vcd`."""
    header, sep, body = path.read_text(encoding="ascii").partition("$enddefinitions $end\n")
    assert sep, f"{path}: no $enddefinitions"
    timescale = _TIMESCALE.search(header)
    assert timescale is not None, f"{path}: no $timescale"
    names: dict[str, str] = {}
    waves: dict[str, Wave] = {}
    for code, reference in _VAR.findall(header):
        names[code] = reference
        waves[reference] = []
    t = 0
    for line in body.splitlines():
        c = line[:1]
        if c == "#":
            t = int(line[1:])
        elif c in ("0", "1", "x", "z", "X", "Z"):
            waves[names[line[1:]]].append((t, c))
        elif c in ("b", "B"):
            value, code = line[1:].split(" ")
            waves[names[code]].append((t, int(value, 2) if set(value) <= {"0", "1"} else value))
        elif c in ("s", "S"):
            assert line[1:].split(" ")[1] in names, line
        elif line not in ("$dumpvars", "$end"):
            raise AssertionError(f"{path}: not a change: {line!r}")
    return " ".join(timescale.group(1).split()), waves


#: matplotlib's first four colours: the lab's plots draw the firmware and the
#: three reference systems in them
TAB = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")


def png_colours(path: Path) -> set[str]:
    """The colours of a PNG's pixels (a plot's data drawn in its colour:
    inside a bar, along a line)."""
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "PNG"
        pixels = image.convert("RGB").getcolors(image.width * image.height)
    return {"#{:02x}{:02x}{:02x}".format(*rgb) for _, rgb in pixels}


def busy_spans(chip: Chip) -> list[tuple[int, int]]:
    from fairdie.sim import EventKind

    ev = chip.trace.signal(EventKind.EEPROM_START | EventKind.EEPROM_DONE)
    return [(a.cycle, b.cycle) for a, b in zip(ev[::2], ev[1::2], strict=True)]
