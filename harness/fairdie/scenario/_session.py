"""A device run piece by piece: to a cycle, or until an event or a state.

simavr sleeps at every SLEEP whatever the mode bits say, so a session stops
at each SLEEP event and reads the mode where the chip keeps it, as
:mod:`fairdie.verify` does (its register reader is reused here). Waits for
what an eye sees (LEDs, displays) look every millisecond of chip time; waits
for engine events (sleep, wake, EEPROM writes, pin levels, speaker edges)
stop on the event itself, to the cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fairdie.scenario._model import Expect
from fairdie.sim import Event, EventKind, Until
from fairdie.verify._timeline import _Registers

if TYPE_CHECKING:
    from fairdie.device import Device
    from fairdie.sim import Chip

__all__ = ["POLL_S", "Session", "state_holds", "wait_condition"]

_SLEEP = Until(kinds=EventKind.SLEEP)
#: how often a wait for an LED or display looks, in seconds of chip time
POLL_S = 0.001
Done = Callable[[Event | None], bool]


class Session:
    """A device and what its run has shown so far: the mode of each SLEEP."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.chip: Chip = device.chip
        self._regs = _Registers(self.chip)
        #: (mode, SE set, watchdog on) at each SLEEP, by cycle
        self.sleep_at: dict[int, tuple[str, bool, bool]] = {}
        self.mode = "idle"  #: the mode of the last SLEEP seen
        self.poll = max(1, self.chip.cycles_for(POLL_S))

    def run_to(
        self, end: int, *, until: Until | None = None, done: Done | None = None, poll: bool = False
    ) -> bool:
        """Run to cycle ``end``; with ``done``, stop as soon as it holds, asked
        at each stop on ``until`` and (``poll``) each millisecond. Returns
        whether ``done`` held. An unpowered chip does not run."""
        chip = self.chip
        stops = _SLEEP if until is None else _SLEEP | until
        while chip.powered and chip.cycle < end:
            to = min(end, chip.cycle + self.poll) if poll else end
            chip.run(to_cycle=to, until=stops)
            ev = chip.stop_event
            if ev is not None and ev.kind is EventKind.SLEEP:
                self.sleep_at[ev.cycle] = state = self._regs.sleep_state()
                self.mode = state[0]
            if done is not None and (poll or ev is not None) and done(ev):
                return True
        return False

    def sleep_modes(self, since: int, already: str | None) -> list[str]:
        """The modes of the sleeps from trace position ``since`` on: ``already``
        (the mode the chip was asleep in then, if it was), then each SLEEP's."""
        modes = [already] if already else []
        for e in self.chip.trace.events(EventKind.SLEEP, since):
            modes.append(self.sleep_at.get(e.cycle, (self.mode,))[0])
        return modes


def state_holds(device: Device, state: Expect) -> bool:
    """The LEDs, displays and pin levels of ``state`` are what it says, now."""
    if state.leds is not None and device.lit() != state.leds:
        return False
    if any(device.read(d) != s for d, s in state.display):
        return False
    return all(device.chip.high(p) == h for p, h in state.pins)


def wait_condition(
    device: Device, event: str | None, state: Expect | None
) -> tuple[Until, Done, bool]:
    """What a session runs on to wait for ``event`` (a name of
    :data:`~fairdie.scenario._model.EVENTS`) or ``state``: the engine stops,
    the test at each stop, and whether it must also look every millisecond."""
    if state is not None:
        pins = tuple(p for p, _ in state.pins)
        until = Until.pin(*pins) if pins else Until()
        return (
            until,
            lambda ev: state_holds(device, state),
            bool(state.leds is not None or state.display),
        )
    if event == "leds":
        before = device.lit()
        return Until(), lambda ev: device.lit() != before, True
    if event == "tone":
        assert device.board.speaker is not None
        mark = device.chip.trace.mark()
        return Until.pin(device.board.speaker), lambda ev: bool(device.tones(mark)), False
    kind = {
        "sleep": EventKind.SLEEP,
        "wake": EventKind.WAKE,
        "eeprom-write": EventKind.EEPROM_DONE,
    }[event or ""]
    return Until.event(kind), lambda ev: ev is not None and ev.kind is kind, False
