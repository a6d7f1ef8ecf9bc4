"""The die's commands: ``fairdie press``, ``roll`` and ``demo``.

Each takes its own arguments (one-line usage errors, exit 2); scripts read
the ``--json`` outputs. ``fairdie lab`` and ``fairdie faults`` are in
:mod:`fairdie.subjects.die.lab` and :mod:`fairdie.subjects.die.faults`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie._cmdline import (
    SEED,
    Parser,
    add_cov_option,
    add_force_option,
    int_in,
    parser_once,
    run_command,
)
from fairdie.board import Board
from fairdie.device import MAX_HOLD_S, Setup
from fairdie.errors import FairdieError
from fairdie.subjects.die._art import draw_dice, draw_table
from fairdie.subjects.die._board import die_spec
from fairdie.subjects.die._models import press_mismatch

if TYPE_CHECKING:
    from fairdie.sim import Firmware

__all__ = [
    "DIE_TARGET",
    "VARIANT_BOARDS",
    "add_target_options",
    "bench_main",
    "demo_main",
    "device_for",
    "die_for",
    "die_setup",
    "make_die",
    "press_main",
    "roll_main",
]

#: the die's firmware target
DIE_TARGET = "die_t13a"
#: the board each build of the die runs on (the seed build: the direct wiring)
VARIANT_BOARDS = {"direct": "die-direct", "charlieplex": "die-charlieplex", "seed": "die-direct"}
_MAX_COUNT = 1_000_000


def add_target_options(p: argparse.ArgumentParser, *, doing: str) -> None:
    """``--variant``, ``--firmware``, ``--board``: which die a run ``doing`` something uses."""
    p.add_argument("--variant", help="build of the board's firmware (e.g. seed: the seed's rule)")
    p.add_argument("--firmware", help=f"an ELF or HEX to {doing} instead of our build")
    p.add_argument("--board", default="die-direct", help="board file or name (default die-direct)")


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


def _timing(text: str) -> Any:
    from fairdie.stimulus import parse_timing

    try:
        return parse_timing(text)
    except FairdieError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_die_options(p: argparse.ArgumentParser) -> None:
    """The options that make the die (``press``, ``roll``): :func:`make_die` reads them."""
    p.add_argument(
        "--noise",
        type=_name,
        default=None,
        metavar="MODEL",
        help="floating (default, when the board has an analog input), uniform, stuck:MILLIVOLTS,"
        " rail-low, rail-high, dead, weak:RATIO, hum:HZ, biased:P0,P1,..., trace:FILE.csv",
    )
    p.add_argument(
        "--button",
        type=_name,
        metavar="NAME",
        help="the button that rolls the die (default: the board's [die] roll, else its power)",
    )
    p.add_argument("--seed", type=SEED, default=0, metavar="S")
    p.add_argument(
        "--timing",
        type=_timing,
        metavar="SPEC",
        help="when a person presses: human (the default for a button die with no analog"
        " input), fixed, or human:interval=0.8,hold=120ms (fairdie.stimulus)",
    )
    p.add_argument("--variant", choices=sorted(VARIANT_BOARDS), default=None)
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


def make_die(a: argparse.Namespace) -> Any:
    """The die the options of :func:`_add_die_options` describe, through one
    :class:`~fairdie.device.Setup` (the clock by its one rule)."""
    from fairdie.board import check_build, load_board
    from fairdie.toolchain import load_target

    bd = load_board(a.board or VARIANT_BOARDS[a.variant or "direct"])
    check_build(bd, a.variant)  # a board of one LED drive never runs a build of another
    options: dict[str, Any] = {"roll": a.button, "timing": a.timing}
    if a.firmware is not None and a.variant is not None:
        # the file stands in for that build of the board's firmware: its model judges it
        if bd.firmware is None:
            raise FairdieError(f"--variant: board {bd.name} names no firmware target to vary")
        options["model"] = load_target(bd.firmware).model_for(a.variant)
    if a.firmware is None and a.eep is not None:
        raise FairdieError("--eep goes with --firmware (a HEX file)")
    setup = Setup.make(
        a.firmware,
        board=bd,
        f_cpu=a.f_cpu,
        eep=a.eep,
        variant=a.variant if a.firmware is None else None,
        seed=a.seed,
        stimulus=a.noise,
    )
    note = setup.clock_note()
    if note is not None:
        print(f"fairdie: note: {note}", file=sys.stderr)
    die = die_for(setup, **options)
    if a.counts is not None:
        die.set_counts(a.counts)
    return die


def die_setup(
    board: Board | str | Path = "die-direct",
    *,
    variant: str | None = None,
    firmware: str | Path | None = None,
    seed: int = 0,
) -> Setup:
    """The setup a campaign's strings name (``--board``, ``--variant``,
    ``--firmware``): made once, in the parent, and handed to its workers.
    A build is checked against the board before it is built."""
    from fairdie.board import check_build, load_board

    bd = board if isinstance(board, Board) else load_board(board)
    check_build(bd, variant)  # a board of one LED drive never runs a build of another
    return Setup.make(firmware, board=bd, variant=variant, seed=seed)


def die_for(setup: Setup, *, firmware: Firmware | None = None, **options: Any) -> Any:
    """A :class:`Die` of ``setup`` (``options``: the Die's own, ``timing``, ``eeprom``, ...),
    judged by the model of the build it names, else of the board's build. ``firmware``:
    the setup's firmware loaded already (a worker has the image, not the file)."""
    from fairdie.subjects.die import Die
    from fairdie.toolchain import load_target

    bd = setup.board
    if bd is None:
        raise FairdieError("no board: a die is a board's (give --board)")
    if setup.variant is not None and bd.firmware is not None:  # a build of the board's target
        options.setdefault("model", load_target(bd.firmware).model_for(setup.variant))
    return Die(
        board=bd,
        firmware=firmware if firmware is not None else setup.load(),
        noise=setup.stimulus,
        seed=setup.seed,
        f_cpu=setup.f_cpu,
        **options,
    )


def device_for(setup: Setup) -> Any:
    """The core's hook (:func:`fairdie.subjects.device_for`): a :class:`Die`
    for a setup whose board has a ``[die]`` table, else None."""
    if setup.board is None or die_spec(setup.board) is None:
        return None
    return die_for(setup)


@parser_once
def _press_parser() -> Parser:
    p = Parser(prog="fairdie press", description="Press the emulated die N times.")
    p.add_argument("--count", type=int_in(1, _MAX_COUNT), default=1, metavar="N")
    p.add_argument(
        "--hold",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="how long each press is held (default 0.2 s, or drawn by --timing)",
    )
    p.add_argument(
        "--vcd",
        type=Path,
        metavar="FILE",
        help="write the last press (pins, ADC, EEPROM, sleep, power) to this VCD file",
    )
    add_force_option(p)
    _add_die_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_cov_option(p)
    return p


def _press(a: argparse.Namespace) -> int:
    from fairdie._trace import TRACE_KINDS, check_vcd_path, summary, write

    vcd = check_vcd_path(a.vcd, force=a.force) if a.vcd is not None else None
    die = make_die(a)
    if vcd is not None:
        die.chip.trace_kinds = TRACE_KINDS
    presses, mismatch = _checked_presses(die, a.count, a.hold)
    faces = [p.face for p in presses]
    counts = list(die.counts) if die.has_counters else None
    out: dict[str, Any] = {
        "faces": faces,
        "displays": [p.display for p in presses],
        "counts": counts,
        "table_kind": die.table_kind if counts is not None else None,
        "shown": [faces.count(f) for f in range(1, 7)],
        "display": presses[-1].display,
        "seed": a.seed,
        "noise": a.noise or ("floating" if die.noise is not None else None),
        "hold": a.hold if a.hold is not None else (None if die.timing else 0.2),
        "timing": str(die.timing) if die.timing is not None else None,
        "seed_matters": _seed_matters(a, faces),
        "board": die.board.name,
        "button": die.roll_control,
        "firmware": str(die.chip.firmware.path),
        "replay": a.replay,
        "mismatch": mismatch,
    }
    if vcd is not None:
        chip = die.chip
        fw = chip.firmware.path
        write(
            chip,
            vcd,
            comment=f"{a.replay}\npress {a.count} of the die on board {die.board.name}:"
            f" {fw.name if fw else 'firmware'} on the {chip.mcu} at {chip.frequency} Hz,"
            f" seed {a.seed}",
            board=die.board,
            force=a.force,
        )
        out["vcd"] = str(vcd)
        out["events"] = summary(chip)
    if a.json:
        print(json.dumps(out))
    else:
        print(draw_dice([str(p.face) if p.face else p.display for p in presses], faces=die.faces))
        if counts is not None:
            print(draw_table(counts, kind=die.table_kind, shown=faces))
        print(f"display at release: {out['display']}    replay: {a.replay}")
        if out["seed_matters"] is False:
            print(f"note: these faces do not depend on --seed (seed {a.seed + 1} rolls the same)")
        if vcd is not None:
            ev = out["events"]
            print(
                f"wrote {vcd}: {ev['pin']} pin changes, {ev['adc']} ADC conversions,"
                f" {ev['eeprom_start']} EEPROM writes, {ev['sleep']} sleeps of the last press"
            )
    if any(p.display == "fault" for p in presses) and not a.json:
        print(
            "fault: the noise failed the firmware's health tests; no face was rolled"
            ' and nothing stored (README: "When the die shows its fault pattern")',
            file=sys.stderr,
        )
    named = set(die.faces.symbol_names)
    if all(p.face is None and p.display not in named for p in presses):
        # a die that never shows a face or a symbol its board names fails
        shown = sorted({p.display for p in presses})
        print(
            f"fairdie: no valid face in {len(presses)} rolls (displays: {', '.join(shown)});"
            f" replay: {a.replay}",
            file=sys.stderr,
        )
        return 1
    # the plainest failure first: no face at all, then a face the model would not show
    if mismatch is not None:  # what a failing test's replay must say: exit 1
        print(f"fairdie: {mismatch}; replay: {a.replay}", file=sys.stderr)
        return 1
    return 0


def _checked_presses(die: Any, count: int, hold: float | None) -> tuple[list[Any], str | None]:
    """``count`` presses, each checked against the die's model when it has one:
    (the presses, why the first that is not the model's is not, else None)."""
    model = die.model
    presses, mismatch = [], None
    for n in range(1, count + 1):
        before = die.chip.eeprom if model is not None and mismatch is None else b""
        p = die.roll(hold)
        presses.append(p)
        if before:
            wrong = press_mismatch(model, before, p.adc_codes, p.face, die.chip.eeprom, p.hold_s)
            if wrong is not None:
                mismatch = f"press {n} is not its {model.name} model's: {wrong}"
    return presses, mismatch


#: presses rolled again under another seed to tell whether the seed matters
_SEED_CHECK = 24


def _seed_matters(a: argparse.Namespace, faces: list[int | None]) -> bool | None:
    """Whether the first faces change under another seed (None: not checked,
    for a run of over 1000 presses or one from a given table)."""
    if len(faces) > 1000 or a.counts is not None:
        return None
    n = min(len(faces), _SEED_CHECK)
    other = make_die(argparse.Namespace(**{**vars(a), "seed": a.seed + 1}))
    return [other.roll(a.hold).face for _ in range(n)] != faces[:n]


def press_main(argv: list[str]) -> int:
    """``fairdie press ...``; returns the exit status."""
    return run_command(_press_parser(), argv, _press, replay=True)


def _roll(a: argparse.Namespace) -> int:
    from fairdie.subjects.die._roll import run_roll

    die = make_die(a)  # its inputs checked first, a terminal or not
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise FairdieError("roll needs a terminal (use fairdie press)")
    noise = a.noise or ("floating" if die.noise is not None else "none")
    return run_roll(
        die, title=f"fairdie roll: board {die.board.name}, noise {noise}, seed {a.seed}"
    )


@parser_once
def _roll_parser() -> Parser:
    p = Parser(
        prog="fairdie roll",
        description="Press the emulated die from the terminal: space or enter presses, holding"
        " the key holds the die (key repeats less than 0.6 s apart are one hold; held 10 s,"
        " the die clears its table); q or Ctrl-C quits.",
    )
    _add_die_options(p)
    return p


def roll_main(argv: list[str]) -> int:
    """``fairdie roll ...``; returns the exit status."""
    return run_command(_roll_parser(), argv, _roll, replay=True)


def _demo(a: argparse.Namespace) -> int:
    from fairdie.subjects.die import Die
    from fairdie.toolchain import build

    b = build(DIE_TARGET, variant=a.variant)
    print(
        f"built {b.elf.name} for the {b.mcu} at {b.f_cpu} Hz:"
        f" flash {b.flash_bytes}/{b.flash_budget} B, sram {b.sram_bytes}/{b.sram_budget} B"
    )
    die = Die(board=VARIANT_BOARDS[a.variant], variant=a.variant, seed=a.seed)  # b, cached
    print(
        f"a fresh chip (EEPROM erased), floating-pin noise, seed {a.seed}:"
        f" {a.count} presses of 0.2 s\n"
    )
    presses = [die.roll(0.2) for _ in range(a.count)]
    print(draw_dice([str(p.face) if p.face else p.display for p in presses], faces=die.faces))
    print()
    print(draw_table(die.counts, kind=die.table_kind, shown=[p.face for p in presses]))
    held = die.roll(10.0)
    print(
        f"\nheld for 10 s: the display shows {held.display!r},"
        f" the {die.table_kind} are now {list(die.counts)}"
    )
    print(draw_dice([held.display], faces=die.faces))
    return 0


def demo_main(argv: list[str]) -> int:
    """``fairdie demo ...``; returns the exit status."""
    p = Parser(
        prog="fairdie demo",
        description="Build the die, press it a few dozen times, show the table.",
    )
    p.add_argument("--count", type=int_in(1, 1000), default=36, metavar="N")
    p.add_argument("--seed", type=SEED, default=1, metavar="S")
    p.add_argument("--variant", choices=sorted(VARIANT_BOARDS), default="direct")
    return run_command(p, argv, _demo, replay=True)


def bench_main(argv: list[str]) -> int:
    """``fairdie bench ...``: the engine's speed and the die's presses, side by side."""
    from fairdie.subjects.die.bench import format_report, run_benchmarks

    p = Parser(prog="fairdie bench", description="Measure the engine's and the die's speed.")
    p.add_argument("--cycles", type=int_in(1_000_000, 10**10), default=20_000_000)
    p.add_argument("--rounds", type=int_in(1, 100), default=7)
    p.add_argument(
        "--no-verify",
        dest="verify",
        action="store_false",
        help="leave out verify_seconds (a full fairdie verify of the default build)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--json-out",
        type=Path,
        metavar="FILE",
        help="also write the same run's figures as one JSON object to FILE",
    )

    def run(a: argparse.Namespace) -> int:
        r = run_benchmarks(cycles=a.cycles, rounds=a.rounds, verify=a.verify)
        print(json.dumps(r) if a.json else format_report(r))
        if a.json_out is not None:
            a.json_out.write_text(json.dumps(r, indent=1) + "\n")
        return 0

    return run_command(p, argv, run, replay=True)
