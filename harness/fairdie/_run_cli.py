"""``fairdie run``: run any firmware on its board, for a while or through a scenario.

    fairdie run [FIRMWARE] [--board B | --mcu M --f-cpu HZ] [--for TIME | --until EVENT]
                [--scenario S.toml] [--seed N] [--json] [--cov PATH]

Without a scenario it runs the firmware for a time (default 1 s) or until an
event and prints what it saw: pin edges, the LEDs lit over time, the symbols
each display showed, tones, EEPROM writes, sleeps and their modes; it exits
0, or 1 when ``--until``'s event did not come. With ``--scenario`` it runs
the scenario and exits 0 when every expectation held, 1 naming the step that
failed. Either way it names what the firmware used that the engine does not
model (``Chip.unmodelled``). Bad input is one line and exit 2; 130 when
interrupted.

The parser (:func:`run_parser`) and the runner (:func:`run_command`) are
shared: ``fairdie trace`` (:mod:`fairdie._trace`) runs exactly as this does
and then writes the run's VCD.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie._cmdline import (
    SEED,
    Parser,
    Terminated,
    add_cov_option,
    add_force_option,
    covering,
    int_in,
    parse,
    parser_once,
    stopped,
)
from fairdie.errors import FairdieError

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.device import Device
    from fairdie.scenario._model import Expect

__all__ = ["After", "run_command", "run_main", "run_parser"]

PROG = "fairdie run"
_DEFAULT_FOR = "1s"
#: what a command built on ``fairdie run`` does with the device once it has
#: run: more keys for the JSON object, and more lines for the text
After = Callable[["Device", argparse.Namespace], tuple[dict[str, Any], list[str]]]


def _time(text: str) -> str:
    from fairdie.scenario._model import Duration

    try:
        Duration.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def run_parser(
    prog: str = PROG,
    description: str = "Run a firmware on its board and show what it did, or run a scenario file.",
) -> Parser:
    """The options of ``fairdie run`` (a command built on it adds its own)."""
    from fairdie.scenario._model import EVENTS

    p = Parser(prog=prog, description=description)
    p.add_argument(
        "firmware",
        nargs="?",
        metavar="FIRMWARE",
        help="an ELF or HEX, a target folder or a shipped target (default with --scenario:"
        " the scenario's)",
    )
    p.add_argument("--board", metavar="B", help="a board file or a shipped board")
    p.add_argument("--mcu", metavar="M", help="the MCU, with no board (e.g. attiny13a)")
    p.add_argument("--f-cpu", type=int_in(1_000, 32_000_000), metavar="HZ", help="the clock")
    p.add_argument(
        "--for", dest="time", type=_time, metavar="TIME", help="how long to run (default 1s)"
    )
    p.add_argument(
        "--until",
        metavar="EVENT",
        help=f"stop at an event: {', '.join(EVENTS)}, PIN=high|low, DISPLAY=SYMBOL or"
        " leds=NAME,... (at most --for)",
    )
    p.add_argument("--scenario", type=Path, metavar="S.toml", help="run this scenario file")
    p.add_argument("--seed", type=SEED, metavar="N", help="default 0")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_cov_option(p)
    add_force_option(p)
    return p


def _until(text: str, board: Board) -> tuple[str | None, Expect | None]:
    """``--until``: an event name, or a state as ``NAME=VALUE``."""
    from fairdie.scenario._model import EVENTS, Expect
    from fairdie.sim import parse_pin

    if text in EVENTS:
        return text, None
    name, sep, value = text.partition("=")
    if not sep or not value:
        raise FairdieError(
            f"--until {text!r}: expected an event ({', '.join(EVENTS)}) or NAME=VALUE"
        )
    if name == "leds":
        return None, Expect(leds=frozenset(v.strip() for v in value.split(",") if v.strip()))
    if name in {d.name for d in board.displays}:
        return None, Expect(display=((name, value),))
    try:
        port, bit = parse_pin(name)
    except ValueError:
        raise FairdieError(
            f"--until {text!r}: {name!r} is neither a pin nor a display of board {board.name}"
        ) from None
    if value.lower() not in ("high", "low"):
        raise FairdieError(f"--until {text!r}: a pin is high or low")
    return None, Expect(pins=((f"P{port}{bit}", value.lower() == "high"),))


def _unmodelled(dev: Device) -> tuple[list[dict[str, str]], list[str]]:
    """What the firmware used that the engine does not model: JSON and lines."""
    from fairdie.sim import UNMODELLED

    found = [UNMODELLED[n] for n in dev.chip.unmodelled]
    lines = [f"warning: {u.warning(dev.chip.mcu, 'uses')}" for u in found]
    return [u.as_json() for u in found], lines


def _free_run(a: argparse.Namespace, after: After | None) -> int:
    from fairdie.scenario._bind import check_scenario
    from fairdie.scenario._model import Duration, Scenario, ScenarioError, Step, WaitUntil
    from fairdie.scenario._observe import observe
    from fairdie.scenario._subject import make_device, make_setup, resolve_board

    if a.firmware is None:
        raise FairdieError("give FIRMWARE (or --scenario)")
    setup = make_setup(
        a.firmware, board=resolve_board(a.board), mcu=a.mcu, f_cpu=a.f_cpu, seed=a.seed or 0
    )
    dev = make_device(setup)
    fw = dev.chip.firmware
    event, state = _until(a.until, dev.board) if a.until else (None, None)
    time = Duration.parse(a.time or _DEFAULT_FOR)
    if a.until:  # the names it uses are the board's and the chip's, as in a scenario
        step = Step(1, WaitUntil(event, state, time))
        try:
            check_scenario(Scenario("--until", (step,)), dev.board, dev.chip)
        except ScenarioError as e:  # "--until: step 1: KEY: PROBLEM"
            raise FairdieError(f"--until {a.until!r}: {str(e).split(': ', 3)[-1]}") from None
    seen = observe(dev, time.cycles(dev.chip.frequency), event=event, state=state)
    unmodelled, warnings = _unmodelled(dev)
    clock = setup.clock_note()
    warnings = [f"note: {clock}", *warnings] if clock else warnings
    more, lines = after(dev, a) if after is not None else ({}, [])
    if a.json:
        out = {"firmware": str(fw.path), "board": dev.board.name, **seen.as_json()}
        print(json.dumps({**out, "unmodelled": unmodelled, "clock_note": clock, **more}))
    else:
        name = fw.path.name if fw.path else a.firmware
        print(f"{name} on {dev.board.name} at {dev.chip.frequency} Hz, seed {a.seed or 0}")
        print("\n".join([seen.format(), *warnings, *lines]))
    return 1 if a.until and not seen.seen else 0


def _scenario(a: argparse.Namespace, after: After | None) -> int:
    from fairdie.scenario import load_scenario, run_scenario

    if a.time or a.until:
        raise FairdieError("--for and --until run without --scenario: a scenario has its own times")
    sc = load_scenario(a.scenario)
    r = run_scenario(sc, firmware=a.firmware, board=a.board, seed=a.seed, mcu=a.mcu, f_cpu=a.f_cpu)
    assert r.device is not None
    more, lines = after(r.device, a) if after is not None else ({}, [])
    if a.json:
        print(json.dumps({**r.as_json(), **more}))
    elif r.passed:
        warnings = _unmodelled(r.device)[1]
        print("\n".join([f"{sc.source}: {len(r.steps)} steps passed", *warnings, *lines]))
    else:
        print(r.message(), file=sys.stderr)
        if lines:
            print("\n".join(lines))
    return 0 if r.passed else 1


def run_command(
    parser: Parser,
    argv: list[str],
    *,
    check: Callable[[argparse.Namespace], None] | None = None,
    after: After | None = None,
) -> int:
    """Parse ``argv`` and run as ``fairdie run`` does: ``check`` looks at
    the arguments before anything runs, ``after`` at the device once it
    has run. The exit status (bad input: one line, 2)."""
    a = parse(parser, argv)
    if isinstance(a, int):
        return a
    try:
        if a.board is not None and a.mcu is not None:
            raise FairdieError("give --board or --mcu, not both (a board names its MCU)")
        if check is not None:
            check(a)
        with covering(a):
            return _scenario(a, after) if a.scenario is not None else _free_run(a, after)
    except FairdieError as e:
        print(f"fairdie: error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as e:
        return stopped(e)


@parser_once
def _run_parser() -> Parser:
    return run_parser()


def run_main(argv: list[str]) -> int:
    """``fairdie run ARGS``: the exit status."""
    return run_command(_run_parser(), argv)
