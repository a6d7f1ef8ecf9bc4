"""``fairdie debug``: a firmware under our GDB remote stub, for avr-gdb.

    fairdie debug [FIRMWARE] [--port P] [--board NAME_OR_TOML] [--variant V]
                  [--mcu MCU] [--eep PATH] [--f-cpu HZ] [--noise MODEL] [--seed S]

Without FIRMWARE it builds the board's firmware target (``--variant``: which
build). Without a board, the firmware runs as a bare chip of the MCU its ELF
names (or ``--mcu``). A board a subject claims gets that subject's device
(the die's ``monitor press`` rolls it). The chip starts
powered on and halted at its reset vector. The stub listens on 127.0.0.1
only (``--port 0`` picks a free port) and prints the port and the avr-gdb
command that connects; it serves one gdb at a time until interrupted
(Ctrl-C: exit 130). Bad input is one line ``fairdie: error: ...`` on
stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import errno
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie._cmdline import SEED, BadInput, Parser, Terminated, int_in, parser_once, stopped
from fairdie.errors import FairdieError

if TYPE_CHECKING:
    from fairdie.device import Device
    from fairdie.sim import Chip

__all__ = ["debug_main"]

PROG = "fairdie debug"
DEFAULT_PORT = 1234


def _port(text: str) -> int:
    try:
        v = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= v <= 65535:
        raise argparse.ArgumentTypeError(f"port {v} is out of range (0..65535)")
    return v


@parser_once
def _parser() -> Parser:
    p = Parser(
        prog=PROG,
        description="Run a firmware on its board under a GDB remote stub for avr-gdb.",
    )
    p.add_argument(
        "firmware",
        nargs="?",
        type=Path,
        metavar="FIRMWARE",
        help="ELF or HEX (default: build the board's firmware target)",
    )
    p.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        metavar="P",
        help=f"TCP port on 127.0.0.1 (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    p.add_argument("--board", metavar="NAME_OR_TOML", help="a board file or a shipped board")
    p.add_argument("--variant", help="the build of the board's firmware target to debug")
    p.add_argument(
        "--mcu", help="run FIRMWARE on this MCU, without a board (when the file does not say)"
    )
    p.add_argument("--eep", type=Path, metavar="PATH", help="EEPROM image for a HEX firmware")
    p.add_argument("--f-cpu", type=int_in(1_000, 32_000_000), metavar="HZ")
    p.add_argument("--noise", metavar="MODEL", help="what the board's analog input reads")
    p.add_argument("--seed", type=SEED, default=0, metavar="S")
    return p


def _setup(a: argparse.Namespace) -> tuple[Chip, Device | None, Path | None]:
    """The chip, its device (or None) and the folder of its sources (or None)."""
    from fairdie.device import Setup
    from fairdie.toolchain import load_target

    if a.firmware is None and a.board is None:
        raise FairdieError("give a FIRMWARE (ELF or HEX) or a --board that names its firmware")
    setup = Setup.make(
        a.firmware,
        board=a.board,
        mcu=a.mcu,
        f_cpu=a.f_cpu,
        eep=a.eep,
        variant=a.variant,
        seed=a.seed,
        stimulus=a.noise,
    )
    board = setup.board
    if board is None:  # a bare chip
        if a.noise is not None:
            raise FairdieError("--noise needs a --board with an analog input")
        return setup.chip(), None, None
    sources = load_target(board.firmware).path if a.firmware is None and board.firmware else None
    device = setup.device()
    if a.noise is not None and getattr(device, "set_noise", None) is None:
        _feed(device, a.noise)
    return device.chip, device, sources


def _feed(device: Device, spec: str) -> None:
    from fairdie.debug._monitor import Monitor

    answer = Monitor(device.chip, device).run(f"noise {spec}")
    if not answer.startswith("noise "):
        raise FairdieError(answer.strip().removeprefix("monitor noise: "))


def debug_main(argv: list[str]) -> int:
    """``fairdie debug ...``; returns the exit status."""
    from fairdie.debug._stub import HOST, DebugServer

    try:
        a = _parser().parse_args(argv)
        chip, device, sources = _setup(a)
        if device is not None:
            device.power_on()
        else:
            chip.power_on()
        try:
            server = DebugServer(chip, device, port=a.port, log=_say)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise FairdieError(
                    f"port {a.port} on {HOST} is in use: choose another with --port"
                    " (--port 0 picks a free one)"
                ) from None
            raise FairdieError(f"cannot listen on {HOST}:{a.port}: {e.strerror}") from None
    except (BadInput, FairdieError) as e:
        print(f"fairdie: error: {e}", file=sys.stderr)
        return 2
    fw = chip.firmware.path
    name = fw.name if fw else "firmware"
    what = f"board {device.board.name}" if device is not None else "no board"
    _say(
        f"fairdie debug: {name} on the {chip.mcu} at {chip.frequency} Hz ({what}):"
        f" powered on, halted at pc 0x{chip.pc:04x}"
    )
    _say(f"listening on {HOST}:{server.port}; connect with:")
    elf = [str(fw)] if fw is not None and fw.suffix.lower() == ".elf" else []
    src = ["-ex", f"directory {sources}"] if sources is not None else []
    _say("  " + shlex.join(["avr-gdb", *elf, *src, "-ex", f"target remote :{server.port}"]))
    try:
        server.serve_forever()
    except (KeyboardInterrupt, Terminated) as e:
        return stopped(e)
    finally:
        server.close()
    return 0


def _say(line: str) -> None:
    print(line, flush=True)
