"""The ``fairdie`` command: build, press, roll, bench and demo.

Scripts depend on the ``--json`` outputs; every error is one line on stderr
and a non-zero exit (2 for bad input, 130 when interrupted).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fairdie._art import draw_dice as _draw
from fairdie._art import draw_table as _table
from fairdie._cmdline import int_in
from fairdie.device import MAX_HOLD_S
from fairdie.errors import FairdieError

__all__ = ["main"]

#: the board each build of die_t13a runs on (the seed build: the direct wiring)
_VARIANT_BOARDS = {"direct": "die-direct", "charlieplex": "die-charlieplex", "seed": "die-direct"}
_MAX_COUNT = 1_000_000


def _counts(text: str) -> bytes:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not six numbers: {text!r}") from None
    if len(values) != 6 or not all(0 <= v <= 255 for v in values):
        raise argparse.ArgumentTypeError(f"expected six counts 0..255 (face 1 first): {text!r}")
    return bytes(values)


def _name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("empty: give a name")
    return text.strip()


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < v <= MAX_HOLD_S:
        raise argparse.ArgumentTypeError(f"{text} s is out of range (0..{MAX_HOLD_S:g} s]")
    return v


def _add_die_options(p: argparse.ArgumentParser) -> None:
    """The options that make the die (``press``, ``roll``, ``trace``): :func:`_make_die`
    reads them."""
    p.add_argument(
        "--noise",
        type=_name,
        default=None,
        metavar="MODEL",
        help="floating (default, when the board has an analog input), uniform, stuck:MILLIVOLTS",
    )
    p.add_argument(
        "--button",
        type=_name,
        metavar="NAME",
        help="the button that rolls the die (default: the board's [die] roll, else its power)",
    )
    p.add_argument("--seed", type=int_in(0, 2**63 - 1), default=0, metavar="S")
    p.add_argument("--variant", choices=sorted(_VARIANT_BOARDS), default=None)
    p.add_argument("--board", metavar="NAME_OR_TOML", help="a board file (default by variant)")
    p.add_argument("--firmware", type=Path, metavar="PATH", help="an ELF or HEX to test")
    p.add_argument("--eep", type=Path, metavar="PATH", help="EEPROM image for a HEX firmware")
    p.add_argument("--f-cpu", type=int_in(1_000, 32_000_000), metavar="HZ")
    p.add_argument(
        "--counts",
        type=_counts,
        metavar="C1,...,C6",
        help="start from this table (default: erased)",
    )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fairdie",
        description="Cycle-accurate AVR test harness: the fair die in emulation.",
        epilog="Also, each with its own --help: fairdie verify (check a build before burning"
        " it), fairdie debug (avr-gdb), fairdie faults (power-cut campaigns), fairdie lab"
        " search|campaign (fairness).",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="show simavr's own log on stderr (-v warnings, -vv everything)",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from fairdie.toolchain import add_build_arguments

    b = sub.add_parser("build", help="build a firmware target and print its paths and sizes")
    add_build_arguments(b)  # the same command as python -m fairdie.toolchain

    pr = sub.add_parser("press", help="press the emulated die N times")
    pr.add_argument("--count", type=int_in(1, _MAX_COUNT), default=1, metavar="N")
    pr.add_argument("--hold", type=_seconds, default=0.2, metavar="SECONDS")
    _add_die_options(pr)
    pr.add_argument("--json", action="store_true", help="print one JSON object")

    tr = sub.add_parser(
        "trace",
        help="record a press of the die (pins, ADC, EEPROM, sleep, power) to a VCD file",
        description="Press the die as fairdie press does and write the last press's pins,"
        " ADC conversions, EEPROM writes, sleep and power to a VCD file (GTKWave opens it).",
    )
    tr.add_argument("--vcd", type=Path, required=True, metavar="FILE", help="the VCD to write")
    tr.add_argument(
        "--count", type=int_in(1, _MAX_COUNT), default=1, metavar="N", help="record press N"
    )
    tr.add_argument("--hold", type=_seconds, default=0.2, metavar="SECONDS")
    _add_die_options(tr)
    tr.add_argument("--json", action="store_true", help="print one JSON object")

    ro = sub.add_parser(
        "roll",
        help="press the emulated die from the terminal: a key press is a press, a held key a hold",
        description="Press the emulated die from the terminal: space or enter presses, holding"
        " the key holds the die (key repeats less than 0.6 s apart are one hold; held 10 s,"
        " the die clears its table); q or Ctrl-C quits.",
    )
    _add_die_options(ro)

    be = sub.add_parser("bench", help="measure the engine's speed")
    be.add_argument("--cycles", type=int_in(1_000_000, 10**10), default=20_000_000)
    be.add_argument("--rounds", type=int_in(1, 100), default=7)
    be.add_argument("--json", action="store_true", help="print one JSON object")

    de = sub.add_parser("demo", help="build the die, press it a few dozen times, show the table")
    de.add_argument("--count", type=int_in(1, 1000), default=36, metavar="N")
    de.add_argument("--seed", type=int_in(0, 2**63 - 1), default=1, metavar="S")
    de.add_argument("--variant", choices=sorted(_VARIANT_BOARDS), default="direct")
    return p


def _cmd_build(a: argparse.Namespace) -> int:
    from fairdie.toolchain import run_build_command

    return run_build_command(a)


def _make_die(a: argparse.Namespace) -> Any:
    from fairdie.board import check_build, load_board
    from fairdie.die import Die
    from fairdie.sim import load_firmware
    from fairdie.toolchain import load_target

    bd = load_board(a.board or _VARIANT_BOARDS[a.variant or "direct"])
    check_build(bd, a.variant)  # a board of one LED drive never runs a build of another
    model = None
    if a.firmware is not None and a.variant is not None:
        # the file stands in for that build of the board's firmware: its model judges it
        if bd.firmware is None:
            raise FairdieError(f"--variant: board {bd.name} names no firmware target to vary")
        model = load_target(bd.firmware).model_for(a.variant)
    firmware = None
    if a.firmware is not None:  # a HEX runs at the board's clock unless --f-cpu says
        firmware = load_firmware(
            a.firmware, eep=a.eep, mcu=bd.mcu, f_cpu=a.f_cpu, default_f_cpu=bd.f_cpu
        )
    elif a.eep is not None:
        raise FairdieError("--eep goes with --firmware (a HEX file)")
    die = Die(
        board=bd,
        firmware=firmware,
        variant=a.variant if firmware is None else None,
        noise=a.noise,
        seed=a.seed,
        f_cpu=a.f_cpu,
        roll=a.button,
        model=model,
    )
    if a.counts is not None:
        die.set_counts(a.counts)
    return die


def _cmd_press(a: argparse.Namespace) -> int:
    die = _make_die(a)
    presses = [die.roll(a.hold) for _ in range(a.count)]
    faces = [p.face for p in presses]
    counts = list(die.counts) if die.has_counters else None
    out = {
        "faces": faces,
        "counts": counts,
        "display": presses[-1].display,
        "seed": a.seed,
        "noise": a.noise or ("floating" if die.noise is not None else None),
        "hold": a.hold,
        "board": die.board.name,
        "button": die.roll_control,
        "firmware": str(die.chip.firmware.path),
    }
    if a.json:
        print(json.dumps(out))
    else:
        print(_draw([str(p.face) if p.face else p.display for p in presses]))
        if counts is not None:
            print(_table(counts))
        print(f"display at release: {out['display']}    replay: {a.replay}")
    if all(f is None for f in faces):
        # a die that never shows a face fails, whatever it printed
        shown = sorted({p.display for p in presses})
        print(
            f"fairdie: no valid face in {len(presses)} rolls (displays: {', '.join(shown)});"
            f" replay: {a.replay}",
            file=sys.stderr,
        )
        return 1
    return 0


def _cmd_roll(a: argparse.Namespace) -> int:
    from fairdie._roll import run_roll

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise FairdieError("roll needs a terminal (use fairdie press)")
    die = _make_die(a)
    noise = a.noise or ("floating" if die.noise is not None else "none")
    return run_roll(
        die, title=f"fairdie roll: board {die.board.name}, noise {noise}, seed {a.seed}"
    )


def _cmd_trace(a: argparse.Namespace) -> int:
    from fairdie._trace import run_trace_command

    return run_trace_command(a, _make_die)


def _cmd_bench(a: argparse.Namespace) -> int:
    from fairdie.bench import format_report, run_benchmarks

    r = run_benchmarks(cycles=a.cycles, rounds=a.rounds)
    print(json.dumps(r) if a.json else format_report(r))
    return 0


def _cmd_demo(a: argparse.Namespace) -> int:
    from fairdie.die import Die
    from fairdie.toolchain import build

    b = build("die_t13a", variant=a.variant)
    print(
        f"built {b.elf.name} for the {b.mcu} at {b.f_cpu} Hz:"
        f" flash {b.flash_bytes}/{b.flash_budget} B, sram {b.sram_bytes}/{b.sram_budget} B"
    )
    die = Die(board=_VARIANT_BOARDS[a.variant], variant=a.variant, seed=a.seed)  # b, cached
    print(
        f"a fresh chip (EEPROM erased), floating-pin noise, seed {a.seed}:"
        f" {a.count} presses of 0.2 s\n"
    )
    presses = [die.roll(0.2) for _ in range(a.count)]
    print(_draw([str(p.face) if p.face else p.display for p in presses]))
    print()
    print(_table(die.counts))
    held = die.roll(10.0)
    print(
        f"\nheld for 10 s: the display shows {held.display!r}, the table is now {list(die.counts)}"
    )
    print(_draw([held.display]))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["lab"]:  # its own parsers (fairdie.lab._lab_cli)
        from fairdie.lab._lab_cli import lab_main

        return lab_main(argv[1:])
    if argv[:1] == ["debug"]:  # its own parser (fairdie.debug._cli)
        from fairdie.debug import debug_main

        return debug_main(argv[1:])
    if argv[:1] == ["faults"]:  # its own parser (fairdie.faults._cli)
        from fairdie.faults._cli import faults_main

        return faults_main(argv[1:])
    if argv[:1] == ["verify"]:  # its own parser (fairdie.verify._cli)
        from fairdie.verify import verify_main

        return verify_main(argv[1:])
    args = _parser().parse_args(argv)
    # every run is reproducible from its arguments (the seed defaults to a fixed value)
    args.replay = shlex.join(["fairdie", *argv])
    if args.verbose:
        import logging

        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("simavr: %(message)s"))
        log = logging.getLogger("fairdie.simavr")
        log.addHandler(handler)
        log.setLevel(logging.WARNING if args.verbose == 1 else logging.DEBUG)
    command = {
        "build": _cmd_build,
        "press": _cmd_press,
        "trace": _cmd_trace,
        "roll": _cmd_roll,
        "bench": _cmd_bench,
        "demo": _cmd_demo,
    }[args.command]
    try:
        return command(args)
    except FairdieError as e:
        print(f"fairdie: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
