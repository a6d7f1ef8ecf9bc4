"""Run a scenario on the real simulator: step by step, each step's
expectations checked once it is done, the first failing step ending the run
with what was expected, what was seen, and the command that replays it."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie.board import Board
from fairdie.errors import FairdieError
from fairdie.scenario._bind import check_scenario
from fairdie.scenario._model import (
    Analog,
    Expect,
    Power,
    Press,
    Release,
    Scenario,
    Step,
    Wait,
    WaitUntil,
)
from fairdie.scenario._parse import load_scenario
from fairdie.scenario._session import Session, wait_condition
from fairdie.scenario._subject import make_device, make_setup, resolve_board
from fairdie.sim import UNMODELLED, Firmware

if TYPE_CHECKING:
    from fairdie.device import Device

__all__ = [
    "Failure",
    "ScenarioResult",
    "StepOutcome",
    "board_argument",
    "check_expect",
    "replay_command",
    "run_scenario",
    "run_scenarios",
]


@dataclass(frozen=True, slots=True)
class Failure:
    """One expectation that did not hold (or a wait that timed out)."""

    key: str  #: the file's key: ``expect.display.face``, ``until``, ...
    expected: str
    seen: str

    def describe(self) -> str:
        return f"{self.key}: expected {self.expected}, saw {self.seen}"


@dataclass(frozen=True, slots=True)
class StepOutcome:
    number: int
    description: str
    start: int  #: cycle
    end: int  #: cycle
    failures: tuple[Failure, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass(frozen=True)
class ScenarioResult:
    """The steps run (up to the first failing one) and how to replay the run."""

    scenario: Scenario
    steps: tuple[StepOutcome, ...]
    firmware: str  #: the file that ran
    board: str | None  #: as ``--board`` takes it (None: no board)
    seed: int
    frequency: int
    replay: str  #: the ``fairdie run`` command that replays it
    #: the device it ran on, as the run left it (its chip's trace, for a VCD)
    device: Device | None = field(default=None, repr=False, compare=False)

    @property
    def unmodelled(self) -> tuple[str, ...]:
        """What the firmware used that the engine does not model (see
        :attr:`fairdie.sim.Chip.unmodelled`)."""
        return () if self.device is None else self.device.chip.unmodelled

    @property
    def passed(self) -> bool:
        return all(s.passed for s in self.steps) and len(self.steps) == len(self.scenario.steps)

    @property
    def failed_step(self) -> StepOutcome | None:
        return next((s for s in self.steps if not s.passed), None)

    def message(self) -> str:
        """What failed, in a few lines (empty when it passed)."""
        bad = self.failed_step
        if bad is None:
            return ""
        head = f"{self.scenario.source}: step {bad.number} ({bad.description})"
        at = f" at {bad.end / self.frequency * 1000:.3f} ms"
        lines = [head + at + ":"] + [f"  {f.describe()}" for f in bad.failures]
        mcu = "" if self.device is None else self.device.chip.mcu
        lines += [f"note: {UNMODELLED[n].warning(mcu, 'uses')}" for n in self.unmodelled]
        return "\n".join([*lines, f"replay: {self.replay}"])

    def as_json(self) -> dict[str, Any]:
        ms = 1000 / self.frequency
        return {
            "scenario": self.scenario.source,
            "passed": self.passed,
            "firmware": self.firmware,
            "board": self.board,
            "seed": self.seed,
            "replay": self.replay,
            "unmodelled": [UNMODELLED[n].as_json() for n in self.unmodelled],
            "steps": [
                {
                    "step": s.number,
                    "description": s.description,
                    "start_ms": round(s.start * ms, 6),
                    "end_ms": round(s.end * ms, 6),
                    "passed": s.passed,
                    "failures": [
                        {"key": f.key, "expected": f.expected, "seen": f.seen} for f in s.failures
                    ],
                }
                for s in self.steps
            ],
        }


def board_argument(board: Board) -> str:
    """The board as ``--board`` takes it: a shipped board's name, else its file."""
    return (
        board.source.removesuffix(" (shipped)").removesuffix(".toml")
        if board.source.endswith(" (shipped)")
        else board.source
    )


def _leds(names: frozenset[str]) -> str:
    return "{" + ", ".join(sorted(names)) + "}" if names else "none lit"


