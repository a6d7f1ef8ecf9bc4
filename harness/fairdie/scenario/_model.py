"""What a scenario file says, once read: its header, its steps, each step's
action and expectations, and times as the file wrote them (converted to
cycles at the chip's clock when it runs)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from fairdie.errors import FairdieError

__all__ = [
    "EVENTS",
    "MAX_TIME_S",
    "Analog",
    "Check",
    "Duration",
    "Expect",
    "Power",
    "Press",
    "Release",
    "Scenario",
    "ScenarioError",
    "Step",
    "ToneExpect",
    "Wait",
    "WaitUntil",
    "step_error",
]

#: The longest time a step may wait, hold or time out (an hour of chip time).
MAX_TIME_S = 3600.0
#: The events a step may wait for by name (``until = "sleep"``).
EVENTS = {
    "leds": "the lit LEDs change",
    "tone": "a tone starts on the speaker",
    "sleep": "the CPU sleeps",
    "wake": "the CPU wakes",
    "eeprom-write": "an EEPROM write completes",
}
_UNITS = {"cycles": 0.0, "cycle": 0.0, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_TIME = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]+)\s*\Z")


class ScenarioError(FairdieError):
    """A scenario file is missing, malformed, or does not fit its board."""


def step_error(source: str, step: int | None, key: str, problem: str) -> ScenarioError:
    """The one line naming the file, the step (None: the ``[scenario]`` header) and the key."""
    where = "[scenario]" if step is None else f"step {step}"
    return ScenarioError(" ".join(f"{source}: {where}: {key}: {problem}".split()))


@dataclass(frozen=True, slots=True)
class Duration:
    """A time as a file gives it: ``"250ms"``, ``"10s"``, ``"1200 cycles"``."""

    amount: float
    unit: str  #: "cycles", "us", "ms" or "s"

    @classmethod
    def parse(cls, text: str) -> Duration:
        """Raises ValueError with the reason (the caller names the file and key)."""
        m = _TIME.match(text.lower())
        if m is None or m.group(2) not in _UNITS:
            raise ValueError(f"{text!r} is not a time such as '250ms', '10s' or '1200 cycles'")
        amount, unit = float(m.group(1)), m.group(2)
        unit = "cycles" if unit == "cycle" else unit
        if unit == "cycles" and not amount.is_integer():
            raise ValueError(f"{text!r}: cycles are whole numbers")
        if amount <= 0:
            raise ValueError(f"{text!r} is not a positive time")
        if unit != "cycles" and amount * _UNITS[unit] > MAX_TIME_S:
            raise ValueError(f"{text!r} is longer than {MAX_TIME_S:g} s")
        return cls(amount, unit)

    def cycles(self, f_cpu: int) -> int:
        """This time in cycles of a chip clocked at ``f_cpu`` (at least 1)."""
        if self.unit == "cycles":
            return int(self.amount)
        return max(1, round(self.amount * _UNITS[self.unit] * f_cpu))

    def __str__(self) -> str:
        return f"{self.amount:g} {self.unit}"


# ---- actions: what a step does ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Power:
    on: bool

    def describe(self) -> str:
        return "power on" if self.on else "power off"


@dataclass(frozen=True, slots=True)
class Press:
    button: str
    hold: Duration | None = None  #: held this long, then released

    def describe(self) -> str:
        return f"press {self.button}" + (f" for {self.hold}" if self.hold else "")


@dataclass(frozen=True, slots=True)
class Release:
    button: str

    def describe(self) -> str:
        return f"release {self.button}"


@dataclass(frozen=True, slots=True)
class Analog:
    inputs: tuple[tuple[str, float], ...]  #: (analog input, millivolts)

    def describe(self) -> str:
        return "set " + ", ".join(f"{n} to {mv:g} mV" for n, mv in self.inputs)


@dataclass(frozen=True, slots=True)
class Wait:
    time: Duration

    def describe(self) -> str:
        return f"wait {self.time}"


@dataclass(frozen=True, slots=True)
class WaitUntil:
    """Run until an event (a name of :data:`EVENTS`) or a state (``state``
    holds), at most ``timeout``."""

    event: str | None
    state: Expect | None
    timeout: Duration

    def what(self) -> str:
        return EVENTS[self.event or ""] if self.state is None else self.state.describe()

    def describe(self) -> str:
        return f"wait until {self.what()}, at most {self.timeout}"


@dataclass(frozen=True, slots=True)
class Check:
    """A step that only checks its expectations."""

    def describe(self) -> str:
        return "check"


Action = Power | Press | Release | Analog | Wait | WaitUntil | Check


# ---- expectations: what must hold after a step --------------------------------------


@dataclass(frozen=True, slots=True)
class ToneExpect:
    """The step's last tone, ``hz`` within ``tolerance`` (Hz, or a share of
    ``hz`` when ``relative``); ``hz`` None: no tone during the step."""

    hz: float | None
    tolerance: float = 0.01
    relative: bool = True

    def within(self) -> float:
        assert self.hz is not None
        return self.hz * self.tolerance if self.relative else self.tolerance

    def describe(self) -> str:
        if self.hz is None:
            return "no tone"
        tol = f"{self.tolerance * 100:g} %" if self.relative else f"{self.tolerance:g} Hz"
        return f"{self.hz:g} Hz +/- {tol}"


@dataclass(frozen=True, slots=True)
class Expect:
    """What a step expects once it is done; None or empty: not checked."""

    leds: frozenset[str] | None = None  #: exactly these lit
    display: tuple[tuple[str, str], ...] = ()  #: (display, symbol)
    tone: ToneExpect | None = None
    pins: tuple[tuple[str, bool], ...] = ()  #: (pin, high)
    eeprom: tuple[tuple[int, bytes], ...] = ()  #: (address, bytes there)
    sleep: bool | str | None = None  #: slept (True), not (False), or its last mode
    quiet: bool = False  #: no pin the chip drives changed level

    @property
    def empty(self) -> bool:
        return self == Expect()

    def describe(self) -> str:
        parts: list[str] = []
        if self.leds is not None:
            parts.append("LEDs " + (", ".join(sorted(self.leds)) or "none") + " lit")
        parts += [f"display {d} shows {s!r}" for d, s in self.display]
        parts += [f"{p} is {'high' if h else 'low'}" for p, h in self.pins]
        return " and ".join(parts)


@dataclass(frozen=True, slots=True)
class Step:
    number: int  #: from 1, as counted in the file
    action: Action
    expect: Expect = field(default_factory=Expect)
    name: str | None = None  #: the file's own description

    def describe(self) -> str:
        return self.name or self.action.describe()


@dataclass(frozen=True, slots=True)
class Scenario:
    """A scenario file, read and checked on its own (names are checked
    against a board when it runs)."""

    source: str  #: the file, for messages
    steps: tuple[Step, ...]
    name: str | None = None
    firmware: str | None = None  #: as the file gives it
    board: str | None = None
    seed: int = 0
    powered: bool = True  #: the chip is on before step 1
    base: Path = field(default_factory=Path)  #: the folder relative paths start from

    def fail(self, step: int | None, key: str, problem: str) -> ScenarioError:
        return step_error(self.source, step, key, problem)
