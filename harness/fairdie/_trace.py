"""A chip's trace as a VCD file: what ``fairdie trace`` writes for any
firmware on its board, what ``fairdie press --vcd`` writes of a die's last
press, and what the pytest plugin attaches to a failing test.

The chip records the events in C (``Chip.trace_kinds`` says which). The VCD
has the pins that did something, the signals the recorded kinds feed, the
sleep mode, and, given a board, its parts under the board's names: each LED
lit or dark (``led.NAME``), each button pressed or not (``btn.NAME``), the
speaker's pin (``spk.speaker``) (``fairdie.sim._vcd``). Nothing here
loads the compiled module until a chip is used.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie._cmdline import Parser, parser_once
from fairdie._files import check_output_file
from fairdie.errors import FairdieError
from fairdie.sim._types import EventKind, Level, PinChange
from fairdie.sim._vcd import VCD_KINDS, Parts, signals_for

if TYPE_CHECKING:
    from fairdie.board import Board
    from fairdie.device import Device
    from fairdie.sim import Chip

__all__ = [
    "EVIDENCE_KINDS",
    "TRACE_KINDS",
    "active_pins",
    "check_vcd_path",
    "is_our_vcd",
    "summary",
    "trace_main",
    "write",
]

#: what ``fairdie press --vcd`` records: every kind a VCD shows
TRACE_KINDS = VCD_KINDS
#: what the plugin's dice record for a failing test's evidence: the cheap
#: kinds (a sleeping die wakes often; its pins change seldom)
EVIDENCE_KINDS = (
    EventKind.PIN | EventKind.EEPROM_START | EventKind.EEPROM_DONE | EventKind.ADC | EventKind.POWER
)


#: how fairdie's VCDs begin: its VCD writer names fairdie as their writer
_OUR_VCD = re.compile(
    rb"\A\s*(?:\$(?:comment|date|timescale)\b.*?\$end\s*)*\$version\s+fairdie\b", re.S
)


def is_our_vcd(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) begins a VCD fairdie wrote."""
    return _OUR_VCD.match(head) is not None


def check_vcd_path(path: Path, what: str = "--vcd", *, force: bool = False) -> Path:
    """``path`` if a VCD may be written there (:func:`fairdie._files.check_output_file`):
    writable, and nothing there but a VCD fairdie wrote, unless ``force``; an
    ELF, a HEX or a board file named by mistake is refused, untouched.
    :func:`write` asks it first, so every VCD writer (``fairdie trace``,
    ``fairdie press --vcd``, the plugin's evidence) follows it; a command asks
    it early too, before it runs."""
    return check_output_file(path, what, ours=is_our_vcd, force=force)


def board_parts(board: Board) -> Parts:
    """A board's LEDs, buttons and speaker, as a VCD names them."""
    return Parts(
        leds=[(led.name, led.anode, led.cathode) for led in board.leds],
        buttons=[(b.name, b.pin, b.active == "high") for b in board.input_buttons if b.pin],
        speakers=[("speaker", board.speaker)] if board.speaker else [],
    )


def active_pins(chip: Chip) -> list[str]:
    """The pins worth a wave: each that changes in the trace or is not
    floating now (an MCU's port may have fewer pins than its 8 bits)."""
    diffs: dict[str, int] = {}  # each port's bits that changed, in each byte of its word
    for _, port, state, before in chip.trace.pin_words():
        diffs[port] = diffs.get(port, 0) | (state ^ before)
    pins = []
    for port in chip.ports:
        now = PinChange(chip.cycle, port, chip.port_state(port), 0)
        # a change from 0 to every bit any change flipped: the pins that changed
        changed = PinChange(chip.cycle, port, diffs.get(port, 0), 0).changed_bits()
        for bit in range(8):
            if bit in changed or now.level(bit) is not Level.Z:
                pins.append(f"P{port}{bit}")
    return pins


def write(
    chip: Chip, path: Path, *, comment: str = "", board: Board | None = None, force: bool = False
) -> Path:
    """The chip's trace as a VCD at ``path``: the active pins (and those of
    the board's parts), the signals its trace kinds feed, and the board's
    LEDs and buttons. A path :func:`check_vcd_path` refuses, or an OSError,
    is a one-line FairdieError; ``force`` replaces what is there."""
    check_vcd_path(path, force=force)
    pins = active_pins(chip)
    parts = None
    if board is not None:
        parts = board_parts(board)
        wired = {p for led in board.leds for p in (led.anode, led.cathode)}
        wired |= {b.pin for b in board.input_buttons if b.pin}
        wired |= {board.speaker} if board.speaker else set()
        pins = sorted(set(pins) | {p for p in wired if p[:1] == "P"})
    try:
        return chip.write_vcd(
            path,
            pins=pins,
            signals=signals_for(chip.trace_kinds),
            comment=comment,
            parts=parts,
        )
    except OSError as e:
        raise FairdieError(f"cannot write {path}: {e.strerror or e}") from None


def summary(chip: Chip) -> dict[str, int]:
    """What the trace holds: the events of each kind (lower-case names) and
    the cycles it spans (``first_cycle``, ``last_cycle``)."""
    by_kind: Counter[int] = Counter()
    first = last = None
    for cycle, kind, *_ in chip.trace.tuples():
        by_kind[kind] += 1
        first = cycle if first is None else first
        last = cycle
    counts: Counter[str] = Counter()
    for kind, n in by_kind.items():
        counts[(EventKind(kind).name or str(kind)).lower()] += n
    out = {k.name.lower(): counts[k.name.lower()] for k in EventKind if k.name and k & TRACE_KINDS}
    out["first_cycle"] = first if first is not None else chip.cycle
    out["last_cycle"] = last if last is not None else chip.cycle
    return out


@parser_once
def _trace_parser() -> Parser:
    from fairdie._run_cli import run_parser

    p = run_parser(
        "fairdie trace",
        "Run a firmware as fairdie run does (for a time, until an event, or a scenario)"
        " and write the run to a VCD file: pins, the board's LEDs and buttons, sleep"
        " and its mode, EEPROM writes, ADC conversions, power.",
    )
    p.add_argument("--vcd", type=Path, required=True, metavar="FILE", help="the VCD file to write")
    return p


def trace_main(argv: list[str]) -> int:
    """``fairdie trace FIRMWARE --vcd FILE [the options of fairdie run]``:
    run exactly as ``fairdie run`` does, then write the run as a VCD file.
    The exit status is ``fairdie run``'s."""
    from fairdie._run_cli import run_command

    p = _trace_parser()
    replay = shlex.join(["fairdie", "trace", *argv])

    def check(a: argparse.Namespace) -> None:
        check_vcd_path(a.vcd, force=a.force)

    def after(dev: Device, a: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
        chip = dev.chip
        fw = chip.firmware.path
        comment = (
            f"{replay}\n{fw.name if fw else 'firmware'} on board {dev.board.name}:"
            f" the {chip.mcu} at {chip.frequency} Hz, seed {chip.seed}"
        )
        write(chip, a.vcd, comment=comment, board=dev.board, force=a.force)
        ev = summary(chip)
        span = (ev["last_cycle"] - ev["first_cycle"]) / chip.frequency
        line = (
            f"wrote {a.vcd}: {ev['pin']} pin changes, {ev['sleep']} sleeps,"
            f" {ev['eeprom_start']} EEPROM writes, {ev['adc']} ADC conversions,"
            f" {len(dev.board.leds)} LEDs, {len(dev.board.input_buttons)} buttons"
            f" over {span:.3f} s"
        )
        return {"vcd": str(a.vcd), "events": ev}, [line]

    return run_command(p, argv, check=check, after=after)