def _output_edges(dev: Device, since: int) -> dict[str, int]:
    """Level changes of the pins the chip drives, from trace position ``since``."""
    out: dict[str, int] = {}
    for ch in dev.chip.trace.pin_changes(since=since):
        driven = (ch.state | ch.before) >> 8
        for bit in range(8):
            if ((ch.state ^ ch.before) >> bit) & 1 and (driven >> bit) & 1:
                pin = f"P{ch.port}{bit}"
                out[pin] = out.get(pin, 0) + 1
    return out


def check_expect(
    e: Expect, session: Session, mark: int, asleep: str | None, *, key: str = "expect"
) -> list[Failure]:
    """The expectations of ``e`` that do not hold now (for a step that began at
    trace position ``mark``, the chip then asleep in mode ``asleep``)."""
    dev, chip = session.device, session.chip
    out: list[Failure] = []
    if e.leds is not None and (lit := dev.lit()) != e.leds:
        out.append(Failure(f"{key}.leds", _leds(e.leds), _leds(lit)))
    for d, symbol in e.display:
        if (shown := dev.read(d)) != symbol:
            out.append(Failure(f"{key}.display.{d}", repr(symbol), repr(shown)))
    for pin, high in e.pins:
        if chip.high(pin) != high:
            want = "high" if high else "low"
            out.append(Failure(f"{key}.pins.{pin}", want, "low" if high else "high"))
    if e.tone is not None:
        tones = dev.tones(mark)
        heard = f"{tones[-1].frequency_hz:.1f} Hz" if tones else "no tone"
        if e.tone.hz is None:
            if tones:
                out.append(Failure(f"{key}.tone", "no tone", heard))
        elif not tones or abs(tones[-1].frequency_hz - e.tone.hz) > e.tone.within():
            out.append(Failure(f"{key}.tone", e.tone.describe(), heard))
    for address, data in e.eeprom:
        stored = chip.read_eeprom(address, len(data))
        if stored != data:
            out.append(Failure(f"{key}.eeprom", f"{data.hex(' ')} at {address}", stored.hex(" ")))
    if e.sleep is not None:
        modes = session.sleep_modes(mark, asleep)
        seen = f"slept in {modes[-1]}" if modes else "no sleep"
        if e.sleep is True and not modes:
            out.append(Failure(f"{key}.sleep", "a sleep", seen))
        elif e.sleep is False and modes:
            out.append(
                Failure(f"{key}.sleep", "no sleep", f"{len(modes)} sleeps, last in {modes[-1]}")
            )
        elif isinstance(e.sleep, str) and (not modes or modes[-1] != e.sleep):
            out.append(Failure(f"{key}.sleep", f"sleep in {e.sleep}", seen))
    if e.quiet and (edges := _output_edges(dev, mark)):
        seen = ", ".join(f"{p} changed {n} times" for p, n in sorted(edges.items()))
        out.append(Failure(f"{key}.quiet", "no output edges", seen))
    return out


def _act(step: Step, session: Session) -> list[Failure]:
    """Do what the step says; a wait that timed out is its failure."""
    dev, chip, a = session.device, session.chip, step.action
    if isinstance(a, Power):
        dev.power_on() if a.on else dev.power_off()
    elif isinstance(a, Press):
        start = chip.cycle
        dev.press(a.button)
        if a.hold is not None:
            session.run_to(start + a.hold.cycles(chip.frequency))
            dev.release(a.button)
    elif isinstance(a, Release):
        dev.release(a.button)
    elif isinstance(a, Analog):
        for name, mv in a.inputs:
            dev.set_analog(name, mv)
    elif isinstance(a, Wait):
        session.run_to(chip.cycle + a.time.cycles(chip.frequency))
    elif isinstance(a, WaitUntil):
        mark, asleep = chip.trace.mark(), session.mode
        until, done, poll = wait_condition(dev, a.event, a.state)
        if a.state is not None and done(None):
            return []
        end = chip.cycle + a.timeout.cycles(chip.frequency)
        if not session.run_to(end, until=until, done=done, poll=poll):
            seen = f"not within {a.timeout}"
            if a.state is not None:
                now = check_expect(a.state, session, mark, asleep, key="")
                seen += " (then " + "; ".join(f"{f.key[1:]} {f.seen}" for f in now) + ")"
            return [Failure("until", a.what(), seen)]
    return []


def run_scenario(
    scenario: Scenario | str | Path,
    *,
    firmware: str | Path | Firmware | None = None,
    board: str | Path | Board | None = None,
    seed: int | None = None,
    mcu: str | None = None,
    f_cpu: int | None = None,
) -> ScenarioResult:
    """Run a scenario (a file or a :class:`Scenario`) on the simulator.

    ``firmware``, ``board`` and ``seed`` replace the file's own (paths the
    caller gives are relative to the working directory, the file's to the
    file); ``mcu`` (with no board) and ``f_cpu`` are ``fairdie run``'s
    ``--mcu`` and ``--f-cpu``. With no firmware anywhere, the board's firmware
    target is built. The chip is made as everywhere
    (:class:`~fairdie.device.Setup`: the board's clock unless ``f_cpu``
    says). Bad input raises :class:`~fairdie.errors.FairdieError` (one
    line); a failing expectation is a result, not an exception.
    """
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    bd = board if isinstance(board, Board) else resolve_board(board)
    if bd is None:
        try:
            bd = resolve_board(sc.board, sc.base)
        except FairdieError as e:
            raise sc.fail(None, "board", str(e)) from None
    seed = sc.seed if seed is None else seed
    given = firmware.path if isinstance(firmware, Firmware) else firmware
    if isinstance(firmware, Firmware) and given is None:
        raise FairdieError("a firmware to run a scenario on is a file: this one has no path")
    if given is not None:
        setup = make_setup(given, board=bd, mcu=mcu, f_cpu=f_cpu, seed=seed)
    elif sc.firmware is not None:
        try:
            setup = make_setup(sc.firmware, sc.base, board=bd, mcu=mcu, f_cpu=f_cpu, seed=seed)
        except FairdieError as e:
            raise sc.fail(None, "firmware", str(e)) from None
    elif bd is not None and bd.firmware is not None:
        setup = make_setup(None, board=bd, f_cpu=f_cpu, seed=seed)
    else:
        raise sc.fail(None, "firmware", "no firmware: name it here or give one to run it with")
    dev = make_device(setup)
    check_scenario(sc, dev.board, dev.chip)
    session = Session(dev)
    if sc.powered:
        dev.power_on()
    outcomes: list[StepOutcome] = []
    for step in sc.steps:
        chip = dev.chip
        start, mark = chip.cycle, chip.trace.mark()
        asleep = session.mode
        failures = _act(step, session) or check_expect(step.expect, session, mark, asleep)
        outcomes.append(
            StepOutcome(step.number, step.describe(), start, chip.cycle, tuple(failures))
        )
        if failures:
            break
    return ScenarioResult(
        scenario=sc,
        steps=tuple(outcomes),
        firmware=str(setup.firmware),
        board=None if bd is None else board_argument(bd),
        seed=seed,
        frequency=dev.chip.frequency,
        replay=replay_command(str(setup.firmware), bd, dev, sc.source, seed),
        device=dev,
    )


def replay_command(firmware: str, bd: Board | None, dev: Device, scenario: str, seed: int) -> str:
    """The ``fairdie run`` command that runs ``scenario`` again as ``dev`` ran
    it: the same file, board, MCU, clock and seed (``--f-cpu`` when the clock
    is not the board's; ``--mcu`` and ``--f-cpu`` with no board)."""
    chip = dev.chip
    if bd is None:
        where = ["--mcu", chip.mcu, "--f-cpu", str(chip.frequency)]
    else:
        where = ["--board", board_argument(bd)]
        if chip.frequency != bd.f_cpu:
            where += ["--f-cpu", str(chip.frequency)]
    return shlex.join(
        ["fairdie", "run", firmware, *where, "--scenario", scenario, "--seed", str(seed)]
    )


def run_scenarios(
    paths: Sequence[str | Path],
    *,
    firmware: str | Path | Firmware | None = None,
    board: Board | None = None,
    seed: int | None = None,
) -> list[ScenarioResult]:
    """Run scenario files (for ``fairdie verify``: those a board names), each
    on ``firmware`` and ``board`` when given. Relative paths start from the
    board file's folder. Raises :class:`~fairdie.errors.FairdieError` for a
    bad file before any runs; a failing one is a result."""
    base = board.folder if board is not None else None
    files = [Path(p) if base is None or Path(p).is_absolute() else base / p for p in paths]
    scenarios = [load_scenario(p) for p in files]
    return [run_scenario(s, firmware=firmware, board=board, seed=seed) for s in scenarios]
